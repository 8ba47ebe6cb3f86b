package faultproxy_test

import (
	"context"
	"fmt"
	"maps"
	"net/http"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/reportingplatform/api/infra/faultproxy"
	"github.com/reportingplatform/api/infra/routes"
	"github.com/reportingplatform/api/infra/testkit"
	"github.com/reportingplatform/api/infra/wiring"
	"github.com/reportingplatform/api/shared/config"
	"github.com/reportingplatform/api/shared/dynamo"
	"github.com/reportingplatform/api/shared/httpapi"
)

// Demo ids (infra/demo-data/demo.json).
const (
	demoReport     = routes.DemoReport
	demoInvitation = routes.DemoInvitation
	demoComment    = routes.DemoComment
)

// SPEC §9: what a request whose store fails gets.
const (
	unavailableBody = `{"detail": "Service temporarily unavailable, try again soon."}`
	openBody        = `{"detail": "Service temporarily unavailable; the change may have been saved. Retry with the ` +
		`same Idempotency-Key to find out."}`
)

// attemptsPerCall is the most attempts one DynamoDB call of a request may make: a write whose answer was
// lost goes out as twice a call's attempts of copies (the store's anotherCopy), each of which the SDK
// may try MaxAttempts times (throttling); a read makes MaxAttempts.
const attemptsPerCall = 2 * dynamo.MaxAttempts * dynamo.MaxAttempts

// SPEC §9's "503 within 6 s" is held without a stopwatch, which a busy machine breaks. Under a fault
// the store answers none of the faulted calls: a request that answers gave up on its own. It gives up
// when its budget ends (httpapi.RequestBudget on the request's context, under 6 s with its release
// budget: TestTimeLimitsNest) or sooner, after a bounded number of attempts (attemptsPerCall for each
// call the request makes), each of which dynamo.AttemptTimeout bounds. The tests below count the
// attempts; the time each fault's slowest answer took is logged, not judged.

// failing are the faults under which every operation must answer 503, the slowest first so that it
// starts first.
var failing = []faultproxy.Mode{
	faultproxy.Hang, faultproxy.Throttle, faultproxy.ProvisionedThroughput, faultproxy.InternalError,
	faultproxy.Unavailable, faultproxy.UnavailablePage, faultproxy.Drop,
}

// stepwise are the faults also run on one DynamoDB operation at a time, the others succeeding: a read
// failing after others succeeded, a write failing after the reads. One mode is enough for that: what
// the service does with a step that fails does not depend on how it failed, which the rest covers.
var stepwise = []faultproxy.Mode{faultproxy.InternalError}

// concurrently is how many groups of cases run at once: most of a case is waiting, on backoff or a hang.
const concurrently = 4

// hashing lets one request that runs argon2id run at a time. Under -race on two shared cores such a
// request takes much of the request budget (2 s, which counts CPU time too) on its own; several at
// once run past it, and would fail with a store that worked.
var hashing sync.Mutex

var fresh atomic.Int64

// TestEveryOperationSurvivesEveryStoreFault runs each operation under each fault of the whole store,
// and under each failing step of it on its own. Each must answer SPEC §9's 503 with Retry-After, after a
// bounded number of attempts (attemptsPerCall, above), leave every item of the table as it was, and once the fault is cleared the same handlers, with
// the same DynamoDB client, must serve the operation again at once. A request whose write was sent and
// never answered says that the change may have been saved (openBody); here none was, since a failing
// call never reaches DynamoDB. A login's attempt keeps its place in its failure windows, pending, when
// it could not give it back: it lapses (SPEC §9), so the windows are compared without it.
func TestEveryOperationSurvivesEveryStoreFault(t *testing.T) {
	demo := newDemo(t)
	var worst worstTimes
	g := demo.groups(t)
	defer func() { // also when discovering the steps fails the test: no t.Run may outlive it
		g.wait()
		worst.log(t)
	}()
	group := g.add
	ops := operations(t)
	for _, mode := range failing {
		group(mode.String(), func(t *testing.T, a *api) {
			for _, op := range ops {
				a.fail(t, op, faultproxy.Fault{Mode: mode}, &worst)
			}
		})
	}
	group("slow", func(t *testing.T, a *api) {
		for _, op := range ops {
			a.slow(t, op, 150*time.Millisecond, &worst)
		}
	})
	steps := demo.steps(t, ops)
	for _, mode := range stepwise {
		for _, op := range ops {
			if len(steps[op.name]) < 2 {
				continue // its one kind of call failing is the whole store failing, covered above
			}
			group(mode.String()+" one step/"+op.name, func(t *testing.T, a *api) {
				for _, step := range steps[op.name] {
					a.fail(t, op, faultproxy.Fault{Mode: mode, Ops: []string{step}}, &worst)
				}
			})
		}
	}
}

