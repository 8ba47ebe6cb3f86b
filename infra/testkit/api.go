package testkit

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/reportingplatform/api/infra/contract"
	"github.com/reportingplatform/api/infra/gateway"
)

// Gateway returns template.yaml's API in front of the given functions (logical id → handler), built by
// the same code `make run` uses: every request becomes the API Gateway event the deployed function
// would get and goes through aws-lambda-go-api-proxy's adapter into the handler.
//
// It lifts each function's request budget (httpapi.RequestBudget, 2 s) to TestBudget: tests share two
// cores with DynamoDB Local, the race detector and other packages' tests (a hundred argon2id hashes at
// once, say), where a request can wait seconds for the CPU, which is not what they test. GatewayAsDeployed
// keeps the budget, for the tests that hold the service to its time limits.
func Gateway(tb testing.TB, handlers map[string]http.Handler) *gateway.Gateway {
	tb.Helper()
	for _, h := range handlers {
		if b, ok := h.(interface{ SetBudget(time.Duration) }); ok {
			b.SetBudget(TestBudget)
		}
	}
	return GatewayAsDeployed(tb, handlers)
}

// TestBudget is the request budget of functions behind Gateway.
const TestBudget = time.Minute

// GatewayAsDeployed is Gateway with each function's request budget as deployed.
func GatewayAsDeployed(tb testing.TB, handlers map[string]http.Handler) *gateway.Gateway {
	tb.Helper()
	path, err := gateway.FindTemplate()
	if err != nil {
		tb.Fatalf("find template.yaml: %v", err)
	}
	routes, err := gateway.LoadRoutes(path)
	if err != nil {
		tb.Fatalf("load routes: %v", err)
	}
	var mine []gateway.Route
	for _, r := range routes {
		if handlers[r.Function] != nil {
			mine = append(mine, r)
		}
	}
	gw, err := gateway.New(mine, handlers, "Prod")
	if err != nil {
		tb.Fatalf("gateway: %v", err)
	}
	return gw
}

// Response is what a client got.
type Response struct {
	Status int
	Header http.Header
	Body   []byte
}

// Request is one call to the API. Body is sent as is; a non-empty body gets Content-Type
// application/json unless Header sets one.
type Request struct {
	Method string
	Path   string // with its query, e.g. "/api/v1/comments/?page=2"
	Token  string // sent as "Authorization: Bearer <token>" when not empty
	Body   string
	Header map[string]string
	Host   string // the Host the client called; default 127.0.0.1:3000
	// RemoteAddr is the client's address ("ip:port"), which API Gateway reports as the source IP;
	// default httptest's 192.0.2.1:1234.
	RemoteAddr string
}

// HTTP is the request a client sends for req, as Do sends it (a benchmark that must not pay Do's checks
// sends it itself).
func (req Request) HTTP() *http.Request {
	r := httptest.NewRequest(req.Method, "http://127.0.0.1:3000"+req.Path, strings.NewReader(req.Body))
	if req.Body != "" {
		r.Header.Set("Content-Type", "application/json")
	}
	if req.Token != "" {
		r.Header.Set("Authorization", "Bearer "+req.Token)
	}
	for k, v := range req.Header {
		r.Header.Set(k, v)
	}
	if req.Host != "" {
		r.Host = req.Host
	}
	if req.RemoteAddr != "" {
		r.RemoteAddr = req.RemoteAddr
	}
	return r
}

// Do sends req through h (a Gateway) and holds the exchange to openapi.yaml both ways
// (contract.ValidateExchange): the response must be one the document describes, and a request the
// document forbids must not succeed.
//
// Every secret the request and response carry (the bearer token, passwords of the body, tokens of the
// response) is registered for Main's search of the logs; the URL is public text (see secretSet).
func Do(tb testing.TB, h http.Handler, req Request) Response {
	tb.Helper()
	secrets.publicURL(req.Path)
	secrets.credential(req.Token)
	secrets.requestBody(req.Body)
	for k, v := range req.Header {
		if strings.EqualFold(k, "Authorization") {
			_, credential, _ := strings.Cut(v, " ")
			secrets.credential(credential)
		}
	}
	w := httptest.NewRecorder()
	sent := req.HTTP()
	header := sent.Header.Clone() // before the handler sees (and may change) the request
	h.ServeHTTP(w, sent)
	resp := Response{Status: w.Code, Header: w.Header(), Body: w.Body.Bytes()}
	secrets.responseBody(resp.Body)
	u, err := url.Parse(req.Path)
	if err != nil {
		tb.Fatalf("bad path %q: %v", req.Path, err)
	}
	// openapi.yaml knows paths without the stage a client may put in front ("/Prod/api/v1/...").
	path := u.Path
	if i := strings.Index(path, "/api/"); i > 0 {
		path = path[i:]
	}
	contract.ValidateExchange(tb,
		contract.Request{Method: req.Method, Path: path, Query: u.Query(), Header: header, Body: []byte(req.Body)},
		contract.Response{Status: resp.Status, Header: resp.Header, Body: resp.Body})
	if resp.Header.Get("X-Request-Id") == "" {
		tb.Fatalf("%s %s: response without X-Request-Id", req.Method, req.Path)
	}
	return resp
}

// Object decodes the body as a JSON object.
func (r Response) Object(tb testing.TB) map[string]any {
	tb.Helper()
	var m map[string]any
	if err := json.Unmarshal(r.Body, &m); err != nil {
		tb.Fatalf("body is not a JSON object: %v: %s", err, r.Body)
	}
	return m
}

// Expect fails unless the response has status and a body equal to want as JSON (key order and white
// space aside).
func (r Response) Expect(tb testing.TB, status int, want string) {
	tb.Helper()
	if r.Status != status {
		tb.Fatalf("status %d, want %d; body %s", r.Status, status, r.Body)
	}
	if !JSONEqual(r.Body, []byte(want)) {
		tb.Fatalf("body\n  %s\nwant\n  %s", r.Body, want)
	}
}

// JSONEqual compares two JSON documents by value.
func JSONEqual(a, b []byte) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	xa, _ := json.Marshal(x)
	ya, _ := json.Marshal(y)
	return bytes.Equal(xa, ya)
}

// MustJSON marshals v or fails.
func MustJSON(tb testing.TB, v any) string {
	tb.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		tb.Fatal(err)
	}
	return string(b)
}
