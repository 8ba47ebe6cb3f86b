package auth_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/reportingplatform/api/infra/testkit"
)

// Login answers with the user as it is: it reads the user while the password is hashed. These tests
// hold it to every write of a user's profile (the loader's; the API's own, accepting an invitation, is
// held the same way in functions/invitations: TestAcceptingMakesTheInviteeAMember logs in before and
// after), in the same three round trips whatever changed.

type seen struct {
	organizations, firstName string
	roundTrips               int
}

// loginSeen logs email in with the default password and returns what the response shows of the
// profile, and the sequential DynamoDB round trips the login took.
func loginSeen(t *testing.T, db *testkit.DB, gw http.Handler, email string) seen {
	t.Helper()
	db.Calls.Reset()
	resp := login(t, gw, email, testkit.DefaultPassword)
	if resp.Status != http.StatusCreated {
		t.Fatalf("login: %d %s", resp.Status, resp.Body)
	}
	body := resp.Object(t)
	orgs, _ := body["organizations"].(string)
	first, _ := body["first_name"].(string)
	return seen{organizations: orgs, firstName: first, roundTrips: db.Calls.Sequential()}
}

func TestLoginSeesEveryProfileWrite(t *testing.T) {
	db, gw := setup(t)
	userID, email := uuid.NewString(), "copy-"+uuid.NewString()[:8]+"@example.com"
	acme, globex := uuid.NewString(), uuid.NewString()
	memberID := uuid.NewString()
	user := func(first string) map[string]any {
		return map[string]any{"id": userID, "email": email, "password": testkit.DefaultPassword, "first_name": first,
			"last_name": "Copy", "is_staff": false, "is_superuser": false, "is_active": true}
	}
	load := func(doc map[string]any) { t.Helper(); db.Load(t, doc, time.Now(), time.Hour) }
	member := func(id, org string, role int) map[string]any {
		return map[string]any{"id": id, "organization_id": org, "user_id": userID, "role": role}
	}
	org := func(id, name string) map[string]any { return map[string]any{"id": id, "name": name} }

	load(map[string]any{
		"users":         []any{user("Ada")},
		"organizations": []any{org(acme, "Acme"), org(globex, "Globex")},
		"members":       []any{member(memberID, acme, 2)},
	})
	acmeEntry := `{"id": "` + acme + `", "name": "Acme", "role": 2}`
	steps := []struct {
		name  string
		write func()
		want  seen
	}{
		{"loaded", func() {}, seen{"[" + acmeEntry + "]", "Ada", 3}},
		{"organization renamed", func() { load(map[string]any{"organizations": []any{org(acme, "Acme Two")}}) },
			seen{`[{"id": "` + acme + `", "name": "Acme Two", "role": 2}]`, "Ada", 3}},
		{"second membership", func() { load(map[string]any{"members": []any{member(uuid.NewString(), globex, 0)}}) },
			seen{`[{"id": "` + acme + `", "name": "Acme Two", "role": 2}, {"id": "` + globex +
				`", "name": "Globex", "role": 0}]`, "Ada", 3}},
		{"role changed", func() { load(map[string]any{"members": []any{member(memberID, acme, 1)}}) },
			seen{`[{"id": "` + acme + `", "name": "Acme Two", "role": 1}, {"id": "` + globex +
				`", "name": "Globex", "role": 0}]`, "Ada", 3}},
		{"user rewritten", func() { load(map[string]any{"users": []any{user("Grace")}}) },
			seen{`[{"id": "` + acme + `", "name": "Acme Two", "role": 1}, {"id": "` + globex +
				`", "name": "Globex", "role": 0}]`, "Grace", 3}},
	}
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			st.write()
			db.Calls.SimulateLatency(testkit.BudgetLatency)
			got := loginSeen(t, db, gw, email)
			if !testkit.JSONEqual([]byte(got.organizations), []byte(st.want.organizations)) ||
				got.firstName != st.want.firstName {
				t.Fatalf("login shows organizations %s, first_name %q; want %s, %q", got.organizations, got.firstName,
					st.want.organizations, st.want.firstName)
			}
			if got.roundTrips != st.want.roundTrips {
				t.Fatalf("login took %d sequential round trips (%v), want %d", got.roundTrips, db.Calls, st.want.roundTrips)
			}
		})
	}
}
