package invitations

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/reportingplatform/api/shared/domain"
	"github.com/reportingplatform/api/shared/httpapi"
)

// FuzzInvitationCreate reads any POST body: either every field's format error (SPEC §1's messages,
// organization_id and email required) or a request within the seed's limits, never both.
func FuzzInvitationCreate(f *testing.F) {
	const id = "f513f2cb-24db-5da0-92eb-722df0e62779"
	f.Add(`{"organization_id": "` + id + `", "email": "a@example.com"}`)
	f.Add(`{"organization_id": "` + id + `", "email": "a@example.com", "role": 2, "first_name": null, "last_name": "",
		"accessible_portfolio_ids": ["` + id + `"], "status": 4, "token": "x"}`)
	f.Add(`{}`)
	f.Add(`{"organization_id": 1, "email": ["a"], "role": "7", "accessible_portfolio_ids": "x", "first_name": {}}`)
	f.Add(`{"organization_id": "` + strings.ToUpper(id) + `", "email": "` + strings.Repeat("é", 300) + `@example.com"}`)
	f.Fuzz(func(t *testing.T, body string) {
		if _, ok := decode(body); !ok {
			return // DecodeObject's refusals: FuzzDecodeObject's business
		}
		r := httptest.NewRequest(http.MethodPost, "/x", strings.NewReader(body))
		r.Header.Set("Content-Type", "application/json")
		req, err := readCreate(r)
		var bad *domain.Error
		if err != nil {
			if !errors.As(err, &bad) || bad.Code != domain.EINVALID || len(bad.Fields) == 0 || req != nil {
				t.Fatalf("%.200q: %v", body, err)
			}
			for field, msgs := range bad.Fields {
				for _, m := range msgs {
					if !(m == domain.MsgRequired && (field == fieldOrg || field == fieldEmail)) && !patchMessage(field, m) {
						t.Fatalf("%.200q: %s: %q", body, field, msgs)
					}
				}
			}
			return
		}
		name := func(p *string) bool { return p == nil || utf8.RuneCountInString(*p) <= domain.MaxInviteeName }
		if _, ok := httpapi.ParseUUID(req.orgID); !ok || !domain.ValidEmail(req.email) ||
			utf8.RuneCountInString(req.email) > domain.MaxEmailLength || !req.role.Valid() || !name(req.firstName) ||
			!name(req.lastName) {
			t.Fatalf("%.200q accepted as %+v", body, *req)
		}
		for _, p := range req.portfolioIDs {
			if got, ok := httpapi.ParseUUID(p); !ok || got != p {
				t.Fatalf("%.200q: portfolio %q", body, p)
			}
		}
	})
}

// FuzzInvitationListFilters reads any query: the filters either pass, within their types, or fail with
// django-filter's messages only.
func FuzzInvitationListFilters(f *testing.F) {
	for _, q := range []string{"", "organization=f513f2cb-24db-5da0-92eb-722df0e62779&status=0&email=A@x.com",
		"status=5&organization=x", "status=%201", "status=1&status=9", "email=%00",
		"organization=%20F513F2CB24DB5DA092EB722DF0E62779%20"} {
		f.Add(q)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		q, err := url.ParseQuery(raw)
		if err != nil {
			return
		}
		lf, err := readListFilters(q)
		var bad *domain.Error
		if err != nil {
			if !errors.As(err, &bad) || bad.Code != domain.EINVALID {
				t.Fatalf("%q: %v", raw, err)
			}
			for field, msgs := range bad.Fields {
				ok := len(msgs) == 1 && (field == "organization" && msgs[0] == "Enter a valid UUID." ||
					field == "status" && strings.HasPrefix(msgs[0], "Select a valid choice. ") ||
					field == "email" && msgs[0] == "Null characters are not allowed.")
				if !ok {
					t.Fatalf("%q: %s %q", raw, field, msgs)
				}
			}
			return
		}
		if lf.status != nil && !lf.status.Valid() || strings.ContainsRune(lf.email, 0) {
			t.Fatalf("%q accepted as %+v", raw, lf)
		}
		if lf.organization != "" {
			if got, ok := httpapi.ParseUUID(lf.organization); !ok || got != lf.organization {
				t.Fatalf("%q: organization %q", raw, lf.organization)
			}
		}
	})
}
