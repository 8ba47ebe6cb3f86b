// Package faultproxy puts a DynamoDB endpoint behind a proxy that can be made to fail the way DynamoDB
// and the network fail in AWS: throttling, 5xx answers, dropped connections, hangs and slowness. DynamoDB
// Local never does any of these, so without it SPEC §9 (a store that fails answers 503 within 6 s, never
// 500 or a hang, and the next request after it recovers succeeds) could not be tested end to end.
//
// A failing request is never forwarded, so a fault cannot change the table; a test can then hold the
// service to leaving the table as it was. Two modes are the exception, on purpose: LateAnswer and
// LostAnswer let DynamoDB do the request and then withhold its answer, the write whose outcome the
// client cannot know (SPEC §9, "Writes whose answer is lost"). A fault may also be limited to some
// DynamoDB operations (say TransactWriteItems), to fail one step of a request whose other steps succeed,
// and several faults may hold at once, each on its own operations.
package faultproxy

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"time"
)

// Mode is what the proxy does with a request.
type Mode int

// The modes. The error bodies are those DynamoDB's JSON protocol sends (the SDK reads the code from
// `__type`, after the '#').
const (
	Pass                  Mode = iota // forward as is
	Throttle                          // 400 ThrottlingException
	ProvisionedThroughput             // 400 ProvisionedThroughputExceededException
	InternalError                     // 500 InternalServerError
	Unavailable                       // 503 ServiceUnavailableException, JSON body
	UnavailablePage                   // 503 with an HTML page, as a load balancer in front of DynamoDB answers
	Drop                              // read the request, close the connection without an answer
	Hang                              // read the request, never answer (until the fault changes or Close)
	Slow                              // wait Fault.Delay, then forward
	// TransactionConflict is 400 TransactionCanceledException with a TransactionConflict reason: what
	// DynamoDB answers a transaction that met another one on an item (DynamoDB Local serialises them).
	TransactionConflict
	// ItemConflict is 400 TransactionConflictException: what DynamoDB answers a single write to an item
	// that a transaction is changing.
	ItemConflict
	// LateAnswer forwards the request, so DynamoDB does it, and holds the answer for Fault.Delay, then
	// sends it; with no Delay, until its client gives up or the fault changes, then drops it: an answer
	// later than any attempt timeout, which no timer of a busy machine can race.
	LateAnswer
	// LostAnswer forwards the request and closes the connection instead of sending the answer.
	LostAnswer
	// Queued is a slow store rather than a down one: each request waits a random time between
	// Fault.Delay and Fault.MaxDelay, then DynamoDB does it whether or not its client is still
	// waiting, as a request queued inside a slow service is done after its caller gave up. The answer
	// reaches a client that is still there.
	Queued
)

var modeNames = map[Mode]string{
	Pass: "pass", Throttle: "throttle", ProvisionedThroughput: "provisioned-throughput",
	InternalError: "500", Unavailable: "503", UnavailablePage: "503-html", Drop: "drop", Hang: "hang", Slow: "slow",
	TransactionConflict: "transaction-conflict", ItemConflict: "item-conflict", LateAnswer: "late-answer",
	LostAnswer: "lost-answer", Queued: "queued",
}

func (m Mode) String() string {
	if s, ok := modeNames[m]; ok {
		return s
	}
	return fmt.Sprintf("Mode(%d)", int(m))
}

// Fault is the proxy's behaviour from the moment it is set.
type Fault struct {
	Mode  Mode
	Delay time.Duration // Slow, LateAnswer and Queued (the shortest wait) only
	// MaxDelay is Queued's longest wait; each request's wait is drawn uniformly from [Delay, MaxDelay].
	MaxDelay time.Duration
	// Ops limits the fault to these DynamoDB operations ("GetItem", "TransactWriteItems"); the others
	// pass. Empty means every request. Chosen by operation rather than by position, since a request
	// makes some of its calls in parallel and their order of arrival is not fixed.
	Ops []string
	// Times limits the fault to the first Times requests it applies to; the later ones pass. 0 means
	// every one.
	Times int
	// Skip lets the first Skip requests of its operations pass before the fault applies: to fail the
	// second of a request's reads (a read-back), not its first.
	Skip int
}

