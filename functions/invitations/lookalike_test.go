package invitations_test

import (
	"encoding/json"
	"net/url"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/reportingplatform/api/infra/testkit"
	"github.com/reportingplatform/api/shared/domain"
)

// TestLookAlikeAddressesAreOtherInvitees: SPEC §2, §4 and §5 fold ASCII letters only. For each letter
// that Unicode case mapping or folding takes onto an ASCII one (the Kelvin sign onto k, the dotted
// capital I onto i, the long s onto s), an invitation to one address is not the other's: the other
// cannot read, list or accept it, the `email` filter keeps them apart, a pending invitation or a
// membership of one does not stop an invitation to the other, and each acceptance makes only its own
// invitee a member. ASCII letters in another case still match.
func TestLookAlikeAddressesAreOtherInvitees(t *testing.T) {
	w := newWorld(t)
	for _, la := range []struct{ name, unicode, ascii string }{
		{"Kelvin sign", "\u212Aate", "kate"},
		{"dotted capital I", "v\u0130ctim", "victim"},
		{"long s", "\u017Fam", "sam"},
	} {
		t.Run(la.name, func(t *testing.T) {
			r := "-" + uuid.NewString()[:8] + "@example.com"
			look := w.db.User(t, testkit.NewUser{Email: la.unicode + r})
			twin := w.db.User(t, testkit.NewUser{Email: la.ascii + r})
			admin := w.token(t, w.admin)
			create := func(email string) string {
				t.Helper()
				resp := w.post(t, admin, testkit.MustJSON(t, map[string]any{"organization_id": w.acme.ID, "email": email}))
				id, _ := resp.Object(t)["id"].(string)
				if id == "" {
					t.Fatalf("create to %q: %d %s", email, resp.Status, resp.Body)
				}
				resp.Expect(t, 201, w.before(t, id).JSON(t))
				return id
			}
			list := func(u domain.User, query string) testkit.Response {
				t.Helper()
				return testkit.Do(t, w.gw, testkit.Request{Method: "GET", Path: listPath + query, Token: w.token(t, u)})
			}

			toTwin := create(asciiUpper(twin.Email)) // another ASCII case: still the twin's
			w.get(t, w.token(t, look), toTwin).Expect(t, 404, notFound)
			w.patch(t, w.token(t, look), toTwin, `{"status": 1}`).Expect(t, 404, notFound)
			list(look, "").Expect(t, 200, page())
			w.get(t, w.token(t, twin), toTwin).Expect(t, 200, w.before(t, toTwin).JSON(t))

			// The twin's pending invitation is not the look-alike's.
			toLook := create(look.Email)
			w.get(t, w.token(t, twin), toLook).Expect(t, 404, notFound)
			list(look, "").Expect(t, 200, page(w.before(t, toLook)))
			list(twin, "").Expect(t, 200, page(w.before(t, toTwin)))
			list(w.staff, "?email="+url.QueryEscape(look.Email)).Expect(t, 200, page(w.before(t, toLook)))
			list(w.staff, "?email="+url.QueryEscape(twin.Email)).Expect(t, 200, page(w.before(t, toTwin)))
			list(w.staff, "?email="+url.QueryEscape(asciiUpper(look.Email))).Expect(t, 200, page(w.before(t, toLook)))
			list(look, "?email="+url.QueryEscape(twin.Email)).Expect(t, 200, page())

			// The look-alike accepts: a member of Acme, the twin not; the twin's membership check, its
			// pending invitation and its acceptance are its own.
			want := w.saved(w.before(t, toLook))
			want.Status = 1
			w.patch(t, w.token(t, look), toLook, `{"status": 1}`).Expect(t, 200, want.JSON(t))
			w.expectMember(t, look, true)
			w.expectMember(t, twin, false)
			w.post(t, admin, testkit.MustJSON(t, map[string]any{"organization_id": w.acme.ID, "email": twin.Email})).
				Expect(t, 400, `{"email": ["This email already has a pending invitation to this organization."]}`)
			w.post(t, admin, testkit.MustJSON(t, map[string]any{"organization_id": w.acme.ID,
				"email": asciiUpper(look.Email)})).Expect(t, 400, `{"email": ["A member with this email already exists."]}`)
			want = w.saved(w.before(t, toTwin))
			want.Status = 2
			w.patch(t, w.token(t, twin), toTwin, `{"status": 2}`).Expect(t, 200, want.JSON(t))
			again := create(twin.Email)
			want = w.saved(w.before(t, again))
			want.Status = 1
			w.patch(t, w.token(t, twin), again, `{"status": 1}`).Expect(t, 200, want.JSON(t))
			w.expectMember(t, twin, true)
			expectOrgs(t, w.loginOrganizations(t, look), orgsJSON(orgEntry(w.acme, "0")))
			expectOrgs(t, w.loginOrganizations(t, twin), orgsJSON(orgEntry(w.acme, "0")))
		})
	}
}

// page is the body of a list's only page, holding exactly shapes.
func page(shapes ...shape) string {
	if shapes == nil {
		shapes = []shape{}
	}
	b, err := json.Marshal(map[string]any{"count": len(shapes), "next": nil, "previous": nil, "results": shapes})
	if err != nil {
		panic(err)
	}
	return string(b)
}

// asciiUpper upper-cases the ASCII letters of s and nothing else.
func asciiUpper(s string) string {
	return strings.Map(func(r rune) rune {
		if 'a' <= r && r <= 'z' {
			return r - 'a' + 'A'
		}
		return r
	}, s)
}
