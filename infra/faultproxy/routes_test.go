package faultproxy_test

import (
	"fmt"
	"maps"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/reportingplatform/api/infra/testkit"
	"github.com/reportingplatform/api/infra/wiring"
)

// operation is a route the API serves, by its wiring.Route Name, with a request of it that succeeds
// with status on the demo table when the store works. request makes first, past any fault, what the
// request needs (a comment to delete, a token to log out), and takes a number never used before for
// the inputs that must differ from run to run (a new email).
type operation struct {
	name    string
	status  int
	hashes  bool // it runs argon2id (see hashing)
	request func(t *testing.T, a *api, n int64) testkit.Request
}

// routes has an operation for every route of the functions that calls the store, by route name.
var routes = map[string]operation{
	"POST /api/v1/auth/login": {status: 201, hashes: true, request: func(*testing.T, *api, int64) testkit.Request {
		return testkit.Request{Method: "POST", Path: "/api/v1/auth/login",
			Body: `{"username": "admin@example.com", "password": "demo-admin-2026"}`}
	}},
	"POST /api/v1/auth/logout": {status: 204, request: func(t *testing.T, a *api, _ int64) testkit.Request {
		return testkit.Request{Method: "POST", Path: "/api/v1/auth/logout", Token: a.tokenOf(t, "admin@example.com")}
	}},
	"POST /api/v1/users/": {status: 201, hashes: true, request: func(_ *testing.T, a *api, n int64) testkit.Request {
		return testkit.Request{Method: "POST", Path: "/api/v1/users/", Token: a.staff, Body: fmt.Sprintf(
			`{"email": "fault-%d@example.com", "password": "Vq8#mLp2zR", "confirm_password": "Vq8#mLp2zR"}`, n)}
	}},
	"GET /api/v1/comments/": {status: 200, request: func(_ *testing.T, a *api, _ int64) testkit.Request {
		return testkit.Request{Method: "GET", Path: "/api/v1/comments/?content_type=report&object_id=" + demoReport,
			Token: a.staff}
	}},
	"POST /api/v1/comments/": {status: 201, request: func(_ *testing.T, a *api, n int64) testkit.Request {
		return newComment(a, n)
	}},
	"GET /api/v1/comments/{id}/": {status: 200, request: func(_ *testing.T, a *api, _ int64) testkit.Request {
		return testkit.Request{Method: "GET", Path: "/api/v1/comments/" + demoComment + "/", Token: a.staff}
	}},
	"PUT /api/v1/comments/{id}/": {status: 200, request: func(_ *testing.T, a *api, n int64) testkit.Request {
		return testkit.Request{Method: "PUT", Path: "/api/v1/comments/" + demoComment + "/", Token: a.staff,
			Body: fmt.Sprintf(
				`{"content_type": "report", "object_id": "%s", "text": "put %d"}`, demoReport, n)}
	}},
	"PATCH /api/v1/comments/{id}/": {status: 200, request: func(_ *testing.T, a *api, n int64) testkit.Request {
		return testkit.Request{Method: "PATCH", Path: "/api/v1/comments/" + demoComment + "/", Token: a.staff,
			Body: fmt.Sprintf(`{"text": "patch %d"}`, n)}
	}},
	"DELETE /api/v1/comments/{id}/": {status: 204, request: func(t *testing.T, a *api, n int64) testkit.Request {
		id := a.create(t, func() testkit.Request { return newComment(a, fresh.Add(1)) })
		return testkit.Request{Method: "DELETE", Path: "/api/v1/comments/" + id + "/", Token: a.staff}
	}},
	"GET /api/v1/organization-invitations/": {status: 200, request: func(_ *testing.T, a *api, _ int64) testkit.Request {
		return testkit.Request{Method: "GET", Path: "/api/v1/organization-invitations/", Token: a.staff}
	}},
	"POST /api/v1/organization-invitations/": {status: 201, request: func(t *testing.T, a *api, n int64) testkit.Request {
		// The inviter's first create starts its rate window, a later one counts in it: one made first
		// makes every run a later one, so that runs with and without a fault change the table alike.
		a.create(t, func() testkit.Request { return newInvitation(t, a, fresh.Add(1)) })
		return newInvitation(t, a, n)
	}},
	"GET /api/v1/organization-invitations/{id}/": {status: 200,
		request: func(_ *testing.T, a *api, _ int64) testkit.Request {
			return testkit.Request{Method: "GET", Path: "/api/v1/organization-invitations/" + demoInvitation + "/",
				Token: a.staff}
		}},
	"PATCH /api/v1/organization-invitations/{id}/": {status: 200,
		request: func(_ *testing.T, a *api, n int64) testkit.Request {
			return testkit.Request{Method: "PATCH", Path: "/api/v1/organization-invitations/" + demoInvitation + "/",
				Token: a.staff, Body: fmt.Sprintf(`{"first_name": "Alan %d"}`, n)}
		}},
	"DELETE /api/v1/organization-invitations/{id}/": {status: 204,
		request: func(t *testing.T, a *api, n int64) testkit.Request {
			id := a.create(t, func() testkit.Request { return newInvitation(t, a, fresh.Add(1)) })
			return testkit.Request{Method: "DELETE", Path: "/api/v1/organization-invitations/" + id + "/", Token: a.staff}
		}},
}