// demo is the demo fixture, loaded once (it hashes passwords) and copied into a table per group.
type demo struct {
	items []map[string]types.AttributeValue
	staff string // a token of admin@example.com, valid in every copy
}

func newDemo(t *testing.T) *demo {
	t.Helper()
	db := testkit.NewDB(t)
	db.LoadDemo(t, time.Now(), time.Hour)
	admin, err := db.UserByEmail(t, "admin@example.com")
	if err != nil {
		t.Fatal(err)
	}
	staff := db.Token(t, admin, time.Hour) // straight into the table: getting it does not need the proxy
	// The key that signs list continuations, as in a table that has served a list: made once, by the
	// table's first list, it is not a step of every list.
	if _, err := db.Store.ContinuationKey(t.Context()); err != nil {
		t.Fatal(err)
	}
	return &demo{items: scanRaw(t, db), staff: staff}
}

// api is the four functions on a copy of the demo table, reaching DynamoDB Local only through a fault
// proxy; db reaches it directly.
type api struct {
	gw      http.Handler
	proxy   *faultproxy.Proxy
	db      *testkit.DB
	staff   string
	routers []*httpapi.Router // behind gw, with the budget as deployed
	budget  time.Duration     // the routers' budget now
}

func (d *demo) api(t *testing.T) *api {
	t.Helper()
	db := d.copy(t)
	client, proxy := testkit.BehindProxy(t)
	log := testkit.Log(t) // searched for secrets when the tests end: failing requests log their errors
	cfg := config.Config{TokenTTL: time.Hour, InvitationTTL: time.Hour}
	handlers := map[string]http.Handler{}
	var routers []*httpapi.Router
	for id, h := range wiring.Handlers(dynamo.New(client, db.Table), log, cfg, time.Now) {
		handlers[id], routers = h, append(routers, h)
	}
	a := &api{gw: testkit.GatewayAsDeployed(t, handlers), proxy: proxy, db: db, staff: d.staff, routers: routers,
		budget: httpapi.RequestBudget}
	// Processes that have served a list: each function reads the key that signs list continuations
	// once, beside its first list's session, so that read is not a step of every list.
	for _, path := range []string{"/api/v1/comments/?content_type=report&object_id=" + demoReport,
		"/api/v1/organization-invitations/"} {
		if warm := testkit.Do(t, a.gw, testkit.Request{Method: "GET", Token: d.staff, Path: path}); warm.Status != 200 {
			t.Fatalf("the first list %s: %d %s", path, warm.Status, warm.Body)
		}
	}
	return a
}

// copying lets one group at a time create and fill its table: CreateTable with its indexes is slow on
// a busy DynamoDB Local, and testkit's client gives an attempt 800 ms before it retries, which then
// fails on the table the first attempt created.
var copying sync.Mutex

// copy creates a table and puts the demo's items in it, unchanged.
func (d *demo) copy(t *testing.T) *testkit.DB {
	t.Helper()
	copying.Lock()
	defer copying.Unlock()
	db := testkit.NewDB(t)
	for start := 0; start < len(d.items); start += 25 {
		var puts []types.WriteRequest
		for _, it := range d.items[start:min(start+25, len(d.items))] {
			puts = append(puts, types.WriteRequest{PutRequest: &types.PutRequest{Item: it}})
		}
		for pending := map[string][]types.WriteRequest{db.Table: puts}; len(pending) > 0; {
			out, err := db.Client.BatchWriteItem(context.Background(), &dynamodb.BatchWriteItemInput{RequestItems: pending})
			if err != nil {
				t.Fatalf("copy the demo: %v", err)
			}
			pending = out.UnprocessedItems
		}
	}
	return db
}

