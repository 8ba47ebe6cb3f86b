package faultproxy_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/reportingplatform/api/infra/faultproxy"
	"github.com/reportingplatform/api/infra/testkit"
)

// writeFaults are the faults under which DynamoDB does the write and the client does not hear of it
// in time, or at all, and those under which the write never reaches DynamoDB (Drop, Hang). The late
// answer is held until its client gives up (no Delay): an answer due a moment after the attempt
// timeout would race the client's timer, which a busy machine can make late.
var writeFaults = []faultproxy.Fault{
	{Mode: faultproxy.LateAnswer},
	{Mode: faultproxy.LostAnswer},
	{Mode: faultproxy.Drop},
	{Mode: faultproxy.Hang},
}

// lands tells the faults of writeFaults under which the write is done.
func lands(m faultproxy.Mode) bool { return m == faultproxy.LateAnswer || m == faultproxy.LostAnswer }

// TestAWriteWhoseAnswerIsLostIsNeverA503 sends every write route (template.yaml's, through the
// gateway) with its write call's answer late past the attempt timeout, or lost, and with the write
// dropped or hung before DynamoDB sees it (SPEC §9, "Writes whose answer is lost"). When one copy of
// the write meets the fault, the copy sent again with its token settles it: the request answers what
// the same request answers without a fault, and changed the table as that one did (once: no second
// comment, count or version). When every copy meets it, DynamoDB answered nothing: the 503 says the
// change may have been saved, and the table changed as without a fault if DynamoDB did the write, not
// at all if it never saw it. Both after a bounded number of attempts (attemptsPerCall).
func TestAWriteWhoseAnswerIsLostIsNeverA503(t *testing.T) {
	demo := newDemo(t)
	var worst worstTimes
	g := demo.groups(t)
	defer func() {
		g.wait()
		worst.log(t)
	}()
	for _, op := range operations(t) {
		if strings.HasPrefix(op.name, http.MethodGet+" ") {
			continue
		}
		g.add(op.name, func(t *testing.T, a *api) {
			for _, f := range writeFaults {
				if lands(f.Mode) {
					once := f
					once.Times = 1
					a.loseAnswer(t, op, once, &worst)
				}
				a.loseAnswer(t, op, f, &worst)
			}
		})
	}
}

// loseAnswer sends a request of op without a fault, then again with fault on its write calls.
func (a *api) loseAnswer(t *testing.T, op operation, fault faultproxy.Fault, worst *worstTimes) {
	t.Helper()
	name := op.name
	var (
		want       testkit.Response
		wantChange []string
		writeOp    string
	)
	restore := a.liftBudget()
	_, ok := a.working(t, name+" without a fault", op.status, func() (testkit.Response, time.Duration) {
		want, wantChange, writeOp = a.sendWrite(t, op, nil)
		return want, 0
	})
	restore()
	if !ok {
		t.FailNow()
	}
	if writeOp == "" {
		t.Fatalf("%s without a fault made no write call: %v", name, a.proxy.Calls())
	}
	copies := "every copy"
	if fault.Times == 1 {
		copies = "its first copy"
	}
	at := fmt.Sprintf("%s under %s of %s (%s)", name, fault.Mode, writeOp, copies)
	fault.Ops = []string{writeOp}
	// A route that hashes may wait most of the budget for the CPU on a shared machine under -race, and
	// then send its write so late that its copies end with the budget: whether one of them is answered
	// then depends on the machine, not on the service. Its settled cases get testkit's budget;
	// TestEveryOperationSurvivesEveryStoreFault holds the time limits.
	timed := !op.hashes || fault.Times != 1
	if !timed {
		defer a.liftBudget()()
	}
	// A call the store did that its client gave up on (the machine outlasting the attempt timeout: a
	// read before the write, a copy after the fault) makes the outcome the machine's: sent again.
	for try := 1; ; try++ {
		abandoned := a.proxy.Abandoned()
		problems := a.loseAnswerOnce(t, op, fault, at, want, wantChange, timed, worst)
		if len(problems) == 0 {
			return
		}
		if n := a.proxy.Abandoned() - abandoned; n > 0 && try < slowMachineTries {
			t.Logf("%s: %s, with %d call(s) given up on a working store: the machine outlasted the attempt "+
				"timeout; sending another", at, strings.Join(problems, "; "), n)
			continue
		}
		for _, p := range problems {
			t.Error(p)
		}
		return
	}
}