// storeless are the routes that never call the store (SPEC §10's schema and docs): no store fault
// reaches them.
var storeless = []string{"GET /api/docs/", "GET /api/docs/{asset}", "GET /api/schema/"}

// operations are those of routes, in wiring.Routes' order. It fails t for a served route that neither
// routes nor storeless lists, and for an entry that no function serves: a new route is tested under
// every fault, or said to need no store, before the tests pass.
func operations(t *testing.T) []operation {
	t.Helper()
	listed := slices.Concat(slices.Collect(maps.Keys(routes)), storeless)
	missing, stale := wiring.Unlisted(listed)
	for _, name := range missing {
		t.Errorf("%s is served, and neither routes (a request of it) nor storeless lists it", name)
	}
	for _, name := range stale {
		t.Errorf("routes or storeless lists %s, which no function serves", name)
	}
	var ops []operation
	for _, r := range wiring.Routes() {
		if op, ok := routes[r.Name()]; ok {
			op.name = r.Name()
			ops = append(ops, op)
		}
	}
	return ops
}

// The demo organization of which grace@example.com is an administrator.
const demoOrganization = "1463dfec-18c0-58cd-9c54-03d6320cc136"

func newComment(a *api, n int64) testkit.Request {
	return testkit.Request{Method: "POST", Path: "/api/v1/comments/", Token: a.staff, Body: fmt.Sprintf(
		`{"content_type": "report", "object_id": "%s", "text": "lost answer %d"}`, demoReport, n)}
}

// newInvitation is an invitation into the demo organization by its administrator.
func newInvitation(t *testing.T, a *api, n int64) testkit.Request {
	return testkit.Request{Method: "POST", Path: "/api/v1/organization-invitations/",
		Token: a.tokenOf(t, "grace@example.com"),
		Body: fmt.Sprintf(`{"organization_id": "%s", "email": "lost-%d@example.com", "first_name": "Lost %d"}`,
			demoOrganization, n, n)}
}

// tokenOf stores a new token of the user of email, straight into the table.
func (a *api) tokenOf(t *testing.T, email string) string {
	t.Helper()
	u, err := a.db.UserByEmail(t, email)
	if err != nil {
		t.Fatal(err)
	}
	return a.db.Token(t, u, time.Hour)
}

// create sends a create that build makes, with the store working, and returns the id it answered; a
// machine too slow for the production attempt timeout gets it sent again (expect).
func (a *api) create(t *testing.T, build func() testkit.Request) string {
	t.Helper()
	defer a.liftBudget()()
	var resp testkit.Response
	var req testkit.Request
	if _, ok := a.working(t, "a create", http.StatusCreated, func() (testkit.Response, time.Duration) {
		req = build()
		resp = testkit.Do(t, a.gw, req)
		return resp, 0
	}); !ok {
		t.FailNow()
	}
	id, _ := resp.Object(t)["id"].(string)
	if id == "" {
		t.Fatalf("%s %s: %d %s, want 201 with an id", req.Method, req.Path, resp.Status, resp.Body)
	}
	return id
}
