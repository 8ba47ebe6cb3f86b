package bench_test

import (
	"strings"
	"testing"

	"github.com/reportingplatform/api/infra/testkit"
	"github.com/reportingplatform/api/infra/wiring"
)

// operations are the rows of BenchmarkOperations, each group's baseline first: the DynamoDB-bound
// operations and the password-bound ones (hashRows reads the latter by position).
func (w *world) operations() (store, hashed []*operation) {
	store = []*operation{w.getItem(), w.getInvitation(), w.patchInvitation(), w.list(false), w.list(true),
		w.getComment(false), w.getComment(true), w.putComment(), w.patchComment(), w.preflight(),
		w.createComment(), w.deleteComment(), w.listInvitations(), w.listAllInvitations(), w.createInvitation(),
		w.deleteInvitation(), w.logout()}
	hashed = append([]*operation{w.hash(), w.login(), w.createUser()}, w.failedLogins()...)
	return store, hashed
}

// unbenched are the routes BenchmarkOperations has no row for: the docs function's, which serve files
// read once and call no store, so that neither target (round trips × GetItem, or a hash) applies.
var unbenched = []string{"GET /api/docs/", "GET /api/docs/{asset}", "GET /api/schema/"}

// TestEveryRouteIsBenched fails for a route a function serves that no operation of the benchmark
// requests and unbenched does not list, and for a route named by either that no function serves: a new
// route gets its row, or a reason to have none, before the tests pass. The benchmark's warm-ups check
// that each operation's requests go to the route it names (routeOf).
func TestEveryRouteIsBenched(t *testing.T) {
	store, hashed := (&world{}).operations()
	listed := append([]string(nil), unbenched...)
	for _, op := range append(store, hashed...) {
		if op.route != "" {
			listed = append(listed, op.route)
		}
	}
	missing, stale := wiring.Unlisted(listed)
	for _, name := range missing {
		t.Errorf("%s is served, and neither an operation of the benchmark nor unbenched names it", name)
	}
	for _, name := range stale {
		t.Errorf("the benchmark names %s, which no function serves", name)
	}
}

// routeOf tells whether req goes to op's route; a request of no route (a preflight) has none.
func routeOf(op *operation, req testkit.Request) bool {
	path, _, _ := strings.Cut(req.Path, "?")
	for _, r := range wiring.Routes() {
		if r.Matches(req.Method, path) {
			return r.Name() == op.route
		}
	}
	return op.route == ""
}
