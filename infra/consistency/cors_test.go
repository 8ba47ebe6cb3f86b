package consistency_test

import (
	"net/http"
	"net/http/httptest"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/reportingplatform/api/infra/contract"
	"github.com/reportingplatform/api/infra/testkit"
	"github.com/reportingplatform/api/infra/wiring"
	"github.com/reportingplatform/api/shared/config"
)

const (
	corsOrigin      = "https://app.example.com"
	corsOtherOrigin = "https://admin.example.com:8443"
)

// corsAPI serves the four functions, wired by wiring.Handlers as `make run` wires them, on a fresh table
// holding the demo fixture, with CORS_ALLOWED_ORIGINS read through config as a function's main reads it.
func corsAPI(t *testing.T, origins string) (http.Handler, map[string]string) {
	t.Helper()
	t.Setenv("CORS_ALLOWED_ORIGINS", origins)
	cfg, err := config.FromEnv()
	if err != nil {
		t.Fatal(err)
	}
	cfg.TokenTTL, cfg.InvitationTTL = time.Hour, time.Hour
	db := testkit.NewDB(t)
	loadDemo(t, db)
	handlers := map[string]http.Handler{}
	for id, h := range wiring.Handlers(db.Store, testkit.Log(t), cfg, time.Now) {
		handlers[id] = h
	}
	tokens := map[string]string{"staff": tokenOf(t, db, "admin@example.com")}
	return testkit.Gateway(t, handlers), tokens
}

// sendPreflight sends a browser's preflight through the gateway. Not through testkit.Do: a preflight's
// 204 has no body, and infra/contract holds every response to a JSON body. (The function sends no
// Content-Type; API Gateway, and so the local gateway, adds its default application/json.)
func sendPreflight(t *testing.T, gw http.Handler, origin, path, method string) *httptest.ResponseRecorder {
	t.Helper()
	r := httptest.NewRequest(http.MethodOptions, "http://127.0.0.1:3000"+path, nil)
	r.Header.Set("Origin", origin)
	r.Header.Set("Access-Control-Request-Method", method)
	r.Header.Set("Access-Control-Request-Headers", "authorization,content-type")
	w := httptest.NewRecorder()
	gw.ServeHTTP(w, r)
	return w
}

// corsHeaderNames are the headers CORS may set; wantHeaders checks the listed ones and that the others
// are absent.
var corsHeaderNames = []string{
	"Access-Control-Allow-Origin", "Access-Control-Allow-Methods", "Access-Control-Allow-Headers",
	"Access-Control-Max-Age", "Access-Control-Expose-Headers", "Access-Control-Allow-Credentials", "Vary",
}

func wantHeaders(t *testing.T, what string, h http.Header, want map[string]string) {
	t.Helper()
	for _, name := range corsHeaderNames {
		got, w := h.Values(name), want[name]
		switch {
		case w == "" && len(got) > 0:
			t.Errorf("%s: %s %q, want none", what, name, got)
		case w != "" && !reflect.DeepEqual(got, []string{w}):
			t.Errorf("%s: %s %q, want %q", what, name, got, w)
		}
	}
	if h.Get("X-Request-Id") == "" {
		t.Errorf("%s: no X-Request-Id", what)
	}
}

