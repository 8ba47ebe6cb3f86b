package faultproxy_test

import (
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/reportingplatform/api/infra/faultproxy"
	"github.com/reportingplatform/api/infra/testkit"
)

// creates are the routes that take an Idempotency-Key (SPEC §9), each with a request of it on the demo
// table and the kind of item it creates.
var creates = []struct {
	route string
	kind  string
}{
	{"POST /api/v1/users/", "USER"},
	{"POST /api/v1/comments/", "COMMENT"},
	{"POST /api/v1/organization-invitations/", "INVITATION"},
}

// TestARetryWithTheKeyAfterALostAnswerWritesOnce: SPEC §9's two rows together. A create whose first
// copy lands while its answer is late or lost answers 201 (its copy sent again with the token settles
// it), and the client's retry with the same Idempotency-Key replays it; when every copy's answer is lost,
// the create answers the 503 that says it may have been saved, and the retry with the key gets the 201
// of that write; a create that never reached DynamoDB answers the same 503 and its retry creates it.
// Each way one item is written.
func TestARetryWithTheKeyAfterALostAnswerWritesOnce(t *testing.T) {
	demo := newDemo(t)
	g := demo.groups(t)
	defer g.wait()
	for _, c := range creates {
		route := byRoute[c.route]
		for _, tc := range []struct {
			name  string
			fault faultproxy.Fault
		}{
			{"late answer", faultproxy.Fault{Mode: faultproxy.LateAnswer, Times: 1}},
			{"lost answer", faultproxy.Fault{Mode: faultproxy.LostAnswer, Times: 1}},
			{"every answer lost", faultproxy.Fault{Mode: faultproxy.LostAnswer}},
			{"dropped before DynamoDB", faultproxy.Fault{Mode: faultproxy.Drop}},
		} {
			g.add(c.route+"/"+tc.name, func(t *testing.T, a *api) {
				a.setBudget(testkit.TestBudget) // users' hash may take the budget on a busy machine
				fault := tc.fault
				fault.Ops = []string{"TransactWriteItems"}
				want := http.StatusCreated
				if fault.Times != 1 {
					want = http.StatusServiceUnavailable
				}
				var (
					req    testkit.Request
					first  testkit.Response
					before int
				)
				// A new request each time the machine outlasts the attempt timeout (expect).
				if _, ok := a.working(t, "under "+tc.name, want, func() (testkit.Response, time.Duration) {
					req = route.request(t, a, fresh.Add(1))
					req.Header = map[string]string{"Idempotency-Key": fmt.Sprintf("retry-%d", fresh.Add(1))}
					before = len(a.db.Items(t, c.kind+"#"))
					a.proxy.Set(fault)
					defer a.proxy.Clear()
					first = testkit.Do(t, a.gw, req)
					return first, 0
				}); !ok {
					t.FailNow()
				}
				if fault.Times != 1 {
					first.Expect(t, http.StatusServiceUnavailable, openBody)
				}
				var retry testkit.Response
				if _, ok := a.working(t, "the retry with the key", http.StatusCreated, func() (testkit.Response, time.Duration) {
					retry = testkit.Do(t, a.gw, req)
					return retry, 0
				}); !ok {
					t.FailNow()
				}
				id, _ := retry.Object(t)["id"].(string)
				if id == "" {
					t.Fatalf("the retry with the key: %d %s, want 201 with an id", retry.Status, retry.Body)
				}
				if first.Status == http.StatusCreated {
					if firstID, _ := first.Object(t)["id"].(string); firstID != id {
						t.Errorf("the retry answered id %s, the create %s", id, firstID)
					}
				}
				after := a.db.Items(t, c.kind+"#")
				if len(after) != before+1 {
					t.Errorf("%d %s items after the create and its retry, want %d", len(after), c.kind, before+1)
				}
				if !slices.ContainsFunc(slices.Collect(maps.Keys(after)), func(k string) bool { return strings.Contains(k, id) }) {
					t.Errorf("the retry answered %s, which is not in the table", id)
				}
			})
		}
	}
}
