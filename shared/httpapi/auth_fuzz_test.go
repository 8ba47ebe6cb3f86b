package httpapi

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/reportingplatform/api/shared/domain"
)

// knownTokens answers Session for one token of one active user and no session for anything else, and
// remembers what it was asked.
type knownTokens struct {
	userID, hash string
	asked        []string
}

func (k *knownTokens) Session(_ context.Context, ref domain.TokenRef) (domain.Session, error) {
	k.asked = append(k.asked, ref.UserID+" "+ref.Hash)
	if ref.UserID != k.userID || ref.Hash != k.hash {
		return domain.Session{}, nil
	}
	return domain.Session{
		User:  domain.User{ID: ref.UserID, IsActive: true},
		Token: domain.Token{Hash: ref.Hash, UserID: ref.UserID, ExpiresAt: time.Now().Add(time.Hour)},
		Found: true,
	}, nil
}

// FuzzAuthorization sends any Authorization header to the Authenticator. SPEC §2 decides the outcome
// from the header's words alone: none or another scheme, "Bearer" alone, more than one word after
// it, or a token, each with DRF's message; only a header shaped like one of our tokens may cost a
// store read, and only the one token the store knows authenticates.
func FuzzAuthorization(f *testing.F) {
	const userID = "6f9619ff-8b86-d011-b42d-00cf4fc964ff"
	token, hash, err := domain.NewTokenString(userID)
	if err != nil {
		f.Fatal(err)
	}
	for _, h := range []string{
		"", " ", "Bearer", "bearer ", "Bearer " + token, "BEARER\t" + token + " ", "Bearer  " + token,
		"Bearer " + token + " x",
		"Token " + token, "Basic YWRtaW46eA==", "Bearer " + token[:len(token)-1], "Bearer " + strings.ToUpper(token),
		"Bearer " + token + "=", "Bearer 6f9619ff8b86d011b42d00cf4fc964ff.", "Bearer \x00", "Bearer\u00a0" + token,
		"Bearer " + strings.Repeat("a", 300), "Bearer " + token[:32] + "." + strings.Repeat("A", 43), "Bearer\xff " + token,
		"Bearer " + strings.Replace(token, ".", "..", 1), "Bearer 6F9619FF8B86D011B42D00CF4FC964FF" + token[32:],
	} {
		f.Add(h)
	}
	f.Fuzz(func(t *testing.T, header string) {
		store := &knownTokens{userID: userID, hash: hash}
		a := &Authenticator{Sessions: store, Now: time.Now}
		r := httptest.NewRequest(http.MethodGet, "/x", nil)
		r.Header.Set("Authorization", header)
		user, err := a.Authenticate(r)

		words := headerWords(header)
		want := ""
		switch {
		case len(words) == 0 || !strings.EqualFold(words[0], "bearer"):
			want = domain.MsgNoCredentials
		case len(words) == 1:
			want = "Invalid token header. No credentials provided."
		case len(words) > 2:
			want = "Invalid token header. Token string should not contain spaces."
		case words[1] != token:
			want = domain.MsgInvalidToken
		}
		if want == "" {
			if err != nil || user.ID != userID {
				t.Fatalf("%q: %v, %v; want the user", header, user, err)
			}
		} else if domain.ErrorCode(err) != domain.EUNAUTHENTICATED || err.(*domain.Error).Detail != want {
			t.Fatalf("%q: %v; want 401 %q", header, err, want)
		}
		// Handlers that read the session with their first data use Bearer alone: it must refuse exactly
		// what Authenticate refuses without reading, with the same words, and name the same session.
		ref, bearerErr := Bearer(r)
		if (bearerErr != nil) != (len(store.asked) == 0) || bearerErr != nil && bearerErr.Error() != err.Error() ||
			bearerErr == nil && store.asked[0] != ref.UserID+" "+ref.Hash {
			t.Fatalf("%q: Bearer gives %+v, %v; Authenticate asked %q and gave %v", header, ref, bearerErr, store.asked, err)
		}
		if len(store.asked) > 1 {
			t.Fatalf("%q: %d store reads", header, len(store.asked))
		}
		if len(store.asked) == 1 {
			id, h, ok := domain.ParseTokenString(words[1])
			if len(words) != 2 || !ok || store.asked[0] != id+" "+h || h != domain.HashToken(words[1]) {
				t.Fatalf("%q: the store was asked %q", header, store.asked[0])
			}
			checkCanonicalUUID(t, id)
		}
	})
}
