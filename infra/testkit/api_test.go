package testkit

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
)

// drifted is a comments function that has drifted from openapi.yaml both ways: it answers every list
// request 200, whatever its query, and its 201 lacks a field the document requires.
var drifted = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Request-Id", "r")
	if r.Method == http.MethodPost {
		w.WriteHeader(http.StatusCreated)
		fmt.Fprint(w, `{"id":"6f1c1a52-6b1e-4a47-9d3e-0a3c5c6f1b01","content_type":"report"}`)
		return
	}
	fmt.Fprint(w, `{"count":0,"next":null,"previous":null,"results":[]}`)
})

// fatalRecorder is a testing.TB whose Fatalf is recorded rather than ending the test, so that a test
// can see Do refuse an exchange.
type fatalRecorder struct {
	testing.TB
	fatal string
}

func (r *fatalRecorder) Helper() {}

func (r *fatalRecorder) Fatalf(format string, args ...any) {
	if r.fatal == "" {
		r.fatal = fmt.Sprintf(format, args...)
	}
}

// TestDoHoldsTheExchangeToTheDocument: every request a suite sends through Do is validated against
// openapi.yaml with its answer, so a handler that drifts from the document fails the test that met it.
func TestDoHoldsTheExchangeToTheDocument(t *testing.T) {
	gw := Gateway(t, map[string]http.Handler{"CommentsFunction": drifted})
	const list = "/api/v1/comments/?content_type=report&object_id=0b8e4c2e-3d4f-4e55-8a66-7b8c9d0e1f02"
	for _, tc := range []struct {
		name string
		req  Request
		want string // in the failure; "" for none
	}{
		{"an allowed request, a described answer", Request{Method: "GET", Path: list, Token: "t"}, ""},
		{"page=last is allowed", Request{Method: "GET", Path: list + "&page=last", Token: "t"}, ""},
		{"through the stage", Request{Method: "GET", Path: "/Prod" + list, Token: "t"}, ""},
		{"a page the document forbids, answered 200", Request{Method: "GET", Path: list + "&page=first", Token: "t"},
			`the document forbids this request, yet it was answered 200: operation GET /api/v1/comments/: parameter "page"`},
		{"a list without its token, answered 200", Request{Method: "GET", Path: list},
			"the document forbids this request, yet it was answered 200"},
		{"an answer the document does not describe", Request{Method: "POST", Path: "/api/v1/comments/", Token: "t",
			Body: `{"content_type":"report","object_id":"0b8e4c2e-3d4f-4e55-8a66-7b8c9d0e1f02","text":"x"}`},
			`property "object_id" is missing`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := &fatalRecorder{TB: t}
			Do(rec, gw, tc.req)
			switch {
			case tc.want == "" && rec.fatal != "":
				t.Fatalf("Do refused a valid exchange: %s", rec.fatal)
			case tc.want != "" && !strings.Contains(rec.fatal, tc.want):
				t.Fatalf("Do's failure %q does not say %q", rec.fatal, tc.want)
			}
		})
	}
}
