package gateway

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
)

const wantNotFound = `{"detail": "Not found."}`

func TestServeHTTPRouting(t *testing.T) {
	g := newTestGateway(t)
	tests := []struct {
		name         string
		req          request
		wantStatus   int
		wantFunction string // "" when the gateway answers 404 itself
		wantPath     string // the path the function saw
		wantResource string
	}{
		{"literal route", request{target: "/items"}, 200, "ItemsFunction", "/items", "/items"},
		{"method on the same resource", request{method: "POST", target: "/items", body: "{}"}, 200, "ItemsFunction",
			"/items", "/items"},
		{"request trailing slash", request{target: "/items/"}, 200, "ItemsFunction", "/items/", "/items"},
		{"path parameter", request{target: "/items/42"}, 200, "ItemsFunction", "/items/42", "/items/{id}"},
		{"path parameter trailing slash", request{target: "/items/42/"}, 200, "ItemsFunction", "/items/42/", "/items/{id}"},
		{"encoded path parameter", request{target: "/items/a%2Fb%20c"}, 200, "ItemsFunction", "/items/a/b c", "/items/{id}"},
		{"declared trailing slash, requested without", request{target: "/slash"}, 200, "SlashFunction", "/slash", "/slash/"},
		{"declared trailing slash, requested with", request{target: "/slash/"}, 200, "SlashFunction", "/slash/", "/slash/"},
		{"ANY serves DELETE", request{method: "DELETE", target: "/items/42"}, 200, "ItemsFunction", "/items/42",
			"/items/{id}"},
		{"ANY serves PATCH", request{method: "PATCH", target: "/items/42", body: "{}"}, 200, "ItemsFunction",
			"/items/42", "/items/{id}"},
		{"ANY serves OPTIONS", request{method: "OPTIONS", target: "/items/42"}, 200, "ItemsFunction", "/items/42",
			"/items/{id}"},
		{"greedy parameter", request{target: "/files/a/b/c.txt"}, 200, "FilesFunction", "/files/a/b/c.txt",
			"/files/{proxy+}"},
		{"stage in the URL", request{target: "/Prod/items/42"}, 200, "ItemsFunction", "/items/42", "/items/{id}"},
		{"unknown path", request{target: "/nope"}, 404, "", "", ""},
		{"root", request{target: "/"}, 404, "", "", ""},
		{"undeclared method on a declared path", request{method: "PUT", target: "/items", body: "{}"}, 404, "", "", ""},
		{"undeclared method on a slash-declared path", request{method: "POST", target: "/slash/"}, 404, "", "", ""},
		{"two trailing slashes", request{target: "/items//"}, 404, "", "", ""},
		{"extra segment", request{target: "/items/42/more"}, 404, "", "", ""},
		{"empty parameter segment", request{target: "/items//x"}, 404, "", "", ""},
		{"greedy needs a segment", request{target: "/files/"}, 404, "", "", ""},
		{"greedy parent is not a resource", request{target: "/files"}, 404, "", "", ""},
		{"stage alone", request{target: "/Prod"}, 404, "", "", ""},
		{"other stage", request{target: "/Dev/items"}, 404, "", "", ""},
		{"prefix of a literal", request{target: "/item"}, 404, "", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := do(t, g, tt.req)
			if got.status != tt.wantStatus {
				t.Fatalf("status = %d, want %d; body %s", got.status, tt.wantStatus, got.body)
			}
			if tt.wantFunction == "" {
				if got.body != wantNotFound {
					t.Errorf("body = %q, want %q", got.body, wantNotFound)
				}
				if ct := got.header.Get("Content-Type"); ct != "application/json" {
					t.Errorf("Content-Type = %q, want application/json", ct)
				}
				if got.header.Get("X-Request-Id") == "" {
					t.Error("X-Request-Id missing on the gateway's 404")
				}
				return
			}
			e := got.echo
			if e.Function != tt.wantFunction || e.Path != tt.wantPath || e.Context.ResourcePath != tt.wantResource {
				t.Errorf("served by %s at %q resource %q; want %s at %q resource %q",
					e.Function, e.Path, e.Context.ResourcePath, tt.wantFunction, tt.wantPath, tt.wantResource)
			}
			if method := tt.req.method; method != "" && e.Method != method {
				t.Errorf("method = %s, want %s", e.Method, method)
			}
		})
	}
}

func TestPathParameters(t *testing.T) {
	g := newTestGateway(t)
	tests := []struct {
		target string
		want   map[string]string
	}{
		{"/items/42", map[string]string{"id": "42"}},
		{"/items/42/", map[string]string{"id": "42"}},
		{"/items/a%2Fb%20c", map[string]string{"id": "a/b c"}},
		{"/items/caf%C3%A9", map[string]string{"id": "café"}},
		{"/files/a/b/c.txt", map[string]string{"proxy": "a/b/c.txt"}},
		{"/files/a/b/", map[string]string{"proxy": "a/b/"}},
		{"/Prod/items/7", map[string]string{"id": "7"}},
		{"/items", nil},
	}
	for _, tt := range tests {
		t.Run(tt.target, func(t *testing.T) {
			ev, _, ok := g.Event(httptest.NewRequest(http.MethodGet, tt.target, nil), nil)
			if !ok {
				t.Fatal("no route matched")
			}
			if !reflect.DeepEqual(ev.PathParameters, tt.want) {
				t.Errorf("PathParameters = %#v, want %#v", ev.PathParameters, tt.want)
			}
		})
	}
}

