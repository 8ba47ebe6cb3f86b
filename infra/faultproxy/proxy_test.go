package faultproxy

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// backend is a stand-in for DynamoDB that counts what reaches it.
func backend(t *testing.T) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	var reached atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		reached.Add(1)
		body, _ := io.ReadAll(r.Body)
		w.Header().Set("Content-Type", amzJSON)
		_, _ = w.Write(append([]byte("echo:"), body...))
	}))
	t.Cleanup(srv.Close)
	return srv, &reached
}

func start(t *testing.T) (*Proxy, *atomic.Int64) {
	t.Helper()
	srv, reached := backend(t)
	p, err := New(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.Close() })
	return p, reached
}

// post sends a request of the DynamoDB operation op (none when empty).
func post(ctx context.Context, url, op string) (*http.Response, string, error) {
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(`{"TableName":"t"}`))
	if op != "" {
		req.Header.Set("X-Amz-Target", "DynamoDB_20120810."+op)
	}
	// A connection of its own per request, so that a dropped one cannot be mistaken for a stale reuse.
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	resp, err := client.Do(req)
	if err != nil {
		return nil, "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp, string(b), err
}

func TestErrorModesAnswerAsDynamoDBAndForwardNothing(t *testing.T) {
	p, reached := start(t)
	for mode, a := range answers {
		p.Set(Fault{Mode: mode})
		resp, body, err := post(context.Background(), p.URL, "GetItem")
		if err != nil {
			t.Fatalf("%s: %v", mode, err)
		}
		if resp.StatusCode != a.status || body != a.body || resp.Header.Get("Content-Type") != a.contentType {
			t.Errorf("%s: %d %q %s, want %d %q %s", mode, resp.StatusCode, resp.Header.Get("Content-Type"), body,
				a.status, a.contentType, a.body)
		}
	}
	if n := reached.Load(); n != 0 {
		t.Errorf("%d requests reached the backend under error faults", n)
	}
	if p.Requests() != len(answers) || p.Faulted() != len(answers) {
		t.Errorf("seen %d, faulted %d, want %d each", p.Requests(), p.Faulted(), len(answers))
	}
	p.Clear()
	if _, body, err := post(context.Background(), p.URL, "GetItem"); err != nil || body != `echo:{"TableName":"t"}` {
		t.Errorf("after Clear: %q, %v", body, err)
	}
}

func TestDropClosesWithoutAnAnswer(t *testing.T) {
	p, reached := start(t)
	p.Set(Fault{Mode: Drop})
	if resp, _, err := post(context.Background(), p.URL, "GetItem"); err == nil {
		t.Fatalf("dropped request answered %d", resp.StatusCode)
	}
	if reached.Load() != 0 {
		t.Error("a dropped request reached the backend")
	}
}

func TestHangHoldsUntilClearAndForwardsNothing(t *testing.T) {
	p, reached := start(t)
	p.Set(Fault{Mode: Hang})
	done := make(chan error, 1)
	go func() {
		_, _, err := post(context.Background(), p.URL, "GetItem")
		done <- err
	}()
	select {
	case err := <-done:
		t.Fatalf("hung request returned: %v", err)
	case <-time.After(200 * time.Millisecond):
	}
	p.Clear()
	select {
	case err := <-done:
		if err == nil {
			t.Error("a hung request got an answer once freed")
		}
	case <-time.After(time.Minute): // only a hang gets here
		t.Fatal("Clear did not free the hung request")
	}
	if reached.Load() != 0 {
		t.Error("a hung request reached the backend")
	}
}

func TestHangEndsWhenTheClientGivesUpOrTheProxyCloses(t *testing.T) {
	p, _ := start(t)
	p.Set(Fault{Mode: Hang})
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if _, _, err := post(ctx, p.URL, "GetItem"); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("client deadline: %v", err)
	}
	go func() { _, _, _ = post(context.Background(), p.URL, "GetItem") }()
	for p.Requests() < 2 {
		time.Sleep(5 * time.Millisecond)
	}
	closed := make(chan struct{})
	go func() { _ = p.Close(); close(closed) }()
	select {
	case <-closed:
	case <-time.After(time.Minute): // only a hang gets here
		t.Fatal("Close waited on a hung request")
	}
}

