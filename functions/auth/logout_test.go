package auth_test

import (
	"testing"
	"time"

	"github.com/reportingplatform/api/infra/testkit"
)

// TestLogoutRevokesOnlyItsToken: SPEC §10. The token logged out with no longer authenticates (not even
// a second logout); the user's other token still does.
func TestLogoutRevokesOnlyItsToken(t *testing.T) {
	db, gw := setup(t)
	u := db.User(t, testkit.NewUser{Email: "ada@example.com"})
	first := login(t, gw, "ada@example.com", testkit.DefaultPassword).Object(t)["token"].(string)
	second := login(t, gw, "ada@example.com", testkit.DefaultPassword).Object(t)["token"].(string)
	db.Calls.Reset()
	db.Calls.SimulateLatency(testkit.BudgetLatency)
	resp := testkit.Do(t, gw, testkit.Request{Method: "POST", Path: "/api/v1/auth/logout", Token: first})
	if resp.Status != 204 || len(resp.Body) != 0 {
		t.Fatalf("logout: %d %q", resp.Status, resp.Body)
	}
	if got := db.Calls.Sequential(); got != 2 {
		t.Fatalf("%d sequential calls %v, want 2 (the session, the delete)", got, db.Calls)
	}
	again := testkit.Do(t, gw, testkit.Request{Method: "POST", Path: "/api/v1/auth/logout/", Token: first})
	again.Expect(t, 401, `{"detail": "Invalid token."}`)
	if again.Header.Get("WWW-Authenticate") != `Bearer realm="api"` {
		t.Fatalf("WWW-Authenticate %q", again.Header.Get("WWW-Authenticate"))
	}
	if resp := testkit.Do(t, gw,
		testkit.Request{Method: "POST", Path: "/api/v1/auth/logout", Token: second}); resp.Status != 204 {
		t.Fatalf("the other token: %d %s", resp.Status, resp.Body)
	}
	// A token made outside login (the loader's kind) is revoked the same way.
	third := db.Token(t, u, time.Hour)
	if resp := testkit.Do(t, gw,
		testkit.Request{Method: "POST", Path: "/api/v1/auth/logout", Token: third,
			Body: `{"ignored": true}`}); resp.Status != 204 {
		t.Fatalf("with a body: %d %s", resp.Status, resp.Body)
	}
}

func TestLogoutRefusals(t *testing.T) {
	db, gw := setup(t)
	u := db.User(t, testkit.NewUser{Email: "ada@example.com"})
	token := db.Token(t, u, time.Hour)
	for _, tc := range []struct {
		name, method, header string
		status               int
		want                 string
	}{
		{"no credentials", "POST", "", 401, `{"detail": "Authentication credentials were not provided."}`},
		{"another scheme", "POST", "Basic YWRhOnB3", 401, `{"detail": "Authentication credentials were not provided."}`},
		{"unknown token", "POST", "Bearer " + token[:len(token)-4] + "AAAA", 401, `{"detail": "Invalid token."}`},
		{"GET", "GET", "Bearer " + token, 405, `{"detail": "Method \"GET\" not allowed."}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req := testkit.Request{Method: tc.method, Path: "/api/v1/auth/logout"}
			if tc.header != "" {
				req.Header = map[string]string{"Authorization": tc.header}
			}
			testkit.Do(t, gw, req).Expect(t, tc.status, tc.want)
		})
	}
	// The token refused above is still valid: nothing was revoked by a refusal.
	if resp := testkit.Do(t, gw,
		testkit.Request{Method: "POST", Path: "/api/v1/auth/logout", Token: token}); resp.Status != 204 {
		t.Fatalf("%d %s", resp.Status, resp.Body)
	}
}