// TestSpecificity checks that a literal resource wins over a parameter and a parameter over a
// greedy one, whatever the declaration order, and that a matched resource without the method is
// not skipped for a less specific one.
func TestSpecificity(t *testing.T) {
	routes := []Route{
		{Function: "Greedy", Method: "ANY", Path: "/a/{proxy+}"},
		{Function: "Param", Method: "ANY", Path: "/a/{id}"},
		{Function: "Literal", Method: "GET", Path: "/a/me"},
	}
	handlers := map[string]http.Handler{}
	for _, rt := range routes {
		handlers[rt.Function] = echoHandler(rt.Function)
	}
	g, err := New(routes, handlers, "Prod")
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	tests := []struct {
		method, target, want string
	}{
		{"GET", "/a/me", "Literal"},
		{"POST", "/a/me", ""},
		{"GET", "/a/42", "Param"},
		{"GET", "/a/42/x", "Greedy"},
	}
	for _, tt := range tests {
		t.Run(tt.method+" "+tt.target, func(t *testing.T) {
			_, fn, ok := g.Event(httptest.NewRequest(tt.method, tt.target, nil), nil)
			if fn != tt.want || ok != (tt.want != "") {
				t.Errorf("matched %q (ok=%v), want %q", fn, ok, tt.want)
			}
		})
	}
}

func TestEventFields(t *testing.T) {
	g := newTestGateway(t)
	r := httptest.NewRequest(http.MethodPost, "/Prod/items/42/?tag=a&tag=b&q=x%20y&empty", strings.NewReader(`{"a":1}`))
	r.Header.Add("X-Custom", "first")
	r.Header.Add("X-Custom", "second")
	r.Header.Set("X-Forwarded-For", "203.0.113.9")
	r.Header.Set("User-Agent", "test-agent")
	ev, fn, ok := g.Event(r, []byte(`{"a":1}`))
	if !ok || fn != "ItemsFunction" {
		t.Fatalf("Event matched %q, %v; want ItemsFunction", fn, ok)
	}
	checks := []struct {
		name      string
		got, want any
	}{
		{"HTTPMethod", ev.HTTPMethod, "POST"},
		{"Path", ev.Path, "/items/42/"},
		{"Resource", ev.Resource, "/items/{id}"},
		{"Body", ev.Body, `{"a":1}`},
		{"IsBase64Encoded", ev.IsBase64Encoded, false},
		{"QueryStringParameters", ev.QueryStringParameters, map[string]string{"tag": "b", "q": "x y", "empty": ""}},
		{"MultiValueQueryStringParameters", ev.MultiValueQueryStringParameters,
			map[string][]string{"tag": {"a", "b"}, "q": {"x y"}, "empty": {""}}},
		{"Headers[X-Custom]", ev.Headers["X-Custom"], "second"},
		{"MultiValueHeaders[X-Custom]", ev.MultiValueHeaders["X-Custom"], []string{"first", "second"}},
		{"Headers[Host]", ev.Headers["Host"], "example.com"},
		{"Headers[X-Forwarded-For]", ev.Headers["X-Forwarded-For"], "203.0.113.9, 192.0.2.1"},
		{"Headers[X-Forwarded-Proto]", ev.Headers["X-Forwarded-Proto"], "http"},
		{"Headers[X-Forwarded-Port]", ev.Headers["X-Forwarded-Port"], "80"},
		{"RequestContext.Stage", ev.RequestContext.Stage, "Prod"},
		{"RequestContext.Path", ev.RequestContext.Path, "/Prod/items/42/"},
		{"RequestContext.ResourcePath", ev.RequestContext.ResourcePath, "/items/{id}"},
		{"RequestContext.HTTPMethod", ev.RequestContext.HTTPMethod, "POST"},
		{"RequestContext.DomainName", ev.RequestContext.DomainName, "example.com"},
		{"RequestContext.Identity.SourceIP", ev.RequestContext.Identity.SourceIP, "192.0.2.1"},
		{"RequestContext.Identity.UserAgent", ev.RequestContext.Identity.UserAgent, "test-agent"},
		{"RequestID set", ev.RequestContext.RequestID != "", true},
		{"RequestTimeEpoch set", ev.RequestContext.RequestTimeEpoch > 0, true},
	}
	for _, c := range checks {
		t.Run(c.name, func(t *testing.T) {
			if !reflect.DeepEqual(c.got, c.want) {
				t.Errorf("got %#v, want %#v", c.got, c.want)
			}
		})
	}

	t.Run("without stage, query or body", func(t *testing.T) {
		ev, _, _ := g.Event(httptest.NewRequest(http.MethodGet, "/items", nil), nil)
		if ev.QueryStringParameters != nil || ev.MultiValueQueryStringParameters != nil {
			t.Errorf("query maps = %#v, %#v; want nil as API Gateway sends null", ev.QueryStringParameters,
				ev.MultiValueQueryStringParameters)
		}
		if ev.Path != "/items" || ev.RequestContext.Path != "/items" || ev.Body != "" || ev.IsBase64Encoded {
			t.Errorf("Path %q, RequestContext.Path %q, Body %q base64 %v", ev.Path, ev.RequestContext.Path, ev.Body,
				ev.IsBase64Encoded)
		}
	})
	t.Run("binary body", func(t *testing.T) {
		ev, _, _ := g.Event(httptest.NewRequest(http.MethodPost, "/items", nil), []byte{0xff, 0x00, 0x01})
		if !ev.IsBase64Encoded || ev.Body != "/wAB" {
			t.Errorf("Body %q base64 %v, want /wAB true", ev.Body, ev.IsBase64Encoded)
		}
	})
	t.Run("request ids differ", func(t *testing.T) {
		a, _, _ := g.Event(httptest.NewRequest(http.MethodGet, "/items", nil), nil)
		b, _, _ := g.Event(httptest.NewRequest(http.MethodGet, "/items", nil), nil)
		if a.RequestContext.RequestID == b.RequestContext.RequestID {
			t.Errorf("two requests share request id %s", a.RequestContext.RequestID)
		}
	})
	t.Run("no route", func(t *testing.T) {
		if _, fn, ok := g.Event(httptest.NewRequest(http.MethodGet, "/nope", nil), nil); ok || fn != "" {
			t.Errorf("Event matched %q for an unknown path", fn)
		}
	})
}

