package faultproxy_test

import (
	"fmt"
	"maps"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/reportingplatform/api/infra/routes"
	"github.com/reportingplatform/api/infra/testkit"
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

// own are the operations, by route of infra/routes, that are not their route's sample on the demo
// data: what makes a request differ from the sample (a create first).
var own = map[string]operation{
	"POST /api/v1/organization-invitations/": {status: 201, request: func(t *testing.T, a *api, n int64) testkit.Request {
		// The inviter's first create starts its rate window, a later one counts in it: one made first
		// makes every run a later one, so that runs with and without a fault change the table alike.
		a.create(t, func() testkit.Request { return newInvitation(t, a, fresh.Add(1)) })
		return newInvitation(t, a, n)
	}},
}

// byRoute has an operation for every route of infra/routes that calls the store, by route name: its
// own, or its sample filled with the demo data, what it makes new made first past any fault.
var byRoute = func() map[string]operation {
	out := map[string]operation{}
	for _, r := range routes.All {
		if r.NoStore {
			continue
		}
		op, ok := own[r.Name()]
		if !ok {
			op = operation{status: r.Sample.Status, request: func(t *testing.T, a *api, n int64) testkit.Request {
				t.Helper()
				req, err := r.In(routes.World{Value: a.value(t, n), Token: func(caller string) string {
					if caller == "staff" {
						return a.staff
					}
					return a.tokenOf(t, routes.DemoUsers[caller])
				}, NewToken: func(caller string) string { return a.tokenOf(t, routes.DemoUsers[caller]) }})
				if err != nil {
					t.Fatal(err)
				}
				return req
			}}
		}
		op.name, op.hashes = r.Name(), r.Hashes
		out[r.Name()] = op
	}
	return out
}()

// value fills a sample's placeholders with the demo data, n, and what it makes new.
func (a *api) value(t *testing.T, n int64) func(string) (string, bool) {
	return func(name string) (string, bool) {
		switch name {
		case "n":
			return fmt.Sprint(n), true
		case "new comment":
			return a.create(t, func() testkit.Request { return newComment(a, n) }), true
		case "new invitation":
			return a.create(t, func() testkit.Request { return newInvitation(t, a, n) }), true
		}
		return routes.DemoValue(name)
	}
}

// operations are those of byRoute, in infra/routes' order. It fails t for an entry of own that names
// no route of infra/routes, or one that never calls the store.
func operations(t *testing.T) []operation {
	t.Helper()
	for _, name := range routes.Unknown(slices.Collect(maps.Keys(own))) {
		t.Errorf("own has an operation of %s, which infra/routes does not list", name)
	}
	var ops []operation
	for _, r := range routes.All {
		if op, ok := byRoute[r.Name()]; ok {
			ops = append(ops, op)
		} else if _, ok := own[r.Name()]; ok {
			t.Errorf("own has an operation of %s, which infra/routes says never calls the store", r.Name())
		}
	}
	return ops
}

func newComment(a *api, n int64) testkit.Request {
	return testkit.Request{Method: "POST", Path: "/api/v1/comments/", Token: a.staff, Body: fmt.Sprintf(
		`{"content_type": "report", "object_id": "%s", "text": "lost answer %d"}`, demoReport, n)}
}

// newInvitation is an invitation into the demo organization by its administrator.
func newInvitation(t *testing.T, a *api, n int64) testkit.Request {
	return testkit.Request{Method: "POST", Path: "/api/v1/organization-invitations/",
		Token: a.tokenOf(t, "grace@example.com"),
		Body: fmt.Sprintf(`{"organization_id": "%s", "email": "lost-%d@example.com", "first_name": "Lost %d"}`,
			routes.DemoOrganization, n, n)}
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
