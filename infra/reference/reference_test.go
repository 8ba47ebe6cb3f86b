package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

func TestParsePageReadsCountAndIDsInOrder(t *testing.T) {
	t.Parallel()
	p, err := ParsePage([]byte(`{"count": 45, "next": null, "previous": null,
		"results": [{"id": "b", "text": "x"}, {"id": "a"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if p.Count != 45 || strings.Join(p.IDs, ",") != "b,a" {
		t.Fatalf("ParsePage = %+v, want count 45 and ids b,a", p)
	}
}

// TestParsePageRefusesWhatIsNoList: an error body, or an envelope without its count, results or ids,
// must fail the run rather than compare equal to another such answer.
func TestParsePageRefusesWhatIsNoList(t *testing.T) {
	t.Parallel()
	for _, body := range []string{
		`{"detail": "Invalid page."}`,
		`{"results": [{"id": "a"}]}`,
		`{"count": 1}`,
		`{"count": 1, "results": [{"text": "no id"}]}`,
		`[{"id": "a"}]`,
		`<html>`,
	} {
		if p, err := ParsePage([]byte(body)); err == nil {
			t.Errorf("ParsePage(%s) = %+v, want an error", body, p)
		}
	}
}

func TestCompare(t *testing.T) {
	t.Parallel()
	ref := Page{Count: 3, IDs: []string{"a", "b", "c"}}
	for _, tc := range []struct {
		ours Page
		want string // "" for a match
	}{
		{Page{Count: 3, IDs: []string{"a", "b", "c"}}, ""},
		{Page{Count: 4, IDs: []string{"a", "b", "c"}}, "count 4, the reference's 3"},
		{Page{Count: 3, IDs: []string{"a", "c", "b"}}, "result 2 is c, the reference's b"},
		{Page{Count: 3, IDs: []string{"a", "b"}}, "2 results, the reference's 3"},
		{Page{Count: 3}, "0 results, the reference's 3"},
	} {
		err := Compare(tc.ours, ref)
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != tc.want {
			t.Errorf("Compare(%+v, %+v) = %q, want %q", tc.ours, ref, got, tc.want)
		}
	}
}

// standIn is a server answering the harness's requests as either side does: login with a token (status
// loginStatus), then the list of ids for each query, or 401 without that token.
func standIn(t *testing.T, loginStatus int, token string, pages func(url.Values) (int, []string)) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch {
		case r.Method == http.MethodPost && r.URL.Path == "/api/v1/auth/login/":
			var in map[string]string
			if err := json.NewDecoder(r.Body).Decode(&in); err != nil || in["username"] != "grace@example.com" ||
				in["password"] != "demo-grace" {
				w.WriteHeader(http.StatusBadRequest)
				fmt.Fprint(w, `{"non_field_errors": ["Unable to log in with provided credentials."]}`)
				return
			}
			w.WriteHeader(loginStatus)
			fmt.Fprintf(w, `{"token": %q}`, token)
		case r.Method == http.MethodGet && r.URL.Path == "/api/v1/comments/":
			if r.Header.Get("Authorization") != "Bearer "+token {
				w.WriteHeader(http.StatusUnauthorized)
				fmt.Fprint(w, `{"detail": "Invalid token."}`)
				return
			}
			count, ids := pages(r.URL.Query())
			results := make([]map[string]string, len(ids))
			for i, id := range ids {
				results[i] = map[string]string{"id": id}
			}
			_ = json.NewEncoder(w).Encode(map[string]any{"count": count, "next": nil, "previous": nil, "results": results})
		default:
			w.WriteHeader(http.StatusNotFound)
			fmt.Fprint(w, `{"detail": "Not found."}`)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

// demoPages answers as both sides should: 45 comments, page 2 from the 21st, 12 by tag.
func demoPages(q url.Values) (int, []string) {
	ids := func(from, n int) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = fmt.Sprintf("c%02d", from+i)
		}
		return out
	}
	switch {
	case q.Get("tag") == "review":
		return 12, ids(1, 12)
	case q.Get("page") == "2":
		return 45, ids(21, 20)
	}
	return 45, ids(1, 20)
}

func fixtureFile(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "demo.json")
	if err := os.WriteFile(path, []byte(`{"users": [{"email": "grace@example.com", "password": "demo-grace"}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func demoRequests() []request {
	object := url.Values{"content_type": {"report"}, "object_id": {"8ae83b59-9621-58f7-ae8c-5a712269c424"}}
	return []request{
		{"comments, page 1", object},
		{"comments, tag=review", with(object, "tag", "review")},
		{"comments, page 2", with(object, "page", "2")},
	}
}

// servers are this API's stand-in (login 201) and two references' (login 200), as make reference has them.
func servers(t *testing.T, ours func(url.Values) (int, []string)) []server {
	return []server{
		{"ours", standIn(t, http.StatusCreated, "ours-token", ours).URL, "the API"},
		{"DRF + SQLite", standIn(t, http.StatusOK, "sqlite-token", demoPages).URL, "DRF on SQLite"},
		{"DRF + PostgreSQL", standIn(t, http.StatusOK, "pg-token", demoPages).URL, "DRF on PostgreSQL"},
	}
}

// TestRunWritesTheTableWhenAllAgree logs in on a 201 server and two 200 servers and writes the report
// into the document's reference section: per request the answer all gave, a line per server, and on each
// reference's line the ratio; then the same table for the first rounds of the warm-up.
func TestRunWritesTheTableWhenAllAgree(t *testing.T) {
	t.Parallel()
	doc := filepath.Join(t.TempDir(), "PERFORMANCE.md")
	if err := os.WriteFile(doc, []byte("# Performance\n\nBy hand.\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	var printed strings.Builder
	if err := run(&printed, servers(t, demoPages), fixtureFile(t), "grace@example.com", demoRequests(), 5, 2, doc); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(doc)
	if err != nil {
		t.Fatal(err)
	}
	text := string(raw)
	if printed.Len() == 0 || !strings.Contains(text, "```text\n"+printed.String()) {
		t.Errorf("the document does not hold what was printed:\n%s\nprinted:\n%s", text, printed.String())
	}
	for _, want := range []string{"# Performance\n\nBy hand.\n", "<!-- reference:begin -->", "Measured by `make reference`",
		"DRF + PostgreSQL: DRF on PostgreSQL at http://127.0.0.1:", "5 rounds after 2 warm-up rounds",
		"to ours, DRF + SQLite, DRF + PostgreSQL in turn", "ours/server p50",
		"\nthe first 2 warm-up rounds of the same run, DynamoDB Local's JVM still compiling:\nrequest ",
		"<!-- reference:end -->"} {
		if !strings.Contains(text, want) {
			t.Errorf("the document lacks %q:\n%s", want, text)
		}
	}
	for _, row := range []string{`comments, page 1 +20 of 45 +ours +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+\n`,
		`comments, tag=review +12 of 12 +ours +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+\n`,
		`comments, page 2 +20 of 45 +ours +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+\n`} {
		if got := regexp.MustCompile(row).FindAllString(text, -1); len(got) != 2 {
			t.Errorf("want a row like %q in each table, got %d:\n%s", row, len(got), text)
		}
	}
	// Each request has a line per reference after this API's, with the ratio at its end, in each table.
	reference := regexp.MustCompile(`(?m)^ +DRF \+ (SQLite|PostgreSQL) +([0-9]+\.[0-9]{2} +){4} [0-9]+\.[0-9]{2}$`)
	if got := reference.FindAllString(text, -1); len(got) != 12 {
		t.Errorf("want 12 reference lines with a ratio, got %d:\n%s", len(got), text)
	}
}

// TestRunFailsOnADifferentAnswer: a server that orders page 2 otherwise fails the run, naming the
// request and the first difference, and writes no document.
func TestRunFailsOnADifferentAnswer(t *testing.T) {
	t.Parallel()
	swapped := func(q url.Values) (int, []string) {
		count, ids := demoPages(q)
		if q.Get("page") == "2" {
			ids[0], ids[1] = ids[1], ids[0]
		}
		return count, ids
	}
	doc := filepath.Join(t.TempDir(), "PERFORMANCE.md")
	err := run(io.Discard, servers(t, swapped), fixtureFile(t), "grace@example.com", demoRequests(), 5, 2, doc)
	want := "comments, page 2, round 1: ours and DRF + SQLite differ: ours has result 1 is c22, the reference's c21"
	if err == nil || err.Error() != want {
		t.Fatalf("run = %v, want %q", err, want)
	}
	if _, err := os.Stat(doc); !os.IsNotExist(err) {
		t.Fatalf("a failed run wrote %s (stat: %v)", doc, err)
	}
}

// TestRunFailsOnAnErrorStatus: a server that answers 401 fails the run with its status and body.
func TestRunFailsOnAnErrorStatus(t *testing.T) {
	t.Parallel()
	ref := standIn(t, http.StatusOK, "drf-token", demoPages)
	// Logged in at the reference, the harness sends that token to a server that knows another one.
	other := standIn(t, http.StatusOK, "another-token", demoPages)
	s, err := login(http.DefaultClient, server{name: "DRF + SQLite", base: ref.URL}, "grace@example.com", "demo-grace")
	if err != nil {
		t.Fatal(err)
	}
	s.base = other.URL
	_, _, err = list(http.DefaultClient, s, demoRequests()[0].query)
	want := `DRF + SQLite answered 401: {"detail": "Invalid token."}`
	if err == nil || err.Error() != want {
		t.Fatalf("list = %v, want %q", err, want)
	}
}

// TestRunFailsWhenALoginFails: a server that refuses the fixture's password fails the run before any list.
func TestRunFailsWhenALoginFails(t *testing.T) {
	t.Parallel()
	fixture := filepath.Join(t.TempDir(), "demo.json")
	if err := os.WriteFile(fixture, []byte(`{"users": [{"email": "grace@example.com", "password": "wrong"}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	err := run(io.Discard, servers(t, demoPages), fixture, "grace@example.com", demoRequests(), 5, 2, "")
	want := `ours: login answered 400: {"non_field_errors": ["Unable to log in with provided credentials."]}`
	if err == nil || err.Error() != want {
		t.Fatalf("run = %v, want %q", err, want)
	}
}
