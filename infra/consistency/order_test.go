package consistency_test

import (
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/reportingplatform/api/infra/testkit"
	"github.com/reportingplatform/api/infra/wiring"
	"github.com/reportingplatform/api/shared/config"
)

// TestOrderOfChecksOnEveryPath is SPEC §1's order of checks through the gateway, on every path of
// template.yaml (derived as TestRoutesAgree derives them): a method the path does not serve gets DRF's
// 401 without credentials, or with a token that does not authenticate, on a path that needs a token,
// and the 405 with Allow only once the caller is authenticated; a path that needs none (login, the
// schema, the docs) answers the 405 to anyone.
func TestOrderOfChecksOnEveryPath(t *testing.T) {
	db := testkit.NewDB(t)
	staff := db.Token(t, db.User(t, testkit.NewUser{Staff: true}), time.Hour)
	handlers := map[string]http.Handler{}
	for fn, h := range wiring.Handlers(db.Store, testkit.Log(t),
		config.Config{TokenTTL: time.Hour, InvitationTTL: time.Hour}, time.Now) {
		handlers[fn] = h
	}
	gw := testkit.Gateway(t, handlers)
	id := uuid.NewString()
	seen := map[string]bool{}
	for _, r := range servedRoutes(t) {
		if seen[r.pattern] {
			continue
		}
		seen[r.pattern] = true
		path := strings.ReplaceAll(strings.ReplaceAll(r.pattern, "{id}", id), "{asset}", "docs.js")
		allow := slices.Clone(r.served)
		if slices.Contains(allow, "GET") {
			allow = append(allow, "HEAD")
		}
		slices.Sort(allow)
		for _, m := range []string{"DELETE", "PUT", "POST", "PATCH", "GET"} {
			if slices.Contains(r.served, m) {
				continue
			}
			notAllowed := `{"detail": "Method \"` + m + `\" not allowed."}`
			t.Run(m+" "+r.pattern, func(t *testing.T) {
				anonymous := testkit.Do(t, gw, testkit.Request{Method: m, Path: path})
				forged := testkit.Do(t, gw, testkit.Request{Method: m, Path: path, Token: newToken(t, uuid.NewString())})
				if r.open {
					expectNotAllowed(t, anonymous, notAllowed, allow)
					expectNotAllowed(t, forged, notAllowed, allow)
					return
				}
				anonymous.Expect(t, 401, `{"detail": "Authentication credentials were not provided."}`)
				forged.Expect(t, 401, `{"detail": "Invalid token."}`)
				for _, resp := range []testkit.Response{anonymous, forged} {
					if resp.Header.Get("Allow") != "" || resp.Header.Get("WWW-Authenticate") != `Bearer realm="api"` {
						t.Errorf("401 with Allow %q, WWW-Authenticate %q", resp.Header.Get("Allow"), resp.Header.Get("WWW-Authenticate"))
					}
				}
				expectNotAllowed(t, testkit.Do(t, gw, testkit.Request{Method: m, Path: path, Token: staff}), notAllowed, allow)
			})
			break
		}
	}
}

func expectNotAllowed(t *testing.T, resp testkit.Response, body string, allow []string) {
	t.Helper()
	resp.Expect(t, 405, body)
	if got := resp.Header.Get("Allow"); got != strings.Join(allow, ", ") {
		t.Errorf("Allow %q, want %q", got, strings.Join(allow, ", "))
	}
}