// TestCORSThroughTheGateway sends browser requests through template.yaml's API Gateway event path to
// the functions as wired with a CORS list: preflights of every path openapi.yaml declares, a success,
// errors, and origins not in the list.
func TestCORSThroughTheGateway(t *testing.T) {
	gw, tokens := corsAPI(t, " "+corsOrigin+" , ,"+corsOtherOrigin+",")
	listed := map[string]string{
		"Access-Control-Allow-Origin":   corsOrigin,
		"Access-Control-Expose-Headers": "Retry-After, X-Request-Id",
		"Vary":                          "Origin",
	}

	t.Run("preflight", func(t *testing.T) {
		ops, err := contract.Operations()
		if err != nil {
			t.Fatal(err)
		}
		methods := map[string][]string{} // openapi path → the methods a preflight allows
		for _, op := range ops {
			methods[op.Path] = append(methods[op.Path], op.Method)
			if op.Method == http.MethodGet {
				methods[op.Path] = append(methods[op.Path], http.MethodHead)
			}
		}
		for path, ms := range methods {
			sort.Strings(ms)
			concrete := strings.ReplaceAll(path, "{id}", unknownID)
			for _, p := range []string{concrete, strings.TrimSuffix(concrete, "/") + "/",
				strings.TrimSuffix(concrete, "/"), "/Prod" + concrete} {
				// No credentials and an id that does not exist: a preflight is answered before either matters.
				w := sendPreflight(t, gw, corsOrigin, p, ms[len(ms)-1])
				if w.Code != http.StatusNoContent || w.Body.Len() != 0 {
					t.Fatalf("preflight %s: %d %q, want 204 without a body", p, w.Code, w.Body)
				}
				wantHeaders(t, "preflight "+p, w.Header(), map[string]string{
					"Access-Control-Allow-Origin":  corsOrigin,
					"Access-Control-Allow-Methods": strings.Join(ms, ", "),
					"Access-Control-Allow-Headers": "Authorization, Content-Type, Idempotency-Key",
					"Access-Control-Max-Age":       "600",
					"Vary":                         "Origin",
				})
				if w.Header().Get("Allow") != "" || w.Header().Get("WWW-Authenticate") != "" {
					t.Errorf("preflight %s: Allow %q, WWW-Authenticate %q", p, w.Header().Get("Allow"),
						w.Header().Get("WWW-Authenticate"))
				}
			}
		}
		w := sendPreflight(t, gw, corsOtherOrigin, "/api/v1/auth/login", "POST")
		if w.Code != http.StatusNoContent || w.Header().Get("Access-Control-Allow-Origin") != corsOtherOrigin {
			t.Errorf("preflight from the second origin: %d, Access-Control-Allow-Origin %q", w.Code,
				w.Header().Get("Access-Control-Allow-Origin"))
		}
	})

	t.Run("success", func(t *testing.T) {
		resp := testkit.Do(t, gw,
			testkit.Request{Method: "POST", Path: "/api/v1/auth/login", Header: map[string]string{"Origin": corsOrigin},
				Body: `{"username": "admin@example.com", "password": "demo-admin-2026"}`})
		if resp.Status != http.StatusCreated || resp.Object(t)["email"] != "admin@example.com" {
			t.Fatalf("login: %d %s", resp.Status, resp.Body)
		}
		wantHeaders(t, "login", resp.Header, listed)
		resp = testkit.Do(t, gw,
			testkit.Request{Method: "GET", Path: "/Prod/api/v1/comments/" + demoComment, Token: tokens["staff"],
				Header: map[string]string{"Origin": corsOrigin}})
		if resp.Status != http.StatusOK || resp.Object(t)["id"] != demoComment {
			t.Fatalf("comment: %d %s", resp.Status, resp.Body)
		}
		wantHeaders(t, "comment", resp.Header, listed)
	})

	t.Run("errors", func(t *testing.T) {
		resp := testkit.Do(t, gw, testkit.Request{Method: "GET", Path: "/api/v1/comments/" + demoComment + "/",
			Header: map[string]string{"Origin": corsOrigin}})
		resp.Expect(t, http.StatusUnauthorized, `{"detail": "Authentication credentials were not provided."}`)
		wantHeaders(t, "401", resp.Header, listed)
		resp = testkit.Do(t, gw, testkit.Request{Method: "POST", Path: "/api/v1/users/", Token: tokens["staff"], Body: `{}`,
			Header: map[string]string{"Origin": corsOrigin}})
		if resp.Status != http.StatusBadRequest {
			t.Fatalf("POST users {}: %d %s", resp.Status, resp.Body)
		}
		wantHeaders(t, "400", resp.Header, listed)
		// An OPTIONS that is no preflight, and another method: DRF's 401 without credentials (SPEC §1's
		// order of checks), else its 405, Allow without OPTIONS.
		for _, method := range []string{"OPTIONS", "DELETE"} {
			resp = testkit.Do(t, gw,
				testkit.Request{Method: method, Path: "/api/v1/comments/", Header: map[string]string{"Origin": corsOrigin}})
			resp.Expect(t, http.StatusUnauthorized, `{"detail": "Authentication credentials were not provided."}`)
			wantHeaders(t, method+" without a token", resp.Header, listed)
			resp = testkit.Do(t, gw, testkit.Request{Method: method, Path: "/api/v1/comments/", Token: tokens["staff"],
				Header: map[string]string{"Origin": corsOrigin}})
			resp.Expect(t, http.StatusMethodNotAllowed, `{"detail": "Method \"`+method+`\" not allowed."}`)
			if allow := resp.Header.Get("Allow"); allow != "GET, HEAD, POST" {
				t.Errorf("%s: Allow %q, want GET, HEAD, POST", method, allow)
			}
			wantHeaders(t, method, resp.Header, listed)
		}
		// A preflight of a path no function serves is API Gateway's own 404: no CORS header
		// (ARCHITECTURE.md, CORS).
		w := sendPreflight(t, gw, corsOrigin, "/api/v1/nothing/", "GET")
		if w.Code != http.StatusNotFound || !testkit.JSONEqual(w.Body.Bytes(), []byte(`{"detail": "Not found."}`)) {
			t.Fatalf("preflight of an unknown path: %d %s", w.Code, w.Body)
		}
		wantHeaders(t, "gateway 404", w.Header(), nil)
	})

	t.Run("origin not in the list", func(t *testing.T) {
		for _, origin := range []string{"https://evil.example.com", "https://APP.example.com", corsOrigin + "/", "null"} {
			// Not a preflight: an OPTIONS without credentials on a path that needs a token.
			resp := testkit.Do(t, gw, testkit.Request{Method: "OPTIONS", Path: "/api/v1/comments/" + demoComment + "/",
				Header: map[string]string{"Origin": origin, "Access-Control-Request-Method": "PATCH"}})
			resp.Expect(t, http.StatusUnauthorized, `{"detail": "Authentication credentials were not provided."}`)
			wantHeaders(t, "preflight from "+origin, resp.Header, map[string]string{"Vary": "Origin"})
			resp = testkit.Do(t, gw,
				testkit.Request{Method: "GET", Path: "/api/v1/comments/" + demoComment + "/", Token: tokens["staff"],
					Header: map[string]string{"Origin": origin}})
			if resp.Status != http.StatusOK {
				t.Fatalf("GET from %s: %d %s", origin, resp.Status, resp.Body)
			}
			wantHeaders(t, "GET from "+origin, resp.Header, map[string]string{"Vary": "Origin"})
		}
	})
}

