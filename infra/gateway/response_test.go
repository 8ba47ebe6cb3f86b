package gateway

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/aws/aws-lambda-go/events"
)

func TestGatewayResponses(t *testing.T) {
	g := newTestGateway(t)
	tooLarge := strings.Repeat("x", MaxBodyBytes+1)
	tests := []struct {
		name       string
		req        func() *http.Request
		wantStatus int
		wantBody   string
		wantCT     string
	}{
		{"function answers nothing", func() *http.Request { return request{target: "/broken/silent"}.build() },
			http.StatusBadGateway, `{"detail": "A server error occurred."}`, "application/json"},
		{"function panics", func() *http.Request { return request{target: "/broken/panic"}.build() },
			http.StatusBadGateway, `{"detail": "A server error occurred."}`, "application/json"},
		{"body over the limit, length declared",
			func() *http.Request { return request{method: "POST", target: "/items", body: tooLarge}.build() },
			http.StatusRequestEntityTooLarge, `{"message":"Request Too Long"}`, "application/json"},
		{"body over the limit, length unknown", func() *http.Request {
			r := request{method: "POST", target: "/items", body: tooLarge}.build()
			r.ContentLength = -1
			return r
		}, http.StatusRequestEntityTooLarge, `{"message":"Request Too Long"}`, "application/json"},
		{"no Content-Type from the function", func() *http.Request { return request{target: "/items?status=204"}.build() },
			http.StatusNoContent, "", "application/json"},
		{"function status passes through", func() *http.Request { return request{target: "/items?status=418"}.build() },
			http.StatusTeapot, "", "application/json"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := serve(t, g, tt.req())
			if got.status != tt.wantStatus || got.body != tt.wantBody {
				t.Errorf("got %d %q, want %d %q", got.status, got.body, tt.wantStatus, tt.wantBody)
			}
			if ct := got.header.Get("Content-Type"); ct != tt.wantCT {
				t.Errorf("Content-Type = %q, want %q", ct, tt.wantCT)
			}
			if got.header.Get("X-Amzn-Requestid") == "" {
				t.Error("x-amzn-RequestId missing")
			}
		})
	}

	t.Run("body at the limit is accepted", func(t *testing.T) {
		got := do(t, g, request{method: "POST", target: "/items", body: strings.Repeat("x", MaxBodyBytes)})
		if got.status != http.StatusOK || len(got.echo.Body) != MaxBodyBytes {
			t.Errorf("status %d, echoed %d bytes", got.status, len(got.echo.Body))
		}
	})
	t.Run("multi-value response headers", func(t *testing.T) {
		got := do(t, g, request{target: "/items?cookies"})
		if cookies := got.header.Values("Set-Cookie"); !reflect.DeepEqual(cookies, []string{"a=1", "b=2"}) {
			t.Errorf("Set-Cookie = %v", cookies)
		}
	})
}

// TestWriteProxyResponse covers what the adapter never produces but a proxy response may hold:
// single-value headers merged with multi-value ones, and a base64 body.
func TestWriteProxyResponse(t *testing.T) {
	rec := httptest.NewRecorder()
	writeProxyResponse(rec, events.APIGatewayProxyResponse{
		StatusCode: 201,
		Headers: map[string]string{"X-A": "1", "X-B": "single", "Content-Type": "image/png",
			"Content-Length": "999"},
		MultiValueHeaders: map[string][]string{"X-A": {"1", "2"}},
		Body:              "/wAB",
		IsBase64Encoded:   true,
	}, "rid")
	res := rec.Result()
	body, _ := io.ReadAll(res.Body)
	if res.StatusCode != 201 || !bytes.Equal(body, []byte{0xff, 0x00, 0x01}) {
		t.Errorf("got %d %v", res.StatusCode, body)
	}
	want := http.Header{
		"X-A": {"1", "2"}, "X-B": {"single"}, "Content-Type": {"image/png"}, "X-Amzn-Requestid": {"rid"},
	}
	if !reflect.DeepEqual(res.Header, want) {
		t.Errorf("headers = %v, want %v", res.Header, want)
	}
}

