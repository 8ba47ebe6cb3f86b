package httpapi

import (
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/reportingplatform/api/shared/domain"
)

const (
	appOrigin   = "https://app.example.com"
	adminOrigin = "http://admin.example.com:8080"
)

// corsUser is the one user corsRouter's authenticator knows; corsToken is a token of theirs.
var (
	corsUser  = domain.User{ID: "6f9619ff-8b86-d011-b42d-00cf4fc964ff", IsActive: true}
	corsToken = func() string {
		tok, _, err := domain.NewTokenString(corsUser.ID)
		if err != nil {
			panic(err)
		}
		return "Bearer " + tok
	}()
)

// corsRouter serves a path with GET and PATCH behind authentication, and paths that fail in each way
// an error reaches the client. handled counts the handler calls.
func corsRouter(origins []string, handled *int) *Router {
	rt := NewRouter(slog.Default()) // captured by testkit.Main
	rt.UseAuthenticator(&Authenticator{Sessions: &sessions{users: map[string]domain.User{corsUser.ID: corsUser}},
		Now: time.Now})
	rt.AllowOrigins(origins)
	authenticated := func(w http.ResponseWriter, r *http.Request) error {
		*handled++
		if r.Header.Get("Authorization") == "" {
			return domain.Errorf(domain.EUNAUTHENTICATED, "Authentication credentials were not provided.")
		}
		WriteJSON(w, http.StatusOK, map[string]string{"id": r.PathValue("id")})
		return nil
	}
	rt.Handle("GET", "/api/v1/things/{id}/", authenticated)
	rt.Handle("PATCH", "/api/v1/things/{id}/", authenticated)
	rt.HandleOpen("POST", "/api/v1/login", func(w http.ResponseWriter, r *http.Request) error {
		*handled++
		return domain.FieldError("username", "This field is required.")
	})
	rt.HandleOpen("GET", "/api/v1/boom", func(w http.ResponseWriter, r *http.Request) error { panic("boom") })
	rt.HandleOpen("GET", "/api/v1/busy", func(w http.ResponseWriter, r *http.Request) error {
		return &domain.Error{Code: domain.EUNAVAILABLE, Err: errors.New("throttled")}
	})
	return rt
}

// corsHeaders are every header CORS may set; a case lists the ones it wants, all others must be absent.
var corsHeaders = []string{
	"Access-Control-Allow-Origin", "Access-Control-Allow-Methods", "Access-Control-Allow-Headers",
	"Access-Control-Max-Age", "Access-Control-Expose-Headers", "Access-Control-Allow-Credentials",
	"Vary", "Allow",
}