// TestFunctionSees checks what reaches the function through the Lambda proxy adapter, which is
// what the functions' own code will see once deployed.
func TestFunctionSees(t *testing.T) {
	g := newTestGateway(t)
	tests := []struct {
		name  string
		req   request
		check func(t *testing.T, e echo)
	}{
		{"API Gateway context", request{target: "/items/42"}, func(t *testing.T, e echo) {
			c := e.Context
			if !e.HasContext || c.Stage != "Prod" || c.RequestID == "" || c.ResourcePath != "/items/{id}" ||
				c.Path != "/items/42" || c.Identity.SourceIP != "192.0.2.1" {
				t.Errorf("context = %+v (present %v)", c, e.HasContext)
			}
		}},
		{"stage kept in the context path only", request{target: "/Prod/items/42"}, func(t *testing.T, e echo) {
			if e.Path != "/items/42" || e.Context.Path != "/Prod/items/42" {
				t.Errorf("path %q, context path %q", e.Path, e.Context.Path)
			}
		}},
		{"multi-value query", request{target: "/items?tag=a&tag=b&q=x%20y"}, func(t *testing.T, e echo) {
			want := map[string][]string{"tag": {"a", "b"}, "q": {"x y"}}
			if !reflect.DeepEqual(e.Query, want) {
				t.Errorf("query = %v, want %v", e.Query, want)
			}
		}},
		{"semicolon in a query value", request{target: "/items?tag=t;x&q=1"}, func(t *testing.T, e echo) {
			want := map[string][]string{"tag": {"t;x"}, "q": {"1"}}
			if !reflect.DeepEqual(e.Query, want) {
				t.Errorf("query = %v, want %v", e.Query, want)
			}
		}},
		{"headers",
			request{target: "/items", header: http.Header{"X-Custom": {"one", "two"}, "X-Forwarded-Proto": {"https"}}},
			func(t *testing.T, e echo) {
				want := map[string][]string{
					"X-Custom":          {"one", "two"},
					"X-Forwarded-For":   {"192.0.2.1"},
					"X-Forwarded-Proto": {"https"},
					"X-Forwarded-Port":  {"443"},
					"Host":              {"example.com"},
				}
				if !reflect.DeepEqual(e.Headers, want) || e.Host != "example.com" {
					t.Errorf("headers = %v host %q, want %v", e.Headers, e.Host, want)
				}
			}},
		{"body",
			request{method: "POST", target: "/items", body: `{"name":"x"}`,
				header: http.Header{"Content-Type": {"application/json"}}}, func(t *testing.T, e echo) {
				if string(e.Body) != `{"name":"x"}` || e.Method != "POST" || e.Headers["Content-Type"][0] != "application/json" {
					t.Errorf("body %q method %s headers %v", e.Body, e.Method, e.Headers)
				}
			}},
		{"binary body", request{method: "POST", target: "/items", body: "\xff\x00\x01"}, func(t *testing.T, e echo) {
			if !bytes.Equal(e.Body, []byte{0xff, 0x00, 0x01}) {
				t.Errorf("body = %v", e.Body)
			}
		}},
		{"encoded path", request{target: "/items/a%2Fb"}, func(t *testing.T, e echo) {
			if e.Path != "/items/a/b" || e.RawPath != "/items/a%2Fb" {
				t.Errorf("path %q raw %q", e.Path, e.RawPath)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := do(t, g, tt.req)
			if got.status != http.StatusOK {
				t.Fatalf("status = %d, body %s", got.status, got.body)
			}
			tt.check(t, got.echo)
		})
	}
}