// applies tells whether f fails a request for the DynamoDB operation op.
func (f Fault) applies(op string) bool {
	if f.Mode == Pass {
		return false
	}
	if len(f.Ops) == 0 {
		return true
	}
	for _, o := range f.Ops {
		if o == op {
			return true
		}
	}
	return false
}

// operation is the DynamoDB operation of a request of its JSON protocol: the part of X-Amz-Target
// after the API version ("DynamoDB_20120810.GetItem" → "GetItem").
func operation(r *http.Request) string {
	target := r.Header.Get("X-Amz-Target")
	if i := strings.LastIndexByte(target, '.'); i >= 0 {
		return target[i+1:]
	}
	return target
}

// errorAnswer is a canned DynamoDB error response.
type errorAnswer struct {
	status      int
	contentType string
	body        string
}

const amzJSON = "application/x-amz-json-1.0"

var answers = map[Mode]errorAnswer{
	Throttle: {http.StatusBadRequest, amzJSON,
		`{"__type":"com.amazonaws.dynamodb.v20120810#ThrottlingException","message":"Rate of requests exceeds ` +
			`the allowed throughput."}`},
	ProvisionedThroughput: {http.StatusBadRequest, amzJSON,
		`{"__type":"com.amazonaws.dynamodb.v20120810#ProvisionedThroughputExceededException","message":"The ` +
			`level of configured provisioned throughput for the table was exceeded. Consider increasing your ` +
			`provisioning level with the UpdateTable API."}`},
	InternalError: {http.StatusInternalServerError, amzJSON,
		`{"__type":"com.amazonaws.dynamodb.v20120810#InternalServerError","message":"Internal server error"}`},
	Unavailable: {http.StatusServiceUnavailable, amzJSON,
		`{"__type":"com.amazon.coral.availability#ServiceUnavailableException","message":"Service unavailable"}`},
	UnavailablePage: {http.StatusServiceUnavailable, "text/html",
		"<html><body><b>Http/1.1 Service Unavailable</b></body></html>"},
	TransactionConflict: {http.StatusBadRequest, amzJSON,
		`{"__type":"com.amazonaws.dynamodb.v20120810#TransactionCanceledException","Message":"Transaction ` +
			`cancelled, please refer cancellation reasons for specific reasons [None, TransactionConflict]",` +
			`"CancellationReasons":[{"Code":"None"},` +
			`{"Code":"TransactionConflict","Message":"Transaction is ongoing for the item"}]}`},
	ItemConflict: {http.StatusBadRequest, amzJSON,
		`{"__type":"com.amazonaws.dynamodb.v20120810#TransactionConflictException","message":"Transaction is ` +
			`ongoing for the item"}`},
}

// Proxy is a fault-injecting HTTP proxy in front of one DynamoDB endpoint. It is safe for concurrent use.
type Proxy struct {
	// URL is the endpoint to give the DynamoDB client, e.g. "http://127.0.0.1:41234".
	URL string

	forward *httputil.ReverseProxy
	srv     *http.Server
	handled sync.WaitGroup

	mu        sync.Mutex
	faults    []Fault
	release   chan struct{} // closed when the faults change or the proxy closes: frees hung requests
	closed    bool
	calls     []string // the operation of every request received, in order of arrival
	faulted   int      // requests whose answer a fault replaced or withheld
	forwarded int      // requests that reached the target
	abandoned int      // requests forwarded with no fault or a slow one whose client left before the answer
	applied   []int    // requests each of the current faults applied to (Fault.Times)
	met       []int    // requests of each current fault's operations, applied or not (Fault.Skip)

	// clientLeft, if set, is called when the proxy sees the client of a request it forwards (or is to
	// forward) with no fault or a slow one go away before the forward ends: a request that Abandoned
	// will count. A test waits on it before letting the target answer, since the proxy learns that its
	// client left only when its server next reads the connection, which an answer can outrun.
	clientLeft func()
}

// New starts a proxy to target (a DynamoDB endpoint URL) on a free port of 127.0.0.1, passing requests
// through until a fault is set.
func New(target string) (*Proxy, error) { return newProxy(target, nil) }

