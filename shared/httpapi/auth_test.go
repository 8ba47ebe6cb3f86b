package httpapi

import (
	"errors"
	"net/http/httptest"
	"testing"

	"github.com/reportingplatform/api/shared/domain"
)

// DRF splits the Authorization header as bytes, at ASCII white space only: a no-break space or an
// ideographic space joins the scheme and the token into one word, which is then no "Bearer".
func TestBearerSplitsAtASCIIWhiteSpaceOnly(t *testing.T) {
	token, _, err := domain.NewTokenString("6f9619ff-8b86-d011-b42d-00cf4fc964ff")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ header, want string }{
		{"Bearer\u00a0" + token, domain.MsgNoCredentials},
		{"Bearer\u3000" + token, domain.MsgNoCredentials},
		{"Bearer " + token + "\u00a0x", domain.MsgInvalidToken},
		{"Bearer\t" + token + " x", "Invalid token header. Token string should not contain spaces."},
		{"Bearer\v", "Invalid token header. No credentials provided."},
	} {
		r := httptest.NewRequest("GET", "/x", nil)
		r.Header.Set("Authorization", tc.header)
		_, err := Bearer(r)
		var e *domain.Error
		if !errors.As(err, &e) || e.Code != domain.EUNAUTHENTICATED || e.Detail != tc.want {
			t.Errorf("%q: %v, want 401 %q", tc.header, err, tc.want)
		}
	}
}
