package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"
)

// The Lambda Runtime API (https://docs.aws.amazon.com/lambda/latest/dg/runtimes-api.html) as a
// bootstrap sees it, for one execution environment: one process, one invocation at a time. Only
// the parts aws-lambda-go uses are served; a bootstrap that calls anything else gets a 404 and
// fails the run, which is what should happen when the protocol moves on.
const (
	apiVersion            = "2018-06-01"
	headerRequestID       = "Lambda-Runtime-Aws-Request-Id"
	headerDeadline        = "Lambda-Runtime-Deadline-Ms"
	headerFunctionARN     = "Lambda-Runtime-Invoked-Function-Arn"
	headerTraceID         = "Lambda-Runtime-Trace-Id"
	headerErrorType       = "Lambda-Runtime-Function-Error-Type"
	functionTimeout       = 10 * time.Second // template.yaml's Globals.Function.Timeout
	functionARNFormat     = "arn:aws:lambda:us-east-1:123456789012:function:%s"
	maxResponseBytes      = 6 << 20 // Lambda's synchronous response limit
	acceptedBody          = `{"status":"OK"}`
	invalidRequestIDError = `{"errorMessage":"Invalid request ID","errorType":"InvalidRequestID"}`
)

// RuntimeAPI serves the Runtime API to one bootstrap process on a loopback port.
type RuntimeAPI struct {
	// Addr is host:port, the value of AWS_LAMBDA_RUNTIME_API.
	Addr     string
	function string
	srv      *http.Server
	queue    chan *invocation
	closed   chan struct{}
	initErr  chan string // receives the body of POST /runtime/init/error
	once     sync.Once
	mu       sync.Mutex
	inflight map[string]*invocation
	// firstNext is when the runtime first asked for work: the end of its init phase.
	firstNext time.Time
}

type invocation struct {
	id      string
	payload []byte
	done    chan Result
}

// Result is what the runtime answered to one invocation.
type Result struct {
	Body []byte
	// ErrorType is set when the runtime posted to …/error (or sent the error trailer): the invocation
	// failed and Body is the error document.
	ErrorType string
	// Received is when the whole answer had arrived.
	Received time.Time
}

// StartRuntimeAPI listens on a free loopback port for the bootstrap of function.
func StartRuntimeAPI(function string) (*RuntimeAPI, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("runtime API: listen: %w", err)
	}
	r := &RuntimeAPI{
		Addr:     ln.Addr().String(),
		function: function,
		queue:    make(chan *invocation),
		closed:   make(chan struct{}),
		initErr:  make(chan string, 1),
		inflight: make(map[string]*invocation),
	}
	prefix := "/" + apiVersion + "/runtime"
	mux := http.NewServeMux()
	mux.HandleFunc("GET "+prefix+"/invocation/next", r.next)
	mux.HandleFunc("POST "+prefix+"/invocation/{id}/response", r.answer(""))
	mux.HandleFunc("POST "+prefix+"/invocation/{id}/error", r.answer("Unhandled"))
	mux.HandleFunc("POST "+prefix+"/init/error", r.initError)
	r.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = r.srv.Serve(ln) }()
	return r, nil
}

// Close stops the server; a runtime blocked in next gets its connection closed, as when Lambda
// freezes and then shuts down the environment.
func (r *RuntimeAPI) Close() {
	r.once.Do(func() {
		close(r.closed)
		_ = r.srv.Close()
	})
}

// InitDone is when the runtime first asked for an invocation (zero before that).
func (r *RuntimeAPI) InitDone() time.Time {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.firstNext
}

// Invoke hands payload to the runtime as the next invocation and waits for its answer. It fails when
// ctx ends, the runtime reports an init error, or the server is closed (the process died).
func (r *RuntimeAPI) Invoke(ctx context.Context, payload []byte) (Result, error) {
	inv := &invocation{id: uuid.NewString(), payload: payload, done: make(chan Result, 1)}
	r.mu.Lock()
	r.inflight[inv.id] = inv
	r.mu.Unlock()
	defer func() {
		r.mu.Lock()
		delete(r.inflight, inv.id)
		r.mu.Unlock()
	}()
	select {
	case r.queue <- inv:
	case <-ctx.Done():
		return Result{}, fmt.Errorf("invoke %s: runtime never asked for it: %w", r.function, ctx.Err())
	case body := <-r.initErr:
		return Result{}, fmt.Errorf("invoke %s: init error: %s", r.function, body)
	case <-r.closed:
		return Result{}, fmt.Errorf("invoke %s: runtime API closed", r.function)
	}
	select {
	case res := <-inv.done:
		return res, nil
	case <-ctx.Done():
		return Result{}, fmt.Errorf("invoke %s: no answer: %w", r.function, ctx.Err())
	case <-r.closed:
		return Result{}, fmt.Errorf("invoke %s: runtime API closed before the answer", r.function)
	}
}

// next blocks until there is work, then hands over one invocation with the headers Lambda sends.
func (r *RuntimeAPI) next(w http.ResponseWriter, req *http.Request) {
	r.mu.Lock()
	if r.firstNext.IsZero() {
		r.firstNext = time.Now()
	}
	r.mu.Unlock()
	select {
	case inv := <-r.queue:
		h := w.Header()
		h.Set(headerRequestID, inv.id)
		h.Set(headerDeadline, strconv.FormatInt(time.Now().Add(functionTimeout).UnixMilli(), 10))
		h.Set(headerFunctionARN, fmt.Sprintf(functionARNFormat, r.function))
		h.Set(headerTraceID,
			"Root=1-"+strconv.FormatInt(time.Now().Unix(), 16)+"-"+strings.ReplaceAll(inv.id, "-", "")[:24]+";Sampled=0")
		h.Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write(inv.payload)
	case <-req.Context().Done():
	case <-r.closed:
	}
}

// answer takes the invocation's response (errorType "") or error document. aws-lambda-go streams the
// response and, when producing it fails half-way, says so in a trailer instead of the status.
func (r *RuntimeAPI) answer(errorType string) http.HandlerFunc {
	return func(w http.ResponseWriter, req *http.Request) {
		body, err := io.ReadAll(http.MaxBytesReader(w, req.Body, maxResponseBytes))
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			http.Error(w, `{"errorMessage":"Response payload too large","errorType":"RequestEntityTooLarge"}`,
				http.StatusRequestEntityTooLarge)
			return
		}
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		res := Result{Body: body, ErrorType: errorType, Received: time.Now()}
		if t := req.Trailer.Get(headerErrorType); t != "" {
			res.ErrorType = t
		} else if t := req.Header.Get(headerErrorType); t != "" && errorType != "" {
			res.ErrorType = t
		}
		r.mu.Lock()
		inv, ok := r.inflight[req.PathValue("id")]
		if ok {
			delete(r.inflight, inv.id)
		}
		r.mu.Unlock()
		if !ok {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			_, _ = io.WriteString(w, invalidRequestIDError)
			return
		}
		inv.done <- res
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusAccepted)
		_, _ = io.WriteString(w, acceptedBody)
	}
}

func (r *RuntimeAPI) initError(w http.ResponseWriter, req *http.Request) {
	body, _ := io.ReadAll(io.LimitReader(req.Body, maxResponseBytes))
	select {
	case r.initErr <- string(body):
	default:
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusAccepted)
	_, _ = io.WriteString(w, acceptedBody)
}