func TestNewRefuses(t *testing.T) {
	ok := echoHandler("ok")
	tests := []struct {
		name     string
		routes   []Route
		handlers map[string]http.Handler
		stage    string
		wantErr  string
	}{
		{"route without handler",
			[]Route{{Function: "A", Method: "GET", Path: "/a"}, {Function: "B", Method: "GET", Path: "/b"}},
			map[string]http.Handler{"A": ok}, "Prod", `names function "B", which has no handler`},
		{"nil handler",
			[]Route{{Function: "A", Method: "GET", Path: "/a"}},
			map[string]http.Handler{"A": nil}, "Prod", "has no handler"},
		{"handler without route",
			[]Route{{Function: "A", Method: "GET", Path: "/a"}},
			map[string]http.Handler{"A": ok, "Ghost": ok}, "Prod", "no route for handler(s) Ghost"},
		{"same method twice",
			[]Route{{Function: "A", Method: "GET", Path: "/a"}, {Function: "B", Method: "GET", Path: "/a/"}},
			map[string]http.Handler{"A": ok, "B": ok}, "Prod", "already served by A"},
		{"siblings naming a parameter differently",
			[]Route{{Function: "A", Method: "GET", Path: "/a/{id}"}, {Function: "A", Method: "POST", Path: "/a/{pk}"}},
			map[string]http.Handler{"A": ok}, "Prod", "conflicts with sibling resource /a/{id}"},
		{"greedy not last",
			[]Route{{Function: "A", Method: "GET", Path: "/a/{p+}/b"}},
			map[string]http.Handler{"A": ok}, "Prod", "must be the last segment"},
		{"unknown method",
			[]Route{{Function: "A", Method: "FETCH", Path: "/a"}},
			map[string]http.Handler{"A": ok}, "Prod", "unknown method"},
		{"empty stage",
			[]Route{{Function: "A", Method: "GET", Path: "/a"}},
			map[string]http.Handler{"A": ok}, "", "invalid stage name"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g, err := New(tt.routes, tt.handlers, tt.stage)
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("New = %v, %v; want an error containing %q", g, err, tt.wantErr)
			}
		})
	}
}

// TestConcurrentOverHTTP runs the gateway behind a real HTTP server, as the local server does, with
// concurrent clients: under -race this checks that New built everything requests share.
func TestConcurrentOverHTTP(t *testing.T) {
	srv := httptest.NewServer(newTestGateway(t))
	defer srv.Close()
	const clients = 16
	var wg sync.WaitGroup
	ids := make([]string, clients)
	errs := make(chan error, clients)
	for i := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			body := fmt.Sprintf(`{"n":%d}`, i)
			resp, err := http.Post(fmt.Sprintf("%s/items/%d/?n=%d", srv.URL, i, i), "application/json", strings.NewReader(body))
			if err != nil {
				errs <- err
				return
			}
			defer resp.Body.Close()
			var e echo
			if err := json.NewDecoder(resp.Body).Decode(&e); err != nil {
				errs <- fmt.Errorf("client %d: status %d: decode: %w", i, resp.StatusCode, err)
				return
			}
			wantPath := fmt.Sprintf("/items/%d/", i)
			if e.Path != wantPath || string(e.Body) != body || e.Query["n"][0] != fmt.Sprint(i) ||
				e.Context.Identity.SourceIP != "127.0.0.1" {
				errs <- fmt.Errorf("client %d: echo %+v", i, e)
				return
			}
			ids[i] = e.Context.RequestID
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	seen := map[string]bool{}
	for _, id := range ids {
		if id == "" || seen[id] {
			t.Errorf("request ids %v are not all set and distinct", ids)
			break
		}
		seen[id] = true
	}

	resp, err := http.Get(srv.URL + "/nope")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusNotFound || string(body) != wantNotFound || resp.Header.Get("X-Request-Id") == "" {
		t.Errorf("GET /nope = %d %q, X-Request-Id %q", resp.StatusCode, body, resp.Header.Get("X-Request-Id"))
	}
}
