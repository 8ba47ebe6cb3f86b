package gateway

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"

	"github.com/aws/aws-lambda-go/events"
	"github.com/awslabs/aws-lambda-go-api-proxy/core"
)

// echo is what the test functions saw of a request once it went through the gateway and the
// Lambda proxy adapter.
type echo struct {
	Function   string                               `json:"function"`
	Method     string                               `json:"method"`
	Path       string                               `json:"path"`
	RawPath    string                               `json:"rawPath"`
	Host       string                               `json:"host"`
	Query      map[string][]string                  `json:"query"`
	Headers    map[string][]string                  `json:"headers"`
	Body       []byte                               `json:"body"`
	HasContext bool                                 `json:"hasContext"`
	Context    events.APIGatewayProxyRequestContext `json:"context"`
}

// echoedHeaders are the request headers the test functions report back.
var echoedHeaders = []string{"X-Custom", "Content-Type", "X-Forwarded-For", "X-Forwarded-Proto",
	"X-Forwarded-Port", "Host"}

// echoHandler stands in for a function: it reports what it received as JSON. The paths under
// /broken misbehave the ways a function can: answering nothing, or panicking. A "status" query
// parameter makes it answer that status with no body and no Content-Type; "cookies" makes it set
// two Set-Cookie headers.
func echoHandler(function string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/broken/silent":
			return
		case "/broken/panic":
			panic("function crashed")
		}
		if s := r.URL.Query().Get("status"); s != "" {
			code, _ := strconv.Atoi(s)
			w.WriteHeader(code)
			return
		}
		if r.URL.Query().Has("cookies") {
			w.Header().Add("Set-Cookie", "a=1")
			w.Header().Add("Set-Cookie", "b=2")
		}
		body, _ := io.ReadAll(r.Body)
		e := echo{
			Function: function,
			Method:   r.Method,
			Path:     r.URL.Path,
			RawPath:  r.URL.EscapedPath(),
			Host:     r.Host,
			Query:    r.URL.Query(),
			Headers:  map[string][]string{},
			Body:     body,
		}
		for _, h := range echoedHeaders {
			if vs := r.Header.Values(h); len(vs) > 0 {
				e.Headers[h] = vs
			}
		}
		e.Context, e.HasContext = core.GetAPIGatewayContextFromContext(r.Context())
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(e)
	})
}

// newTestGateway wires every function of testTemplate to an echo handler.
func newTestGateway(t *testing.T) *Gateway {
	t.Helper()
	routes, err := ParseRoutes([]byte(testTemplate))
	if err != nil {
		t.Fatalf("ParseRoutes: %v", err)
	}
	handlers := map[string]http.Handler{}
	for _, rt := range routes {
		handlers[rt.Function] = echoHandler(rt.Function)
	}
	g, err := New(routes, handlers, "Prod")
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return g
}

type request struct {
	method string
	target string
	body   string
	header http.Header
}

func (rq request) build() *http.Request {
	method := rq.method
	if method == "" {
		method = http.MethodGet
	}
	var body io.Reader
	if rq.body != "" {
		body = bytes.NewBufferString(rq.body)
	}
	r := httptest.NewRequest(method, rq.target, body)
	for k, vs := range rq.header {
		for _, v := range vs {
			r.Header.Add(k, v)
		}
	}
	return r
}

type response struct {
	status int
	header http.Header
	body   string
	echo   echo // decoded when the body is an echo
}

func do(t *testing.T, g *Gateway, rq request) response {
	t.Helper()
	return serve(t, g, rq.build())
}

func serve(t *testing.T, g *Gateway, r *http.Request) response {
	t.Helper()
	rec := httptest.NewRecorder()
	g.ServeHTTP(rec, r)
	res := response{status: rec.Code, header: rec.Header(), body: rec.Body.String()}
	if rec.Header().Get("Content-Type") == "application/json" && rec.Code == http.StatusOK {
		if err := json.Unmarshal(rec.Body.Bytes(), &res.echo); err != nil {
			t.Fatalf("decode echo %q: %v", rec.Body.String(), err)
		}
	}
	return res
}