// steps runs every operation of ops once with the store working and returns, for each, the kinds of
// DynamoDB call its request makes, in the order they first arrive.
func (d *demo) steps(t *testing.T, ops []operation) map[string][]string {
	t.Helper()
	a := d.api(t)
	steps := map[string][]string{}
	for _, op := range ops {
		var before int
		if _, ok := a.expect(t, op, "with the store working", func() testkit.Request {
			req := op.request(t, a, fresh.Add(1))
			before = a.proxy.Requests()
			return req
		}); !ok {
			return nil // its calls would be those of a failure; the groups above still run
		}
		calls := a.proxy.Calls()[before:]
		for _, c := range calls {
			if !slices.Contains(steps[op.name], c) {
				steps[op.name] = append(steps[op.name], c)
			}
		}
		t.Logf("%s calls %v", op.name, calls)
	}
	return steps
}

// fail sends op under fault, then again once the fault is cleared.
func (a *api) fail(t *testing.T, op operation, fault faultproxy.Fault, worst *worstTimes) {
	t.Helper()
	req := op.request(t, a, fresh.Add(1))
	items := withoutPending(scan(t, a.db))
	faulted, calls := a.proxy.Faulted(), a.proxy.Requests()
	a.proxy.Set(fault)
	resp, elapsed := a.send(t, op, req)
	at := op.name + " under " + fault.Mode.String()
	if len(fault.Ops) > 0 {
		at += " of " + strings.Join(fault.Ops, ", ") + " only"
		worst.record(fault.Mode.String()+" one step", at, elapsed)
	} else {
		worst.record(fault.Mode.String(), at, elapsed)
	}

	want := unavailableBody
	if writeFailed(a.proxy.Calls()[calls:], fault) {
		want = openBody
	}
	if resp.Status != http.StatusServiceUnavailable || !testkit.JSONEqual(resp.Body, []byte(want)) {
		t.Errorf("%s: %d %s after %v, want 503 %s", at, resp.Status, resp.Body, elapsed.Round(time.Millisecond), want)
	}
	if s := resp.Header.Get("Retry-After"); !positiveInt(s) {
		t.Errorf("%s: Retry-After %q, want a positive whole number of seconds", at, s)
	}
	// SPEC §9 retries a failing store within the budget: the fault must have met more than one attempt.
	n := a.proxy.Faulted() - faulted
	if n < 2 {
		t.Errorf("%s: the failing call was tried %d time(s), want a retry", at, n)
	}
	if after := withoutPending(scan(t, a.db)); !reflect.DeepEqual(items, after) {
		t.Errorf("%s: answered %d but the table changed:\n%s", at, resp.Status, diff(items, after))
	}

	a.proxy.Clear()
	var before int
	if _, ok := a.expect(t, op, "after "+at, func() testkit.Request {
		req := op.request(t, a, fresh.Add(1))
		before = a.proxy.Requests()
		return req
	}); ok {
		// A failing request may make a call the working one does not: a lost write's read-back, a
		// login's give-back of its claim.
		if most := (a.proxy.Requests() - before + 2) * attemptsPerCall; n > most {
			t.Errorf("%s: the fault met %d attempts, want at most %d (%d per call of the request)", at, n, most,
				attemptsPerCall)
		}
	}
}

// writeFailed tells whether fault met a write call among calls, an answer the write's outcome is
// unknown without (not a refusal such as throttling, which DynamoDB decided).
func writeFailed(calls []string, fault faultproxy.Fault) bool {
	switch fault.Mode {
	case faultproxy.Throttle, faultproxy.ProvisionedThroughput, faultproxy.TransactionConflict, faultproxy.ItemConflict:
		return false
	}
	for _, w := range []string{"TransactWriteItems", "PutItem", "DeleteItem", "UpdateItem"} {
		if slices.Contains(calls, w) && (len(fault.Ops) == 0 || slices.Contains(fault.Ops, w)) {
			return w != "UpdateItem" || !slices.Contains(calls, "GetItem") // a login's claim lapses instead
		}
	}
	return false
}

// withoutPending is a scan with the login places still pending taken out of their failure windows, as
// they are once they lapse: the attributes that mark them, and their places in the count.
func withoutPending(items map[string]map[string]any) map[string]map[string]any {
	for k, it := range items {
		pending := 0
		for name := range it {
			if strings.HasPrefix(name, "pending_") {
				delete(it, name)
				pending++
			}
		}
		if pending == 0 {
			continue
		}
		if n := number(it["failures"]) - float64(pending); n > 0 {
			it["failures"] = n
		} else {
			delete(items, k) // a window of pending places only: none once they lapse
		}
	}
	return items
}

