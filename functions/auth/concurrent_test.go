package auth_test

import (
	"encoding/json"
	"net/http"
	"sync"
	"testing"

	"github.com/reportingplatform/api/infra/testkit"
	"github.com/reportingplatform/api/shared/domain"
)

// TestConcurrentLoginsOfOneUser: parallel workers sharing one account all log in, each with its own
// token. Every login writes the user's last_login; DynamoDB Local serialises the transactions, so the
// conflicts DynamoDB itself would report are injected instead by infra/faultproxy
// (TestWriteConflictsAreRetried). As many as the email's limit: a login's password is checked only
// once the login holds a place in the email's window (SPEC §9), so more at once would be throttled
// however right their passwords.
func TestConcurrentLoginsOfOneUser(t *testing.T) {
	db, gw := setup(t)
	u := db.User(t, testkit.NewUser{})
	const n = domain.LoginFailuresPerEmail
	statuses := make([]int, n)
	bodies := make([]string, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			resp := login(testkit.InGoroutine(t), gw, u.Email, testkit.DefaultPassword)
			statuses[i], bodies[i] = resp.Status, string(resp.Body)
		}()
	}
	wg.Wait()
	tokens := map[string]bool{}
	for i := range n {
		if statuses[i] != http.StatusCreated {
			t.Errorf("login %d of %d at once: %d %s", i+1, n, statuses[i], bodies[i])
			continue
		}
		tokens[tokenOf(t, bodies[i])] = true
	}
	if len(tokens) != n && !t.Failed() {
		t.Errorf("%d logins gave %d distinct tokens", n, len(tokens))
	}
}

func tokenOf(t *testing.T, body string) string {
	t.Helper()
	var v struct {
		Token string `json:"token"`
	}
	if err := json.Unmarshal([]byte(body), &v); err != nil || v.Token == "" {
		t.Fatalf("no token in %s: %v", body, err)
	}
	return v.Token
}