func TestSlowForwardsAfterTheDelay(t *testing.T) {
	p, reached := start(t)
	p.Set(Fault{Mode: Slow, Delay: 150 * time.Millisecond})
	began := time.Now()
	_, body, err := post(context.Background(), p.URL, "GetItem")
	if err != nil || body != `echo:{"TableName":"t"}` {
		t.Fatalf("%q, %v", body, err)
	}
	if d := time.Since(began); d < 150*time.Millisecond {
		t.Errorf("answered after %v, before the delay", d)
	}
	if reached.Load() != 1 || p.Faulted() != 0 {
		t.Errorf("reached %d, faulted %d; want 1, 0", reached.Load(), p.Faulted())
	}
}

func TestOpsLimitTheFaultToThoseOperations(t *testing.T) {
	p, reached := start(t)
	p.Set(Fault{Mode: Throttle, Ops: []string{"TransactWriteItems"}})
	var statuses []int
	for _, op := range []string{"GetItem", "TransactWriteItems", "Query", ""} {
		resp, _, err := post(context.Background(), p.URL, op)
		if err != nil {
			t.Fatal(err)
		}
		statuses = append(statuses, resp.StatusCode)
	}
	if want := []int{200, 400, 200, 200}; !slices.Equal(statuses, want) || reached.Load() != 3 {
		t.Errorf("statuses %v, reached %d; want %v, 3", statuses, reached.Load(), want)
	}
	if want := []string{"GetItem", "TransactWriteItems", "Query", ""}; !slices.Equal(p.Calls(), want) {
		t.Errorf("calls %q, want %q", p.Calls(), want)
	}
}

func TestLateAnswerForwardsAndHoldsTheAnswer(t *testing.T) {
	p, reached := start(t)
	// An answer held past any wait of the client's, however late a busy machine fires its timer.
	p.Set(Fault{Mode: LateAnswer, Delay: time.Hour})
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if _, _, err := post(ctx, p.URL, "PutItem"); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("a client that gives up before the answer: %v, want its deadline", err)
	}
	p.Set(Fault{Mode: LateAnswer, Delay: 300 * time.Millisecond})
	began := time.Now()
	_, body, err := post(context.Background(), p.URL, "PutItem")
	if err != nil || body != `echo:{"TableName":"t"}` {
		t.Fatalf("a client that waits: %q, %v; want the answer", body, err)
	}
	if d := time.Since(began); d < 300*time.Millisecond {
		t.Errorf("answered after %v, before the delay", d)
	}
	if reached.Load() != 2 || p.Forwarded() != 2 || p.Faulted() != 2 {
		t.Errorf("reached %d, forwarded %d, faulted %d; want 2 each: both requests were done", reached.Load(),
			p.Forwarded(), p.Faulted())
	}
}

func TestLateAnswerWithoutDelayHoldsUntilTheFaultChanges(t *testing.T) {
	p, reached := start(t)
	p.Set(Fault{Mode: LateAnswer})
	done := make(chan error, 1)
	go func() {
		_, _, err := post(context.Background(), p.URL, "PutItem")
		done <- err
	}()
	for reached.Load() == 0 {
		time.Sleep(5 * time.Millisecond)
	}
	select {
	case err := <-done:
		t.Fatalf("the request returned before the fault changed: %v", err)
	case <-time.After(200 * time.Millisecond):
	}
	p.Clear()
	select {
	case err := <-done:
		if err == nil {
			t.Error("an answer held without a delay was sent once freed; want the connection dropped")
		}
	case <-time.After(time.Minute): // only a hang gets here
		t.Fatal("Clear did not free the held answer")
	}
}

func TestLostAnswerForwardsAndDropsTheConnection(t *testing.T) {
	p, reached := start(t)
	p.Set(Fault{Mode: LostAnswer, Ops: []string{"PutItem"}})
	if resp, _, err := post(context.Background(), p.URL, "PutItem"); err == nil {
		t.Fatalf("a lost answer arrived: %d", resp.StatusCode)
	}
	if _, body, err := post(context.Background(), p.URL, "GetItem"); err != nil || body != `echo:{"TableName":"t"}` {
		t.Errorf("another operation: %q, %v; want it answered", body, err)
	}
	if reached.Load() != 2 || p.Forwarded() != 2 || p.Faulted() != 1 {
		t.Errorf("reached %d, forwarded %d, faulted %d; want 2, 2, 1", reached.Load(), p.Forwarded(), p.Faulted())
	}
}