// slow sends op with every store call delayed: it must succeed as usual, through the slow store.
func (a *api) slow(t *testing.T, op operation, delay time.Duration, worst *worstTimes) {
	t.Helper()
	defer a.proxy.Clear()
	var before int
	elapsed, _ := a.expect(t, op, fmt.Sprintf("with every call %v slower", delay), func() testkit.Request {
		a.proxy.Clear()
		req := op.request(t, a, fresh.Add(1))
		a.proxy.Set(faultproxy.Fault{Mode: faultproxy.Slow, Delay: delay})
		before = a.proxy.Requests()
		return req
	})
	worst.record("slow", op.name, elapsed)
	if a.proxy.Requests() == before || elapsed < delay {
		t.Errorf("%s answered in %v with %d store calls: it did not go through the slow store", op.name, elapsed,
			a.proxy.Requests()-before)
	}
}

// send sends one request of op and says how long the answer took.
func (a *api) send(t *testing.T, op operation, req testkit.Request) (testkit.Response, time.Duration) {
	t.Helper()
	if op.hashes {
		hashing.Lock()
		defer hashing.Unlock()
	}
	began := time.Now()
	resp := testkit.Do(t, a.gw, req)
	return resp, time.Since(began)
}

// expect sends a request of op, made by build, with the store working (or slow), and fails unless it
// gets op's usual status; it returns how long it took and whether it succeeded.
//
// The client has the production time limits, which a busy machine can outlast with the store working:
// what is tested here is the service's behaviour then, not the machine. So the request's budget is
// lifted while it runs, and a request that fails while its client gave up on a call the store was
// still doing (the proxy's Abandoned: the machine took longer than the attempt timeout) is inconclusive
// and sent again, a new one from build, a few times. A failure with no call given up is the service's.
func (a *api) expect(t *testing.T, op operation, when string, build func() testkit.Request) (time.Duration, bool) {
	t.Helper()
	defer a.liftBudget()()
	return a.working(t, op.name+" "+when, op.status, func() (testkit.Response, time.Duration) {
		return a.send(t, op, build())
	})
}

// slowMachineTries is how many requests working sends before a machine too slow for the production
// attempt timeout fails the test.
const slowMachineTries = 5

// working runs send until its answer has status want, or fails without its client having given up
// on a call of the working store (see expect).
func (a *api) working(t *testing.T, what string, want int, send func() (testkit.Response, time.Duration)) (
	time.Duration, bool) {
	t.Helper()
	for try := 1; ; try++ {
		abandoned := a.proxy.Abandoned()
		resp, elapsed := send()
		if resp.Status == want {
			return elapsed, true
		}
		if n := a.proxy.Abandoned() - abandoned; n > 0 && try < slowMachineTries {
			t.Logf("%s: %d %s after %v, with %d call(s) given up on a working store: the machine outlasted the "+
				"attempt timeout; sending another", what, resp.Status, resp.Body, elapsed.Round(time.Millisecond), n)
			continue
		}
		t.Errorf("%s: %d %s after %v, want %d", what, resp.Status, resp.Body, elapsed.Round(time.Millisecond), want)
		return elapsed, false
	}
}

func positiveInt(s string) bool {
	n, err := strconv.Atoi(s)
	return err == nil && n > 0 && strconv.Itoa(n) == s
}

// scanRaw reads every item of the table, strongly consistent, past the proxy.
func scanRaw(t *testing.T, db *testkit.DB) []map[string]types.AttributeValue {
	t.Helper()
	var items []map[string]types.AttributeValue
	p := dynamodb.NewScanPaginator(db.Client,
		&dynamodb.ScanInput{TableName: aws.String(db.Table), ConsistentRead: aws.Bool(true)})
	for p.HasMorePages() {
		page, err := p.NextPage(context.Background())
		if err != nil {
			t.Fatalf("scan %s: %v", db.Table, err)
		}
		items = append(items, page.Items...)
	}
	return items
}

// scan reads every item of the table keyed by its primary key, as Go values that compare with DeepEqual.
func scan(t *testing.T, db *testkit.DB) map[string]map[string]any {
	t.Helper()
	var got []map[string]any
	if err := attributevalue.UnmarshalListOfMaps(scanRaw(t, db), &got); err != nil {
		t.Fatalf("scan %s: %v", db.Table, err)
	}
	items := map[string]map[string]any{}
	for _, it := range got {
		items[fmt.Sprint(it["PK"], " ", it["SK"])] = it
	}
	return items
}