// newProxy is New with a clientLeft hook, set before the server starts so that no handler can miss it.
func newProxy(target string, clientLeft func()) (*Proxy, error) {
	u, err := url.Parse(target)
	if err != nil || u.Scheme == "" || u.Host == "" {
		return nil, fmt.Errorf("faultproxy: bad target %q: %v", target, err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("faultproxy: listen: %w", err)
	}
	quiet := log.New(io.Discard, "", 0) // a client giving up on a hung or slow request is expected here
	forward := httputil.NewSingleHostReverseProxy(u)
	forward.ErrorLog = quiet
	p := &Proxy{URL: "http://" + ln.Addr().String(), forward: forward, release: make(chan struct{}),
		clientLeft: clientLeft}
	p.srv = &http.Server{Handler: http.HandlerFunc(p.serve), ReadHeaderTimeout: 10 * time.Second, ErrorLog: quiet}
	go func() { _ = p.srv.Serve(ln) }()
	return p, nil
}

// Set changes the faults for the requests that arrive from now on, and frees the requests hanging
// under the previous ones: a hung request is dropped, never forwarded; an answer held for a Delay is
// sent, one held without is dropped. A request meets the first of faults that applies to its operation.
func (p *Proxy) Set(faults ...Fault) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.faults, p.applied, p.met = faults, make([]int, len(faults)), make([]int, len(faults))
	if !p.closed {
		close(p.release)
		p.release = make(chan struct{})
	}
}

// Clear makes the proxy pass requests through again.
func (p *Proxy) Clear() { p.Set(Fault{}) }

// Calls lists the DynamoDB operation of every request the proxy has received, forwarded or not, in
// order of arrival.
func (p *Proxy) Calls() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.calls...)
}

// Requests is how many requests the proxy has received, forwarded or not.
func (p *Proxy) Requests() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.calls)
}

// Faulted is how many requests the proxy has failed: answered with an error instead of forwarding
// them, dropped, or forwarded and then their answer withheld (LateAnswer, LostAnswer).
func (p *Proxy) Faulted() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.faulted
}

// Forwarded is how many requests the proxy passed, or is to pass once a Slow delay ends, to the
// target, whatever became of their answers.
func (p *Proxy) Forwarded() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.forwarded
}

// Abandoned is how many requests the proxy forwarded, passing them or under a slow fault (Slow,
// Queued), whose client went away before their answer reached it: a client that gave up on the store
// itself (its attempt timeout, its request's deadline), not on a failure the proxy made. A test that
// holds a client with the production time limits to succeeding with the store working tells by it that
// the machine, not the service, outlasted those limits.
func (p *Proxy) Abandoned() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.abandoned
}

// answered notes whether the client of r, forwarded with no fault or a slow one, was still there for
// its answer.
func (p *Proxy) answered(r *http.Request) {
	if r.Context().Err() == nil {
		return
	}
	p.mu.Lock()
	p.abandoned++
	p.mu.Unlock()
}

// watch calls the clientLeft hook if r's client goes away before the returned stop is called. Every
// client it reports is one that answered, called after stop, counts: a request's context stays done.
func (p *Proxy) watch(r *http.Request) (stop func() bool) {
	if p.clientLeft == nil {
		return func() bool { return false }
	}
	return context.AfterFunc(r.Context(), p.clientLeft)
}

// Close frees hung requests, closes every connection and waits for the proxy's handlers to return.
func (p *Proxy) Close() error {
	p.mu.Lock()
	if !p.closed {
		p.closed = true
		close(p.release)
	}
	p.mu.Unlock()
	err := p.srv.Close()
	p.handled.Wait()
	return err
}

// decide returns what to do with one arriving request and the channel that frees it if it hangs; ok
// is false once the proxy is closing. Counting the handler in under the lock keeps every Add before
// Close's Wait.
func (p *Proxy) decide(op string) (f Fault, release <-chan struct{}, ok bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.calls = append(p.calls, op)
	if p.closed {
		return Fault{}, nil, false
	}
	p.handled.Add(1)
	for i, f := range p.faults {
		if !f.applies(op) {
			continue
		}
		if p.met[i]++; p.met[i] <= f.Skip || (f.Times > 0 && p.applied[i] >= f.Times) {
			continue
		}
		p.applied[i]++
		if f.Mode != Slow && f.Mode != Queued {
			p.faulted++
		}
		if forwards(f.Mode) {
			p.forwarded++
		}
		return f, p.release, true
	}
	p.forwarded++
	return Fault{}, p.release, true
}