func TestFaultsHoldTogetherEachOnItsOperations(t *testing.T) {
	p, reached := start(t)
	p.Set(Fault{Mode: LostAnswer, Ops: []string{"PutItem"}, Times: 1},
		Fault{Mode: InternalError, Ops: []string{"GetItem", "PutItem"}})
	var got []string
	for _, op := range []string{"PutItem", "GetItem", "PutItem", "Query"} {
		resp, _, err := post(context.Background(), p.URL, op)
		switch {
		case err != nil:
			got = append(got, "dropped")
		default:
			got = append(got, strconv.Itoa(resp.StatusCode))
		}
	}
	if want := []string{"dropped", "500", "500", "200"}; !slices.Equal(got, want) || reached.Load() != 2 {
		t.Errorf("answers %v, reached %d; want %v, 2 (the lost answer's request and the Query)", got, reached.Load(), want)
	}
}

func TestSkipLetsTheFirstRequestsOfItsOperationsPass(t *testing.T) {
	p, reached := start(t)
	p.Set(Fault{Mode: Unavailable, Ops: []string{"GetItem"}, Skip: 2, Times: 1})
	var statuses []int
	for _, op := range []string{"GetItem", "Query", "GetItem", "GetItem", "GetItem"} {
		resp, _, err := post(context.Background(), p.URL, op)
		if err != nil {
			t.Fatal(err)
		}
		statuses = append(statuses, resp.StatusCode)
	}
	if want := []int{200, 200, 200, 503, 200}; !slices.Equal(statuses, want) || reached.Load() != 4 {
		t.Errorf("statuses %v, reached %d; want %v, 4", statuses, reached.Load(), want)
	}
}

// Queued: a client that waits gets the answer after a wait in the range; one that gives up first still
// has its request done, after its wait (cut short by Close), as a slow service does the requests
// queued in it.
func TestQueuedDoesEveryRequestAfterAWaitInItsRange(t *testing.T) {
	p, reached := start(t)
	p.Set(Fault{Mode: Queued, Delay: 100 * time.Millisecond, MaxDelay: 200 * time.Millisecond})
	began := time.Now()
	_, body, err := post(context.Background(), p.URL, "GetItem")
	if err != nil || body != `echo:{"TableName":"t"}` {
		t.Fatalf("a client that waits: %q, %v; want the answer", body, err)
	}
	if d := time.Since(began); d < 100*time.Millisecond {
		t.Errorf("answered after %v, before the shortest wait", d)
	}
	// The second waits until Close: however late the check below runs, its request is still queued.
	p.Set(Fault{Mode: Queued, Delay: time.Hour, MaxDelay: time.Hour})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if _, _, err := post(ctx, p.URL, "PutItem"); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("a client that gives up: %v, want its deadline", err)
	}
	if reached.Load() != 1 {
		t.Errorf("reached %d while the second request waits; want 1", reached.Load())
	}
	// Close waits for the proxy's handlers: the abandoned request is forwarded before it returns.
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	if reached.Load() != 2 || p.Forwarded() != 2 || p.Faulted() != 0 {
		t.Errorf("reached %d, forwarded %d, faulted %d; want 2, 2, 0: a queued request is done, not failed",
			reached.Load(), p.Forwarded(), p.Faulted())
	}
}

// Abandoned counts the requests the store itself was too slow for: forwarded with no fault or a slow
// one, their client gone before the answer. Answered requests and requests a fault failed do not count.
func TestAbandonedCountsTheClientsThatGaveUpOnTheStore(t *testing.T) {
	arrived, held := make(chan struct{}), make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-Amz-Target") == "DynamoDB_20120810.Query" {
			close(arrived)
			<-held // a store slower than its client waits
		}
		w.Header().Set("Content-Type", amzJSON)
		_, _ = io.WriteString(w, `{}`)
	}))
	defer srv.Close()
	left := make(chan struct{})
	p, err := newProxy(srv.URL, sync.OnceFunc(func() { close(left) }))
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := post(context.Background(), p.URL, "GetItem"); err != nil {
		t.Fatal(err)
	}
	p.Set(Fault{Mode: InternalError, Ops: []string{"PutItem"}})
	if _, _, err := post(context.Background(), p.URL, "PutItem"); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		<-arrived
		cancel() // the client gives up while the store works on its call
	}()
	if _, _, err := post(ctx, p.URL, "Query"); !errors.Is(err, context.Canceled) {
		t.Fatalf("a client that gives up: %v, want its cancellation", err)
	}
	// Until the proxy has seen its client leave, the store's answer could still reach the proxy first
	// and be taken for one its client waited for.
	<-left
	close(held)
	if err := p.Close(); err != nil { // waits for the proxy's handlers
		t.Fatal(err)
	}
	if got := p.Abandoned(); got != 1 {
		t.Errorf("Abandoned() = %d after an answered, a failed and a given-up request; want 1", got)
	}
}