func TestCORS(t *testing.T) {
	preflight := map[string]string{"Origin": appOrigin, "Access-Control-Request-Method": "PATCH",
		"Access-Control-Request-Headers": "authorization, content-type"}
	listed := func(extra map[string]string) map[string]string {
		h := map[string]string{
			"Access-Control-Allow-Origin":   appOrigin,
			"Access-Control-Expose-Headers": "Retry-After, X-Request-Id",
			"Vary":                          "Origin",
		}
		for k, v := range extra {
			h[k] = v
		}
		return h
	}
	notAllowed := `{"detail":"Method \"OPTIONS\" not allowed."}`
	noCredentials := `{"detail":"Authentication credentials were not provided."}`
	withToken := func(h map[string]string) map[string]string {
		out := map[string]string{"Authorization": corsToken}
		for k, v := range h {
			out[k] = v
		}
		return out
	}
	for _, tc := range []struct {
		name         string
		origins      []string
		method, path string
		header       map[string]string
		status       int
		body         string
		want         map[string]string // CORS headers and Allow; the others of corsHeaders must be absent
		handled      bool
	}{
		// No list: exactly the behaviour without CORS. A preflight carries no credentials: on a path
		// that needs a token it is a 401 (SPEC §1's order of checks), elsewhere a 405.
		{"off: preflight is a 401", nil, "OPTIONS", "/api/v1/things/42/", preflight,
			401, noCredentials, nil, false},
		{"off: OPTIONS with a token is a 405", nil, "OPTIONS", "/api/v1/things/42/", withToken(preflight),
			405, notAllowed, map[string]string{"Allow": "GET, HEAD, PATCH"}, false},
		{"off: GET", nil, "GET", "/api/v1/things/42/", map[string]string{"Origin": appOrigin, "Authorization": "Bearer x"},
			200, `{"id":"42"}`, nil, true},
		{"off: empty list", []string{}, "OPTIONS", "/api/v1/login", preflight,
			405, notAllowed, map[string]string{"Allow": "POST"}, false},

		// Preflights from a listed origin: answered before the handler (no credentials), with the path's methods.
		{"preflight", []string{appOrigin, adminOrigin}, "OPTIONS", "/api/v1/things/42/", preflight, 204, "",
			map[string]string{"Access-Control-Allow-Origin": appOrigin, "Vary": "Origin",
				"Access-Control-Allow-Methods": "GET, HEAD, PATCH",
				"Access-Control-Allow-Headers": "Authorization, Content-Type, Idempotency-Key",
				"Access-Control-Max-Age":       "600"}, false},
		{"preflight without the slash, second origin", []string{appOrigin, adminOrigin}, "OPTIONS", "/api/v1/login",
			map[string]string{"Origin": adminOrigin, "Access-Control-Request-Method": "POST"}, 204, "",
			map[string]string{"Access-Control-Allow-Origin": adminOrigin, "Vary": "Origin",
				"Access-Control-Allow-Methods": "POST",
				"Access-Control-Allow-Headers": "Authorization, Content-Type, Idempotency-Key",
				"Access-Control-Max-Age":       "600"}, false},
		{"preflight for a method the path lacks", []string{appOrigin}, "OPTIONS", "/api/v1/login",
			map[string]string{"Origin": appOrigin, "Access-Control-Request-Method": "DELETE"}, 204, "",
			map[string]string{"Access-Control-Allow-Origin": appOrigin, "Vary": "Origin",
				"Access-Control-Allow-Methods": "POST",
				"Access-Control-Allow-Headers": "Authorization, Content-Type, Idempotency-Key",
				"Access-Control-Max-Age":       "600"}, false},
		{"preflight, unknown path", []string{appOrigin}, "OPTIONS", "/api/v1/nothing/", preflight,
			404, `{"detail":"Not found."}`,
			map[string]string{"Access-Control-Allow-Origin": appOrigin, "Vary": "Origin"}, false},
		{"preflight, path with an empty segment", []string{appOrigin}, "OPTIONS", "/api/v1/things//", preflight,
			404, `{"detail":"Not found."}`,
			map[string]string{"Access-Control-Allow-Origin": appOrigin, "Vary": "Origin"}, false},

		// Any other request from a listed origin: its usual answer plus the CORS headers, errors included.
		{"GET", []string{appOrigin}, "GET", "/api/v1/things/42/",
			map[string]string{"Origin": appOrigin, "Authorization": "Bearer x"},
			200, `{"id":"42"}`, listed(nil), true},
		{"HEAD", []string{appOrigin}, "HEAD", "/api/v1/things/42",
			map[string]string{"Origin": appOrigin, "Authorization": "Bearer x"},
			200, ``, listed(nil), true},
		{"401", []string{appOrigin}, "PATCH", "/api/v1/things/42/", map[string]string{"Origin": appOrigin},
			401, `{"detail":"Authentication credentials were not provided."}`, listed(nil), true},
		{"400", []string{appOrigin}, "POST", "/api/v1/login", map[string]string{"Origin": appOrigin},
			400, `{"username":["This field is required."]}`, listed(nil), true},
		{"404", []string{appOrigin}, "GET", "/api/v1/nothing", map[string]string{"Origin": appOrigin},
			404, `{"detail":"Not found."}`, listed(nil), false},
		{"401 for a method the path lacks", []string{appOrigin}, "DELETE", "/api/v1/things/42/",
			map[string]string{"Origin": appOrigin},
			401, noCredentials, listed(nil), false},
		{"405 without OPTIONS in Allow", []string{appOrigin}, "DELETE", "/api/v1/things/42/",
			withToken(map[string]string{"Origin": appOrigin}),
			405, `{"detail":"Method \"DELETE\" not allowed."}`, listed(map[string]string{"Allow": "GET, HEAD, PATCH"}), false},
		{"OPTIONS that is no preflight", []string{appOrigin}, "OPTIONS", "/api/v1/things/42/",
			withToken(map[string]string{"Origin": appOrigin}),
			405, notAllowed, listed(map[string]string{"Allow": "GET, HEAD, PATCH"}), false},
		{"500", []string{appOrigin}, "GET", "/api/v1/boom", map[string]string{"Origin": appOrigin},
			500, `{"detail":"A server error occurred."}`, listed(nil), false},
		{"503", []string{appOrigin}, "GET", "/api/v1/busy", map[string]string{"Origin": appOrigin},
			503, `{"detail":"Service temporarily unavailable, try again soon."}`, listed(nil), false},

		// Origins not in the list: no CORS header, but Vary, so that caches keep the answers apart.
		{"unlisted origin: preflight is a 401", []string{appOrigin}, "OPTIONS", "/api/v1/things/42/",
			map[string]string{"Origin": "https://evil.example.com", "Access-Control-Request-Method": "GET"},
			401, noCredentials, map[string]string{"Vary": "Origin"}, false},
		{"unlisted origin: preflight is a 405 where no token is needed", []string{appOrigin}, "OPTIONS", "/api/v1/login",
			map[string]string{"Origin": "https://evil.example.com", "Access-Control-Request-Method": "POST"},
			405, notAllowed, map[string]string{"Vary": "Origin", "Allow": "POST"}, false},
		{"unlisted origin: GET", []string{appOrigin}, "GET", "/api/v1/things/42/",
			map[string]string{"Origin": "https://evil.example.com", "Authorization": "Bearer x"},
			200, `{"id":"42"}`, map[string]string{"Vary": "Origin"}, true},
		{"no origin", []string{appOrigin}, "GET", "/api/v1/things/42/", map[string]string{"Authorization": "Bearer x"},
			200, `{"id":"42"}`, map[string]string{"Vary": "Origin"}, true},
		{"no origin, preflight shape", []string{appOrigin}, "OPTIONS", "/api/v1/login",
			map[string]string{"Access-Control-Request-Method": "POST"},
			405, notAllowed, map[string]string{"Vary": "Origin", "Allow": "POST"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			handled := 0
			rt := corsRouter(tc.origins, &handled)
			r := httptest.NewRequest(tc.method, tc.path, nil)
			for k, v := range tc.header {
				r.Header.Set(k, v)
			}
			w := httptest.NewRecorder()
			rt.ServeHTTP(w, r)
			if w.Code != tc.status || w.Body.String() != tc.body {
				t.Fatalf("got %d %s, want %d %s", w.Code, w.Body, tc.status, tc.body)
			}
			checkCORSHeaders(t, w.Header(), tc.want)
			if w.Header().Get("X-Request-Id") == "" {
				t.Error("no X-Request-Id")
			}
			if ct := w.Header().Get("Content-Type"); (tc.status == 204) != (ct == "") {
				t.Errorf("Content-Type %q on a %d", ct, tc.status)
			}
			if (handled > 0) != tc.handled {
				t.Errorf("handler ran %d times, want it to run: %v", handled, tc.handled)
			}
		})
	}
}

