package httpapi

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/reportingplatform/api/shared/domain"
)

func TestRouter(t *testing.T) {
	rt := NewRouter(slog.Default()) // captured by testkit.Main
	rt.HandleOpen("GET", "/api/v1/things/{id}/", func(w http.ResponseWriter, r *http.Request) error {
		WriteJSON(w, 200, map[string]string{"id": r.PathValue("id")})
		return nil
	})
	rt.HandleOpen("PATCH", "/api/v1/things/{id}/", func(w http.ResponseWriter, r *http.Request) error {
		return domain.FieldError("name", "This field is required.")
	})
	rt.HandleOpen("GET", "/api/v1/boom", func(w http.ResponseWriter, r *http.Request) error { panic("secret detail") })
	rt.HandleOpen("GET", "/api/v1/fault",
		func(w http.ResponseWriter, r *http.Request) error { return errors.New("secret detail") })
	rt.HandleOpen("GET", "/api/v1/silent", func(w http.ResponseWriter, r *http.Request) error { return nil })
	rt.HandleOpen("GET", "/api/v1/busy", func(w http.ResponseWriter, r *http.Request) error {
		return &domain.Error{Code: domain.EUNAVAILABLE, Err: errors.New("throttled")}
	})
	for _, tc := range []struct {
		method, path string
		status       int
		body, allow  string
	}{
		{"GET", "/api/v1/things/42/", 200, `{"id":"42"}`, ""},
		{"GET", "/api/v1/things/42", 200, `{"id":"42"}`, ""},
		{"PATCH", "/api/v1/things/42/", 400, `{"name":["This field is required."]}`, ""},
		{"DELETE", "/api/v1/things/42/", 405, `{"detail":"Method \"DELETE\" not allowed."}`, "GET, HEAD, PATCH"},
		{"HEAD", "/api/v1/things/42/", 200, ``, ""},
		{"GET", "/api/v1/things/", 404, `{"detail":"Not found."}`, ""},
		{"GET", "/api/v1/things/42/extra/", 404, `{"detail":"Not found."}`, ""},
		{"GET", "/api/v1/things/42//", 404, `{"detail":"Not found."}`, ""},
		{"GET", "/api/v1/things//", 404, `{"detail":"Not found."}`, ""},
		{"GET", "/api/v1/things/42%2F/", 404, `{"detail":"Not found."}`, ""},
		{"GET", "//api/v1/things/42/", 404, `{"detail":"Not found."}`, ""},
		{"GET", "/api/v1/boom", 500, `{"detail":"A server error occurred."}`, ""},
		{"GET", "/api/v1/fault", 500, `{"detail":"A server error occurred."}`, ""},
		{"GET", "/api/v1/silent", 500, `{"detail":"A server error occurred."}`, ""},
		{"GET", "/api/v1/busy", 503, `{"detail":"Service temporarily unavailable, try again soon."}`, ""},
	} {
		t.Run(tc.method+" "+tc.path, func(t *testing.T) {
			w := httptest.NewRecorder()
			rt.ServeHTTP(w, httptest.NewRequest(tc.method, tc.path, nil))
			if w.Code != tc.status || w.Body.String() != tc.body {
				t.Fatalf("got %d %s, want %d %s", w.Code, w.Body, tc.status, tc.body)
			}
			if w.Header().Get("Content-Type") != "application/json" || w.Header().Get("X-Request-Id") == "" {
				t.Fatalf("headers %v", w.Header())
			}
			if w.Header().Get("Allow") != tc.allow {
				t.Fatalf("Allow %q, want %q", w.Header().Get("Allow"), tc.allow)
			}
			if tc.status == 503 && w.Header().Get("Retry-After") == "" {
				t.Fatal("503 without Retry-After")
			}
		})
	}
}

func TestFieldErrorsAreOrdered(t *testing.T) {
	w := httptest.NewRecorder()
	WriteError(w, httptest.NewRequest("GET", "/", nil), &domain.Error{Code: domain.EINVALID, Fields: map[string][]string{
		"b": {"x"}, "non_field_errors": {"y"}, "a": {"z"},
	}})
	if want := `{"non_field_errors":["y"],"a":["z"],"b":["x"]}`; w.Body.String() != want {
		t.Fatalf("got %s want %s", w.Body, want)
	}
}

func TestJSONIsNotHTMLEscaped(t *testing.T) {
	w := httptest.NewRecorder()
	WriteJSON(w, 200, map[string]string{"next": "http://h/?a=1&b=<2>"})
	if want := `{"next":"http://h/?a=1&b=<2>"}`; w.Body.String() != want {
		t.Fatalf("got %s want %s", w.Body, want)
	}
}

// TestTheBudgetEndsEveryWait: a handler's context ends at most RequestBudget after the request arrived
// (or answerMargin before the Lambda's own deadline, if sooner), and a handler still waiting on it then
// is answered SPEC §9's 503: what bounds a request on a store that never answers, held without a
// stopwatch (TestTimeLimitsNest holds RequestBudget under 6 s).
func TestTheBudgetEndsEveryWait(t *testing.T) {
	lambda := 3 * time.Second
	for _, tc := range []struct {
		name   string
		ctx    func() (context.Context, context.CancelFunc)
		budget time.Duration
	}{
		{"as deployed", func() (context.Context, context.CancelFunc) { return context.WithCancel(context.Background()) },
			RequestBudget},
		{"under a Lambda deadline sooner than the budget", func() (context.Context, context.CancelFunc) {
			return context.WithTimeout(context.Background(), lambda)
		}, lambda - answerMargin},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			rt := NewRouter(slog.Default())
			var left []time.Duration
			rt.HandleOpen("GET", "/api/v1/wait", func(w http.ResponseWriter, r *http.Request) error {
				if deadline, ok := r.Context().Deadline(); ok {
					left = append(left, time.Until(deadline))
				}
				<-r.Context().Done() // a store that never answers
				return r.Context().Err()
			})
			ctx, cancel := tc.ctx()
			defer cancel()
			w := httptest.NewRecorder()
			rt.ServeHTTP(w, httptest.NewRequest("GET", "/api/v1/wait", nil).WithContext(ctx))
			if w.Code != 503 || w.Body.String() != `{"detail":"Service temporarily unavailable, try again soon."}` ||
				w.Header().Get("Retry-After") == "" {
				t.Fatalf("got %d %s (Retry-After %q), want 503 with Retry-After", w.Code, w.Body,
					w.Header().Get("Retry-After"))
			}
			if len(left) != 1 || left[0] > tc.budget {
				t.Fatalf("the handler's deadline was %v away (none: []), want at most %v", left, tc.budget)
			}
		})
	}
}
