package bench_test

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/reportingplatform/api/infra/routes"
	"github.com/reportingplatform/api/infra/testkit"
)

// operations are the rows of BenchmarkOperations, each group's baseline first: the DynamoDB-bound
// operations and the password-bound ones (hashRows reads the latter by position). A route of
// infra/routes that calls the store and that no row below names gets a row of its sample, among the
// DynamoDB-bound ones (sampled).
func (w *world) operations() (store, hashed []*operation) {
	store = []*operation{w.getItem(), w.getInvitation(), w.patchInvitation(), w.list(false), w.list(true),
		w.getComment(false), w.getComment(true), w.putComment(), w.patchComment(), w.preflight(),
		w.createComment(), w.deleteComment(), w.listInvitations(), w.listAllInvitations(), w.createInvitation(),
		w.deleteInvitation(), w.logout()}
	hashed = append([]*operation{w.hash(), w.login(), w.createUser()}, w.failedLogins()...)
	for _, r := range routes.All {
		named := slices.ContainsFunc(append(slices.Clone(store), hashed...), func(op *operation) bool {
			return op.route == r.Name()
		})
		if !r.NoStore && !named {
			store = append(store, w.sampled(r))
		}
	}
	return store, hashed
}

// sampled is a row of r's sample, on Acme's objects, as the caller class it names (staff, or alice as
// the administrator), what it makes new made through the API before the clock starts.
func (w *world) sampled(r routes.Route) *operation {
	made := func(create *operation) string {
		post := create.request()
		resp := testkit.Do(w.tb, w.gw, post)
		id, _ := resp.Object(w.tb)["id"].(string)
		if resp.Status != create.status || id == "" {
			w.tb.Fatalf("%s %s: %d %s", post.Method, post.Path, resp.Status, resp.Body)
		}
		return id
	}
	value := func(name string) (string, bool) {
		v, ok := map[string]string{"organization": w.acme, "report": w.object, "comment": w.edited,
			"invitation": w.invitation, "staff password": testkit.DefaultPassword}[name]
		switch name {
		case "n":
			return fmt.Sprint(w.next()), true
		case "staff email":
			return w.staff.Email, true
		case "new comment":
			return made(w.createComment()), true
		case "new invitation":
			return made(w.createInvitation()), true
		}
		return v, ok
	}
	token := func(caller string) string {
		if caller == "staff" {
			return w.staffToken
		}
		return w.aliceToken
	}
	return &operation{name: r.Name(), route: r.Name(), status: r.Sample.Status, request: func() testkit.Request {
		req, err := r.In(routes.World{Value: value, Token: token, NewToken: func(string) string {
			return w.db.Token(w.tb, w.staff, time.Hour)
		}})
		if err != nil {
			w.tb.Fatal(err)
		}
		return req
	}}
}

// TestEveryRouteIsBenched fails for an operation of the benchmark naming a route infra/routes does not
// list, or one that calls no store (whose time neither target, round trips × GetItem or a hash, applies
// to); a route that calls the store and no operation names is benched as its sample (operations). The
// benchmark's warm-ups check that each operation's requests go to the route it names (routeOf).
func TestEveryRouteIsBenched(t *testing.T) {
	store, hashed := (&world{}).operations()
	var named []string
	for _, op := range append(store, hashed...) {
		if op.route == "" {
			continue
		}
		named = append(named, op.route)
		if r, ok := routes.Lookup(op.route); ok && r.NoStore {
			t.Errorf("the benchmark names %s, which infra/routes says never calls the store", op.route)
		}
	}
	for _, name := range routes.Unknown(named) {
		t.Errorf("the benchmark names %s, which infra/routes does not list", name)
	}
}

// routeOf tells whether req goes to op's route; a request of no route (a preflight) has none.
func routeOf(op *operation, req testkit.Request) bool {
	if r, ok := routes.Of(req.Method, req.Path); ok {
		return r.Name() == op.route
	}
	return op.route == ""
}
