package expiries_test

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/reportingplatform/api/functions/expiries"
	"github.com/reportingplatform/api/infra/faultproxy"
	"github.com/reportingplatform/api/shared/domain"
)

// A DynamoDB that never answers cannot hang a run: the run's budget ends it, with an error (the
// invocation fails, the errors alarm fires) and a logged line, and the table keeps what it had. The
// client here is testkit's, which waits for an answer far longer than the production client's attempts,
// so the budget alone ends each case: without it, the run would wait until the test binary's own timeout.
func TestARunIsBoundedWhenDynamoDBHangs(t *testing.T) {
	for _, tc := range []struct {
		op    string // the operation that hangs
		calls []string
	}{
		{"Query", []string{"Query"}},
		{"TransactWriteItems", []string{"Query", "TransactWriteItems"}},
	} {
		t.Run(tc.op, func(t *testing.T) {
			w := newWorld(t)
			id := w.invitation(t, 0, w.now.Add(-time.Hour), "")
			loaded := w.stored(t, id)
			store, _, proxy := w.db.ViewBehindProxy(t)
			var lines logLines
			h := w.handler(t, store, &lines)
			h.SetBudget(time.Second)
			proxy.Set(faultproxy.Fault{Mode: faultproxy.Hang, Ops: []string{tc.op}})

			res, err := h.Handle(context.Background(), sampleEvent(t))
			if err == nil || res.Recorded != 0 {
				t.Fatalf("run under a hung %s: %+v, %v; want an error and nothing recorded", tc.op, res, err)
			}
			if !errors.Is(err, context.DeadlineExceeded) && domain.ErrorCode(err) != domain.EUNAVAILABLE {
				t.Errorf("run's error %v; want the store unavailable or the budget ended", err)
			}
			// A write whose answer never came is read back (BatchGetItem) if the budget leaves the time.
			got := proxy.Calls()
			if len(got) < len(tc.calls) || !slices.Equal(got[:len(tc.calls)], tc.calls) ||
				slices.ContainsFunc(got[len(tc.calls):], func(op string) bool { return op != "BatchGetItem" }) {
				t.Errorf("calls %v; want %v, then at most a read-back", got, tc.calls)
			}
			logged := lines.all(t)
			if len(logged) != 1 || logged[0]["level"] != "ERROR" || logged[0]["recorded"] != 0.0 || logged[0]["error"] == nil {
				t.Errorf("logged %v; want one ERROR line with recorded 0 and the error", logged)
			}
			proxy.Clear()
			if inv := w.stored(t, id); inv.Status != domain.StatusPending || inv.Version != loaded.Version {
				t.Errorf("stored after the run: status %d version %d; want it as loaded (pending, version %d)",
					inv.Status, inv.Version, loaded.Version)
			}
		})
	}
}

// Every other way DynamoDB fails (SPEC §9) fails the run the same way, on the GSI5 query or on the write: an error, an ERROR line, nothing written.
// Once DynamoDB answers again, the next run records what the failed one left.
func TestARunFailsOnEveryStoreFaultAndTheNextRunRecovers(t *testing.T) {
	modes := []faultproxy.Mode{faultproxy.Throttle, faultproxy.ProvisionedThroughput, faultproxy.InternalError,
		faultproxy.Unavailable, faultproxy.UnavailablePage, faultproxy.Drop}
	for _, op := range []string{"Query", "TransactWriteItems"} {
		for _, mode := range modes {
			t.Run(op+"/"+mode.String(), func(t *testing.T) {
				t.Parallel()
				run := newFaultyRun(t, faultproxy.Fault{Mode: mode, Ops: []string{op}})
				res, err := run.h.Handle(context.Background(), sampleEvent(t))
				// A write that no copy of was answered is open (the proxy forwarded none: nothing landed).
				open := op == "TransactWriteItems" && domain.ErrorCode(err) == domain.EOPEN
				if err == nil || res.Recorded != 0 || (domain.ErrorCode(err) != domain.EUNAVAILABLE && !open) {
					t.Fatalf("run: %+v, %v; want the store unavailable and nothing recorded", res, err)
				}
				run.loggedOnce(t, "ERROR")
				run.asLoaded(t)
				run.nextRunRecords(t)
				if inv := run.w.stored(t, run.id); inv.Status != domain.StatusExpired {
					t.Errorf("stored after the next run: status %d; want 3", inv.Status)
				}
			})
		}
	}
}

// TestAnExpiryThatMeetsAnotherWriteIsLeftToTheNextRun: in AWS a transaction that meets another on an
// item (the count of everyone's invitations, the invitation itself) is cancelled. The run sends it
// again a few times; when it still meets one, the run leaves it, without an error, and the next run
// records it.
func TestAnExpiryThatMeetsAnotherWriteIsLeftToTheNextRun(t *testing.T) {
	run := newFaultyRun(t, faultproxy.Fault{Mode: faultproxy.TransactionConflict, Ops: []string{"TransactWriteItems"}})
	res, err := run.h.Handle(context.Background(), sampleEvent(t))
	if err != nil || res.Recorded != 0 {
		t.Fatalf("run: %+v, %v; want nothing recorded and no error", res, err)
	}
	run.loggedOnce(t, "INFO")
	run.asLoaded(t)
	run.nextRunRecords(t)
}

// faultyRun is a world with one pending invitation past its expiry, as loaded, and an expiries handler
// whose store reaches DynamoDB through a fault proxy.
type faultyRun struct {
	w      *world
	id     string
	loaded domain.Invitation
	h      *expiries.Handler
	proxy  *faultproxy.Proxy
	lines  logLines
}

// newFaultyRun builds a faultyRun whose proxy has fault set.
func newFaultyRun(t *testing.T, fault faultproxy.Fault) *faultyRun {
	r := &faultyRun{w: newWorld(t)}
	r.id = r.w.invitation(t, 0, r.w.now.Add(-time.Hour), "")
	r.loaded = r.w.stored(t, r.id)
	store, _, proxy := r.w.db.ViewBehindProxy(t)
	r.proxy = proxy
	r.h = r.w.handler(t, store, &r.lines)
	proxy.Set(fault)
	return r
}

// loggedOnce checks that the run logged one line at level, recording nothing.
func (r *faultyRun) loggedOnce(t *testing.T, level string) {
	t.Helper()
	if logged := r.lines.all(t); len(logged) != 1 || logged[0]["level"] != level || logged[0]["recorded"] != 0.0 {
		t.Errorf("logged %v; want one %s line with recorded 0", logged, level)
	}
}

// asLoaded checks that the invitation is stored as it was loaded.
func (r *faultyRun) asLoaded(t *testing.T) {
	t.Helper()
	if inv := r.w.stored(t, r.id); inv.Status != domain.StatusPending || inv.Version != r.loaded.Version {
		t.Errorf("stored after the run: status %d version %d; want it as loaded", inv.Status, inv.Version)
	}
}

// nextRunRecords lifts the fault and checks that the next run records the invitation.
func (r *faultyRun) nextRunRecords(t *testing.T) {
	t.Helper()
	r.proxy.Clear()
	if res, err := r.h.Handle(context.Background(), sampleEvent(t)); err != nil || res.Recorded != 1 {
		t.Fatalf("the next run: %+v, %v; want 1 recorded", res, err)
	}
}