// forwards tells the modes that send the request on to the target.
func forwards(m Mode) bool { return m == Slow || m == LateAnswer || m == LostAnswer || m == Queued }

func (p *Proxy) serve(w http.ResponseWriter, r *http.Request) {
	f, release, ok := p.decide(operation(r))
	if !ok {
		drop(w)
		return
	}
	defer p.handled.Done()
	switch f.Mode {
	case Pass:
		stop := p.watch(r)
		p.forward.ServeHTTP(w, r)
		stop()
		p.answered(r)
		return
	case Slow:
		stop := p.watch(r)
		// The delay ends early when the fault changes; a client that went away gets nothing.
		if wait(r.Context(), release, f.Delay) {
			p.forward.ServeHTTP(w, r)
		} else {
			drop(w)
		}
		stop()
		p.answered(r)
		return
	case LateAnswer, LostAnswer:
		p.withhold(w, r, f, release)
		return
	case Queued:
		p.queue(w, r, f, release)
		return
	}
	// The whole request is read first, as DynamoDB would before failing it.
	_, _ = io.Copy(io.Discard, r.Body)
	if a, ok := answers[f.Mode]; ok {
		w.Header().Set("Content-Type", a.contentType)
		w.Header().Set("X-Amzn-Requestid", "FAULTPROXY")
		w.WriteHeader(a.status)
		_, _ = io.WriteString(w, a.body)
		return
	}
	if f.Mode == Hang {
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}
	// Drop, and a hang that ends: no answer at all, the connection just goes away.
	drop(w)
}

// withhold forwards r and keeps its answer: LostAnswer drops the connection at once; LateAnswer holds
// the answer for f.Delay (until the fault changes or the client leaves, with no Delay), then sends it.
// The forward goes on when the client gives up, as DynamoDB goes on with a request whose client left.
func (p *Proxy) withhold(w http.ResponseWriter, r *http.Request, f Fault, release <-chan struct{}) {
	answer := httptest.NewRecorder()
	p.forward.ServeHTTP(answer, r.WithContext(context.WithoutCancel(r.Context())))
	if f.Mode == LostAnswer {
		drop(w)
		return
	}
	if f.Delay <= 0 {
		select {
		case <-r.Context().Done():
		case <-release:
		}
		drop(w)
		return
	}
	if !wait(r.Context(), release, f.Delay) {
		drop(w)
		return
	}
	relay(w, answer)
}

// relay sends the target's answer, as recorded, to the client.
func relay(w http.ResponseWriter, answer *httptest.ResponseRecorder) {
	for k, v := range answer.Header() {
		w.Header()[k] = v
	}
	w.WriteHeader(answer.Code)
	_, _ = w.Write(answer.Body.Bytes())
}

// queue holds r for a random time in [f.Delay, f.MaxDelay] (less if the faults change), then forwards it
// even if its client has gone, and answers a client that is still there. The body is read at once: a
// client that gives up closes its connection, and DynamoDB already has what it sent.
func (p *Proxy) queue(w http.ResponseWriter, r *http.Request, f Fault, release <-chan struct{}) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		drop(w)
		return
	}
	stop := p.watch(r)
	d := f.Delay
	if f.MaxDelay > f.Delay {
		d += rand.N(f.MaxDelay - f.Delay + 1)
	}
	t := time.NewTimer(d)
	select {
	case <-t.C:
	case <-release:
		t.Stop()
	}
	ctx := context.WithoutCancel(r.Context())
	fwd := r.Clone(ctx)
	fwd.Body = io.NopCloser(bytes.NewReader(body))
	answer := httptest.NewRecorder()
	p.forward.ServeHTTP(answer, fwd)
	stop()
	if r.Context().Err() != nil {
		p.answered(r)
		drop(w)
		return
	}
	relay(w, answer)
}

// wait sleeps d, or less if the fault changes first; it is false if the client went away meanwhile.
func wait(ctx context.Context, release <-chan struct{}, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-release:
		return ctx.Err() == nil
	case <-ctx.Done():
		return false
	}
}

func drop(w http.ResponseWriter) {
	hj, ok := w.(http.Hijacker)
	if !ok {
		panic(http.ErrAbortHandler) // net/http closes the connection without writing anything
	}
	conn, _, err := hj.Hijack()
	if err != nil {
		panic(http.ErrAbortHandler)
	}
	_ = conn.Close()
}