// loseAnswerOnce sends a request of op with fault on its write, and says what is wrong with the answer
// and the table's change, against want and wantChange, the same request's without a fault.
func (a *api) loseAnswerOnce(t *testing.T, op operation, fault faultproxy.Fault, at string, want testkit.Response,
	wantChange []string, timed bool, worst *worstTimes) []string {
	t.Helper()
	var problems []string
	problem := func(format string, args ...any) { problems = append(problems, at+": "+fmt.Sprintf(format, args...)) }
	faulted := a.proxy.Faulted()
	began := time.Now()
	got, change, _ := a.sendWrite(t, op, &fault)
	if timed {
		worst.record(fault.Mode.String()+" of the write", at, time.Since(began))
	}
	// The fault is on the write alone: its copies are the attempts it meets.
	if n := a.proxy.Faulted() - faulted; n == 0 || n > attemptsPerCall {
		problem("the fault met %d attempts, want 1 to %d", n, attemptsPerCall)
	}
	// A login's first write is its claim: one whose outcome stays open fails the login before its
	// password is checked, and lapses (SPEC §9, "Login limit under load"); nothing else was written.
	claim := fault.Ops[0] == "UpdateItem" && op.name == "POST /api/v1/auth/login"
	if fault.Times != 1 {
		wantBody := openBody
		if claim {
			wantBody = unavailableBody
		}
		if got.Status != http.StatusServiceUnavailable || !testkit.JSONEqual(got.Body, []byte(wantBody)) ||
			!positiveInt(got.Header.Get("Retry-After")) {
			problem("%d %s (Retry-After %q), want 503 %s with Retry-After", got.Status, got.Body,
				got.Header.Get("Retry-After"), wantBody)
		}
		if claim && len(change) > 0 {
			problem("the table changed by %v, want no change but pending places", change)
		}
		if lands(fault.Mode) && !claim && !slices.Equal(change, wantChange) {
			problem("the table changed by %v, want %v: DynamoDB did the write", change, wantChange)
		}
		if !lands(fault.Mode) && len(change) > 0 {
			problem("answered %d, but the table changed: %v", got.Status, change)
		}
		return problems
	}
	// Bodies are shown as shapes: a login's carries a token.
	if gotShape, wantShape := shape(t, got.Body), shape(t, want.Body); got.Status != want.Status ||
		!reflect.DeepEqual(gotShape, wantShape) {
		problem("%d %v, want %d %v", got.Status, gotShape, want.Status, wantShape)
	}
	if !slices.Equal(change, wantChange) {
		problem("the table changed by %v, want %v as without a fault", change, wantChange)
	}
	return problems
}

// setBudget sets the request budget of every function.
func (a *api) setBudget(d time.Duration) {
	a.budget = d
	for _, r := range a.routers {
		r.SetBudget(d)
	}
}

// liftBudget gives every function testkit's budget until the func it returns restores the one before.
func (a *api) liftBudget() func() {
	before := a.budget
	a.setBudget(testkit.TestBudget)
	return func() { a.setBudget(before) }
}

// sendWrite sends a request of op, under fault if not nil, and returns the answer, how the table
// changed (change), and the first write call the request made.
func (a *api) sendWrite(t *testing.T, op operation, fault *faultproxy.Fault) (testkit.Response, []string, string) {
	t.Helper()
	req := op.request(t, a, fresh.Add(1))
	before := withoutPending(scan(t, a.db))
	calls := a.proxy.Requests()
	if fault != nil {
		a.proxy.Set(*fault)
		defer a.proxy.Clear()
	}
	resp, _ := a.send(t, op, req)
	writeOp := ""
	for _, c := range a.proxy.Calls()[calls:] {
		if slices.Contains([]string{"TransactWriteItems", "PutItem", "UpdateItem", "DeleteItem"}, c) {
			writeOp = c
			break
		}
	}
	return resp, change(before, withoutPending(scan(t, a.db))), writeOp
}

// change describes what changed between two scans, in terms that two runs of one request share: the
// kinds of the items added, removed and changed, and how much each number changed (a version, a count).
func change(before, after map[string]map[string]any) []string {
	var out []string
	keys := map[string]bool{}
	for k := range before {
		keys[k] = true
	}
	for k := range after {
		keys[k] = true
	}
	for k := range keys {
		b, a := before[k], after[k]
		kind := itemKind(k)
		if b == nil && (strings.HasSuffix(kind, "/COUNT") || strings.HasSuffix(kind, "/MONTH")) {
			// A count item (or month item of counts by time) not written yet counts zero: which ones a
			// request adds depends on its ids (everyone's invitation count is spread over items by the
			// invitation's id) and its clock.
			b = map[string]any{}
		}
		switch {
		case b == nil:
			out = append(out, kind+" added")
		case a == nil:
			out = append(out, kind+" removed")
		case !reflect.DeepEqual(a, b):
			out = append(out, kind+" changed")
			for name, v := range a {
				if d := number(v) - number(b[name]); d != 0 {
					out = append(out, fmt.Sprintf("%s %s %+g", kind, name, d))
				}
			}
		}
	}
	slices.Sort(out)
	return out
}

// itemKind is an item's key without its ids: "COMMENT/COMMENT", "OBJECT/COUNT".
func itemKind(k string) string {
	pk, sk, _ := strings.Cut(k, " ")
	pk, _, _ = strings.Cut(pk, "#")
	sk, _, _ = strings.Cut(sk, "#")
	return pk + "/" + sk
}

func number(v any) float64 {
	switch n := v.(type) {
	case float64:
		return n
	case int:
		return float64(n)
	case int64:
		return float64(n)
	}
	return 0
}

var (
	uuidPattern = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)
	timePattern = regexp.MustCompile(`\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)?`)
	runPattern  = regexp.MustCompile(`\d+`)
)

// shape is a response body with what differs from run to run of one request (ids, times, the run's
// number, a token) replaced by placeholders, for comparing two runs' answers.
func shape(t *testing.T, body []byte) any {
	t.Helper()
	if len(body) == 0 {
		return nil
	}
	var v any
	if err := json.Unmarshal(body, &v); err != nil {
		t.Fatalf("body %s: %v", body, err)
	}
	var walk func(key string, v any) any
	walk = func(key string, v any) any {
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				x[k] = walk(k, e)
			}
		case []any:
			for i, e := range x {
				x[i] = walk(key, e)
			}
		case string:
			if key == "token" {
				return "<token>"
			}
			x = uuidPattern.ReplaceAllString(x, "<id>")
			x = timePattern.ReplaceAllString(x, "<time>")
			return runPattern.ReplaceAllStringFunc(x, func(d string) string {
				if _, err := strconv.Atoi(d); err == nil && len(d) < 8 {
					return "<n>"
				}
				return d
			})
		}
		return v
	}
	return walk("", v)
}