// diff names the items added, removed or changed with the attributes that differ, never a value: a
// value may be a password hash, a key a token's hash.
func diff(before, after map[string]map[string]any) string {
	var lines []string
	keys := maps.Clone(before)
	maps.Copy(keys, after)
	for _, k := range slices.Sorted(maps.Keys(keys)) {
		b, a := before[k], after[k]
		names := map[string]any{}
		maps.Copy(names, a)
		maps.Copy(names, b)
		var changed []string
		for _, n := range slices.Sorted(maps.Keys(names)) {
			if !reflect.DeepEqual(a[n], b[n]) || (a == nil) != (b == nil) {
				changed = append(changed, n)
			}
		}
		if len(changed) > 0 {
			if strings.HasPrefix(k, "TOKEN#") {
				k = "TOKEN#…"
			}
			lines = append(lines, fmt.Sprintf("%s: %s", k, strings.Join(changed, ", ")))
		}
	}
	return strings.Join(lines, "\n")
}

// worstTimes keeps, per fault, the longest a request took to be answered under it, and which it was.
type worstTimes struct {
	mu    sync.Mutex
	times map[string]time.Duration
	cases map[string]string
}

func (w *worstTimes) record(fault, at string, d time.Duration) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.times == nil {
		w.times, w.cases = map[string]time.Duration{}, map[string]string{}
	}
	if d >= w.times[fault] {
		w.times[fault], w.cases[fault] = d, at
	}
}

func (w *worstTimes) log(t *testing.T) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, n := range slices.Sorted(maps.Keys(w.times)) {
		t.Logf("worst answer under %-23s %-7v (%s)", n+":", w.times[n].Round(time.Millisecond), w.cases[n])
	}
}

// TestWriteConflictsAreRetried: DynamoDB cancels a transaction that meets another one on an item
// (TransactionCanceledException, reason TransactionConflict) and refuses a single write to an item a
// transaction is changing (TransactionConflictException); DynamoDB Local, serialising everything, does
// neither. Parallel logins of one account meet on its user item; a comment edit meets a reply being
// created. An operation whose write lost such a race once or twice writes again (re-reading where its
// write is conditional on what it read) and succeeds; one that loses every time answers SPEC §9's 503,
// never 500, and leaves the table as it was.
func TestWriteConflictsAreRetried(t *testing.T) {
	demo := newDemo(t)
	ops := operations(t)
	steps := demo.steps(t, ops)
	a := demo.api(t)
	var worst worstTimes
	conflicts := []struct {
		mode   faultproxy.Mode
		writes []string
	}{
		{faultproxy.TransactionConflict, []string{"TransactWriteItems"}},
		{faultproxy.ItemConflict, []string{"UpdateItem", "PutItem", "DeleteItem"}},
	}
	tried := map[faultproxy.Mode]int{}
	for _, c := range conflicts {
		for _, op := range ops {
			var writes []string
			for _, w := range c.writes {
				if slices.Contains(steps[op.name], w) {
					writes = append(writes, w)
				}
			}
			if len(writes) == 0 {
				continue
			}
			tried[c.mode]++
			t.Run(c.mode.String()+"/"+op.name, func(t *testing.T) {
				var faulted int
				a.expect(t, op, "after losing two races", func() testkit.Request {
					a.proxy.Clear()
					req := op.request(t, a, fresh.Add(1))
					faulted = a.proxy.Faulted()
					a.proxy.Set(faultproxy.Fault{Mode: c.mode, Ops: writes, Times: 2})
					return req
				})
				a.proxy.Clear()
				if n := a.proxy.Faulted() - faulted; n != 2 {
					t.Errorf("%d writes refused, want 2: the fault did not meet the operation's write", n)
				}
				a.fail(t, op, faultproxy.Fault{Mode: c.mode, Ops: writes}, &worst)
			})
		}
	}
	// login and create user write with a transaction; PATCH invitation and PUT/PATCH comment with one
	// conditional UpdateItem.
	if tried[faultproxy.TransactionConflict] < 2 || tried[faultproxy.ItemConflict] < 3 {
		t.Fatalf("operations tried per conflict %v, want at least 2 transactions and 3 single writes (steps %v)",
			tried, steps)
	}
	worst.log(t)
}
