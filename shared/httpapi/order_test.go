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

// sessions is a SessionReader over fixed users, counting its reads.
type sessions struct {
	users map[string]domain.User // by the user id a token names
	reads int
	down  bool
}

func (s *sessions) Session(_ context.Context, ref domain.TokenRef) (domain.Session, error) {
	s.reads++
	if s.down {
		return domain.Session{}, &domain.Error{Code: domain.EUNAVAILABLE, Err: errors.New("throttled")}
	}
	u, ok := s.users[ref.UserID]
	if !ok {
		return domain.Session{}, nil
	}
	return domain.Session{User: u,
		Token: domain.Token{Hash: ref.Hash, UserID: u.ID, ExpiresAt: time.Now().Add(time.Hour)}, Found: true}, nil
}

func token(t *testing.T, userID string) string {
	t.Helper()
	tok, _, err := domain.NewTokenString(userID)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// TestOrderOfChecks: SPEC §1's order of checks, DRF's. On a path that needs a token a request without
// valid credentials gets the 401 whatever its method, and a method the path does not serve answers 405
// only to an authenticated caller (one session read); a path that needs none answers 405 to anyone,
// reading nothing.
func TestOrderOfChecks(t *testing.T) {
	active := domain.User{ID: "6f9619ff-8b86-d011-b42d-00cf4fc964ff", IsActive: true}
	inactive := domain.User{ID: "0b6f5f8e-3b0a-4a4e-9f59-2f4cf1c7a0d1"}
	store := &sessions{users: map[string]domain.User{active.ID: active, inactive.ID: inactive}}
	rt := NewRouter(slog.Default()) // captured by testkit.Main
	rt.UseAuthenticator(&Authenticator{Sessions: store, Now: time.Now})
	handled := 0
	ok := func(w http.ResponseWriter, r *http.Request) error {
		handled++
		WriteJSON(w, http.StatusOK, map[string]string{})
		return nil
	}
	rt.Handle("GET", "/api/v1/things/", ok)
	rt.Handle("POST", "/api/v1/things/", ok)
	rt.Handle("PATCH", "/api/v1/things/{id}/", ok)
	rt.HandleOpen("POST", "/api/v1/login", ok)
	rt.HandleOpen("GET", "/api/schema/", ok)

	const (
		noCredentials = `{"detail":"Authentication credentials were not provided."}`
		invalid       = `{"detail":"Invalid token."}`
	)
	good, unknown := "Bearer "+token(t, active.ID), "Bearer "+token(t, "9a4f2c3e-5d6b-4e7f-8a9b-0c1d2e3f4a5b")
	for _, tc := range []struct {
		name, method, path, auth string
		status                   int
		body, allow              string
		reads                    int
	}{
		{"unserved method, no credentials", "DELETE", "/api/v1/things/", "", 401, noCredentials, "", 0},
		{"unserved method, malformed header", "PUT", "/api/v1/things/", "Bearer", 401,
			`{"detail":"Invalid token header. No credentials provided."}`, "", 0},
		{"unserved method, unknown token", "DELETE", "/api/v1/things", unknown, 401, invalid, "", 1},
		{"unserved method, inactive user", "DELETE", "/api/v1/things/", "Bearer " + token(t, inactive.ID), 401,
			`{"detail":"User inactive or deleted."}`, "", 1},
		{"unserved method, authenticated", "DELETE", "/api/v1/things/", good, 405,
			`{"detail":"Method \"DELETE\" not allowed."}`, "GET, HEAD, POST", 1},
		{"HEAD where no GET is served, no credentials", "HEAD", "/api/v1/things/42/", "", 401, noCredentials, "", 0},
		{"OPTIONS that is no preflight, no credentials", "OPTIONS", "/api/v1/things/42/", "", 401, noCredentials, "", 0},
		{"OPTIONS that is no preflight, authenticated", "OPTIONS", "/api/v1/things/42/", good, 405,
			`{"detail":"Method \"OPTIONS\" not allowed."}`, "PATCH", 1},
		{"path needing no token, no credentials", "GET", "/api/v1/login/", "", 405,
			`{"detail":"Method \"GET\" not allowed."}`, "POST", 0},
		{"path needing no token, unknown token", "DELETE", "/api/schema", unknown, 405,
			`{"detail":"Method \"DELETE\" not allowed."}`, "GET, HEAD", 0},
		{"unknown path", "DELETE", "/api/v1/nothing/", "", 404, `{"detail":"Not found."}`, "", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			store.reads, handled = 0, 0
			r := httptest.NewRequest(tc.method, tc.path, nil)
			if tc.auth != "" {
				r.Header.Set("Authorization", tc.auth)
			}
			w := httptest.NewRecorder()
			rt.ServeHTTP(w, r)
			body := w.Body.String()
			if tc.method == "HEAD" {
				body = tc.body // HEAD has no body to compare
			}
			if w.Code != tc.status || body != tc.body {
				t.Fatalf("got %d %s, want %d %s", w.Code, w.Body, tc.status, tc.body)
			}
			if got := w.Header().Get("Allow"); got != tc.allow {
				t.Errorf("Allow %q, want %q", got, tc.allow)
			}
			if challenge := w.Header().Get("WWW-Authenticate"); (tc.status == 401) != (challenge == `Bearer realm="api"`) {
				t.Errorf("%d with WWW-Authenticate %q", tc.status, challenge)
			}
			if store.reads != tc.reads || handled != 0 {
				t.Errorf("%d session reads and %d handler runs, want %d and none", store.reads, handled, tc.reads)
			}
		})
	}

	t.Run("store unavailable while authenticating", func(t *testing.T) {
		store.down = true
		defer func() { store.down = false }()
		r := httptest.NewRequest("DELETE", "/api/v1/things/", nil)
		r.Header.Set("Authorization", good)
		w := httptest.NewRecorder()
		rt.ServeHTTP(w, r)
		if want := `{"detail":"Service temporarily unavailable, try again soon."}`; w.Code != 503 ||
			w.Body.String() != want || w.Header().Get("Retry-After") == "" {
			t.Fatalf("got %d %s (Retry-After %q), want 503 %s", w.Code, w.Body, w.Header().Get("Retry-After"), want)
		}
	})
}

// TestRouteNeedingATokenNeedsAnAuthenticator: a router that could not authenticate the 405 of a path
// needing a token refuses the route when it is registered, at start, rather than on a request.
func TestRouteNeedingATokenNeedsAnAuthenticator(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("Handle without an authenticator did not panic")
		}
	}()
	NewRouter(slog.Default()).Handle("GET", "/api/v1/things/",
		func(http.ResponseWriter, *http.Request) error { return nil })
}