// TestCORSOffThroughTheGateway: without a list nothing changes, OPTIONS is the usual 405 and no
// response says anything of CORS, not even Vary.
func TestCORSOffThroughTheGateway(t *testing.T) {
	gw, tokens := corsAPI(t, "")
	resp := testkit.Do(t, gw, testkit.Request{Method: "OPTIONS", Path: "/api/v1/auth/login",
		Header: map[string]string{"Origin": corsOrigin, "Access-Control-Request-Method": "POST"}})
	resp.Expect(t, http.StatusMethodNotAllowed, `{"detail": "Method \"OPTIONS\" not allowed."}`)
	if allow := resp.Header.Get("Allow"); allow != "POST" {
		t.Errorf("Allow %q, want POST", allow)
	}
	wantHeaders(t, "preflight", resp.Header, nil)
	resp = testkit.Do(t, gw,
		testkit.Request{Method: "GET", Path: "/api/v1/comments/" + demoComment + "/", Token: tokens["staff"],
			Header: map[string]string{"Origin": corsOrigin}})
	if resp.Status != http.StatusOK {
		t.Fatalf("GET: %d %s", resp.Status, resp.Body)
	}
	wantHeaders(t, "GET", resp.Header, nil)
}

// TestCORSOriginsConfig holds config's reading of CORS_ALLOWED_ORIGINS to template.yaml's parameter:
// a value CloudFormation lets through must not stop the functions at cold start, and entries are kept
// as browsers send Origin (the router matches exactly).
func TestCORSOriginsConfig(t *testing.T) {
	var tpl struct {
		Parameters map[string]struct {
			AllowedPattern string `yaml:"AllowedPattern"`
		} `yaml:"Parameters"`
	}
	decodeTemplate(t, &tpl)
	pattern := regexp.MustCompile(tpl.Parameters["CorsAllowedOrigins"].AllowedPattern)
	for _, tc := range []struct {
		value string
		want  []string // as config returns them; nil when refused
		ok    bool
	}{
		{"", nil, true},
		{"https://app.example.com", []string{"https://app.example.com"}, true},
		{"https://app.example.com,http://localhost:5173", []string{"https://app.example.com", "http://localhost:5173"}, true},
		{"https://App.Example.COM:443,http://127.0.0.1:80", []string{"https://app.example.com", "http://127.0.0.1"}, true},
		{"https://app.example.com:8443", []string{"https://app.example.com:8443"}, true},
		{"https://app.example.com/", nil, false},
		{"https://app.example.com/path", nil, false},
		{"https://app.example.com?x=1", nil, false},
		{"https://*.example.com", nil, false},
		{"https://app_1.example.com", nil, false},
		{"*", nil, false},
		{"app.example.com", nil, false},
		{"ftp://app.example.com", nil, false},
		{"https://user@app.example.com", nil, false},
		{"https://app.example.com:", nil, false},
		{"https://app.example.com:99999", nil, false},
		{"https://app.example.com:0", nil, false},
		{"https://app.example.com:65536", nil, false},
		{"https://app.example.com:65535", []string{"https://app.example.com:65535"}, true},
		{"null", nil, false},
	} {
		t.Setenv("CORS_ALLOWED_ORIGINS", tc.value)
		cfg, err := config.FromEnv()
		if (err == nil) != tc.ok || !reflect.DeepEqual(cfg.CORSAllowedOrigins, tc.want) {
			t.Errorf("CORS_ALLOWED_ORIGINS=%q: %q, %v; want %q (ok %v)", tc.value, cfg.CORSAllowedOrigins, err, tc.want, tc.ok)
		}
		if tc.ok && !pattern.MatchString(tc.value) {
			t.Errorf("template.yaml's CorsAllowedOrigins refuses %q, which the functions accept", tc.value)
		}
		if !tc.ok && pattern.MatchString(tc.value) {
			t.Errorf("template.yaml's CorsAllowedOrigins lets %q through, which stops the functions at cold start", tc.value)
		}
	}
}
