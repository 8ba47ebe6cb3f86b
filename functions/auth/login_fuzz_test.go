package auth_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/reportingplatform/api/functions/auth"
	"github.com/reportingplatform/api/shared/domain"
)

// stopAtLookup is a LoginStore whose first call, BeginLogin, remembers the email it was asked for and
// answers 403, which login never answers otherwise: the request got past the body. Login's other store
// methods (the embedded nil interface) are never reached.
type stopAtLookup struct {
	domain.LoginStore
	emails []string
}

func (s *stopAtLookup) BeginLogin(_ context.Context, email, _ string, _ time.Time) (domain.LoginAttempt, error) {
	s.emails = append(s.emails, email)
	return domain.LoginAttempt{}, domain.Forbidden()
}

// loginMessages are the field messages a login body can earn (SPEC §1's table, §2).
var loginMessages = []string{domain.MsgRequired, domain.MsgNull, domain.MsgBlank, domain.MsgNotString,
	"Null characters are not allowed."}

// FuzzLoginBody sends any body to login. It either stops at the body with a client error (400 with
// SPEC's messages, 413), or reaches the store with the username as DRF's CharField reads it: trimmed,
// never blank, and not looked up at all (the empty email) when longer than any account's.
func FuzzLoginBody(f *testing.F) {
	for _, b := range []string{
		`{"username": "admin@example.com", "password": "demo-admin-2026"}`,
		`{"username": " Admin@Example.com\n", "password": " x "}`,
		`{"username": 12, "password": 1.50}`, `{"username": "", "password": ""}`, `{"username": null, "password": null}`,
		`{"username": true, "password": []}`, `{"username": {}}`, `{}`, ``, `[]`, `"x"`,
		`{"username": "a\u0000b", "password": "x"}`,
		`{"username": "\ud800", "password": "\udc00"}`,
		`{"username": "` + strings.Repeat("y", 300) + `@example.com", "password": "x"}`,
		`{"username": "` + strings.Repeat("😀", 255) + `", "password": "x"}`,
		`{"username": "a", "username": "b", "password": "x"}`,
		`{"username": 1e400, "password": 99999999999999999999999999}`, "{\"username\": \"\xff\", \"password\": \"x\"}",
		`{"username": "\u00a0a\u2003", "password": "\t"}`, `{"username": "a", "password": "x"} {}`,
	} {
		f.Add(b)
	}
	store := &stopAtLookup{}
	// A discarding logger: the bodies are random, none is a password any account has.
	h := auth.New(store, slog.New(slog.DiscardHandler), time.Hour, time.Now)
	f.Fuzz(func(t *testing.T, body string) {
		store.emails = nil
		r := httptest.NewRequest(http.MethodPost, auth.LoginPath, strings.NewReader(body))
		r.Header.Set("Content-Type", "application/json")
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		if w.Header().Get("X-Request-Id") == "" ||
			!strings.HasPrefix(w.Header().Get("Content-Type"), "application/json") || !json.Valid(w.Body.Bytes()) {
			t.Fatalf("%.200q: %d %v %s", body, w.Code, w.Header(), w.Body)
		}
		switch w.Code {
		case http.StatusForbidden:
			if len(store.emails) != 1 {
				t.Fatalf("%.200q: %d lookups", body, len(store.emails))
			}
			checkLookup(t, body, store.emails[0])
		case http.StatusBadRequest:
			checkLoginRefusal(t, body, w.Body.Bytes())
		case http.StatusRequestEntityTooLarge:
		default:
			t.Fatalf("%.200q: %d %s", body, w.Code, w.Body)
		}
		if w.Code != http.StatusForbidden && len(store.emails) != 0 {
			t.Fatalf("%.200q: looked up %q, then answered %d", body, store.emails, w.Code)
		}
	})
}

// checkLookup holds the email looked up to the username sent.
func checkLookup(t *testing.T, body, email string) {
	t.Helper()
	var fields map[string]json.RawMessage
	if err := json.Unmarshal([]byte(body), &fields); err != nil {
		t.Fatalf("%.200q reached the store: %v", body, err)
	}
	var sent string
	isString := json.Unmarshal(fields["username"], &sent) == nil
	want := strings.TrimSpace(sent)
	if utf8.RuneCountInString(want) > 255 {
		want = ""
	}
	if isString && email != want || !isString && (email == "" || strings.TrimSpace(email) != email) {
		t.Fatalf("%.200q: looked up %q, want %q", body, email, want)
	}
}

// checkLoginRefusal holds a 400 to DecodeObject's refusals or to field errors under username and
// password with SPEC's messages, each at most once.
func checkLoginRefusal(t *testing.T, body string, resp []byte) {
	t.Helper()
	var detail struct{ Detail string }
	if json.Unmarshal(resp, &detail) == nil && strings.HasPrefix(detail.Detail, "JSON parse error - ") {
		return
	}
	var fields map[string][]string
	if err := json.Unmarshal(resp, &fields); err != nil || len(fields) == 0 {
		t.Fatalf("%.200q: 400 %s", body, resp)
	}
	for field, msgs := range fields {
		for i, m := range msgs {
			ok := (field == "username" || field == "password") && slices.Contains(loginMessages, m) ||
				field == domain.NonFieldErrors && len(fields) == 1 &&
					strings.HasPrefix(m, "Invalid data. Expected a dictionary, but got ")
			if !ok || slices.Contains(msgs[:i], m) {
				t.Fatalf("%.200q: %s", body, resp)
			}
		}
	}
}