func checkCORSHeaders(t *testing.T, h http.Header, want map[string]string) {
	t.Helper()
	for _, name := range corsHeaders {
		got := h.Values(name)
		w, ok := want[name]
		switch {
		case !ok && len(got) > 0:
			t.Errorf("%s: %q, want none", name, got)
		case ok && !reflect.DeepEqual(got, []string{w}):
			t.Errorf("%s: %q, want %q", name, got, w)
		}
	}
}

// TestCORSOriginMatchIsExact: browsers send their origin serialised (lower-case, no default port, no
// path); anything else is another origin, and there are no wildcards.
func TestCORSOriginMatchIsExact(t *testing.T) {
	rt := corsRouter([]string{appOrigin}, new(int))
	for _, origin := range []string{
		"https://App.example.com", "HTTPS://app.example.com", "http://app.example.com", "https://app.example.com:443",
		"https://app.example.com/", "https://app.example.com.evil.example", "https://evil-app.example.com",
		"https://example.com", "null", "*", " " + appOrigin, appOrigin + ", https://evil.example.com",
	} {
		r := httptest.NewRequest("OPTIONS", "/api/v1/things/42/", nil)
		r.Header.Set("Origin", origin)
		r.Header.Set("Access-Control-Request-Method", "GET")
		w := httptest.NewRecorder()
		rt.ServeHTTP(w, r)
		// Not a preflight: the path's answer to an OPTIONS without credentials.
		if w.Code != http.StatusUnauthorized || w.Header().Get("Access-Control-Allow-Origin") != "" {
			t.Errorf("Origin %q: %d, Access-Control-Allow-Origin %q; want 401 and none", origin, w.Code,
				w.Header().Get("Access-Control-Allow-Origin"))
		}
	}
}

// TestCORSKeepsAllowWithoutOptions: OPTIONS is answered for preflights but never listed as a method the
// path serves.
func TestCORSKeepsAllowWithoutOptions(t *testing.T) {
	rt := corsRouter([]string{appOrigin}, new(int))
	for _, method := range []string{"DELETE", "PUT", "OPTIONS"} {
		r := httptest.NewRequest(method, "/api/v1/things/42/", nil)
		r.Header.Set("Origin", appOrigin)
		r.Header.Set("Authorization", corsToken)
		w := httptest.NewRecorder()
		rt.ServeHTTP(w, r)
		if allow := w.Header().Get("Allow"); w.Code != 405 || strings.Contains(allow, "OPTIONS") {
			t.Errorf("%s: %d, Allow %q", method, w.Code, allow)
		}
	}
}
