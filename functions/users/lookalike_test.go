package users_test

import (
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/reportingplatform/api/infra/testkit"
)

const refused = `{"non_field_errors": ["Unable to log in with provided credentials."]}`

// lookAlikes are addresses that Unicode case mapping or folding takes onto an ASCII twin: the Kelvin
// sign (lower-cases to "k"), the dotted capital I (lower-cases to "i" in Go) and the long s (folds with
// "s"). SPEC §2 and §4 fold ASCII letters only, so each is an address of its own.
var lookAlikes = []struct{ name, unicode, ascii string }{
	{"Kelvin sign", "\u212Aate", "kate"},
	{"dotted capital I", "v\u0130ctim", "victim"},
	{"long s", "\u017Fam", "sam"},
}

// TestLookAlikeEmailsAreOtherAccounts: an account whose address has a look-alike letter and the account
// of its ASCII twin are two accounts, whichever is created first; each logs in as itself and only
// itself, also with the ASCII letters in another case; a second account in another ASCII case is still
// refused.
func TestLookAlikeEmailsAreOtherAccounts(t *testing.T) {
	f := setup(t)
	const taken = `{"email": ["user with this email already exists."]}`
	for _, la := range lookAlikes {
		for _, unicodeFirst := range []bool{true, false} {
			name := la.name + ", the ASCII twin first"
			if unicodeFirst {
				name = la.name + ", the look-alike first"
			}
			t.Run(name, func(t *testing.T) {
				r := "-" + uuid.NewString()[:8] + "@example.com"
				type account struct{ email, password, id string }
				look := &account{email: la.unicode + r, password: "Look-Alike-" + uuid.NewString()[:6]}
				twin := &account{email: la.ascii + r, password: "Ascii-Twin-" + uuid.NewString()[:6]}
				order := []*account{twin, look}
				if unicodeFirst {
					order = []*account{look, twin}
				}
				for _, a := range order {
					resp := f.create(t, f.staff, testkit.MustJSON(t, map[string]string{"email": a.email,
						"password": a.password, "confirm_password": a.password}))
					a.id, _ = resp.Object(t)["id"].(string)
					resp.Expect(t, 201, testkit.MustJSON(t, map[string]any{"id": a.id, "email": a.email,
						"first_name": "", "last_name": ""}))
				}
				if look.id == twin.id {
					t.Fatalf("one account for %q and %q", look.email, twin.email)
				}
				for _, a := range []*account{look, twin} {
					other := twin
					if a == twin {
						other = look
					}
					upper := asciiUpper(a.email)
					f.logsIn(t, a.email, a.password, a.id, a.email)
					f.logsIn(t, upper, a.password, a.id, a.email) // ASCII letters still fold
					f.login(t, a.email, other.password).Expect(t, 400, refused)
					f.login(t, upper, other.password).Expect(t, 400, refused)
					f.create(t, f.staff, testkit.MustJSON(t, map[string]string{"email": upper,
						"password": a.password, "confirm_password": a.password})).Expect(t, 400, taken)
				}
			})
		}
	}
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

func (f fixture) login(t *testing.T, username, password string) testkit.Response {
	t.Helper()
	return testkit.Do(t, f.gw, testkit.Request{Method: "POST", Path: "/api/v1/auth/login",
		Body: testkit.MustJSON(t, map[string]string{"username": username, "password": password})})
}

// logsIn asserts that username and password log into the account id, whose address is email.
func (f fixture) logsIn(t *testing.T, username, password, id, email string) {
	t.Helper()
	resp := f.login(t, username, password)
	if got := resp.Object(t); resp.Status != 201 || got["id"] != id || got["email"] != email {
		t.Fatalf("login as %q: %d %s, want 201 as %s (%s)", username, resp.Status, resp.Body, id, email)
	}
}
