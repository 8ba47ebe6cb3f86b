// Command reference is `make reference`: the comment list of this API against a stock Django REST
// Framework service serving the same demo data (infra/drfref), on SQLite and, when given, on
// PostgreSQL, measured in the same run. It logs in on each server as the same demo user, then sends each
// request to this API and to each reference in turn, one at a time over kept-alive connections, and after
// a warm-up records every answer's time. The warm-up is long because DynamoDB Local is a Java process
// whose hot paths the JVM compiles only after thousands of calls, where the DynamoDB a deployed API
// calls is always warm and CPython, which runs DRF, compiles nothing: a short one measures the stand-in's
// JIT. The first rounds of the warm-up are reported too, so that what the warm-up changed shows. Every answer must be 200 and every server must answer the same
// count and the same comment ids in the same order as this API, or the run fails. It knows the servers
// only by HTTP, so whatever answers the list may change.
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/reportingplatform/api/infra/bench"
	"github.com/reportingplatform/api/infra/perfdoc"
)

// request is one list request of the run: its name in the table and its query.
type request struct {
	name  string
	query url.Values
}

// server is one side of the run: its name in the table, its base URL and what it is.
type server struct {
	name, base, desc string
}

// session is a server logged in.
type session struct {
	server
	token string
}

func main() {
	ours := flag.String("ours", "", "this API's base URL (make run's server), e.g. http://127.0.0.1:3000")
	oursDesc := flag.String("ours-desc", "this API", "what this API's server is, for the report's heading")
	sqlite := flag.String("drf", "", "the stock DRF reference on SQLite: its base URL")
	sqliteDesc := flag.String("drf-desc", "stock DRF on SQLite", "what that reference is, for the report's heading")
	pg := flag.String("drf-pg", "", "the same reference on PostgreSQL: its base URL (optional)")
	pgDesc := flag.String("drf-pg-desc", "stock DRF on PostgreSQL", "what that reference is, for the report's heading")
	fixture := flag.String("fixture", "infra/demo-data/demo.json", "the demo fixture every server loaded (its users' passwords)")
	email := flag.String("email", "grace@example.com", "the demo user every server is logged in as")
	contentType := flag.String("content-type", "report", "the commented object's content_type")
	objectID := flag.String("object-id", "8ae83b59-9621-58f7-ae8c-5a712269c424", "the commented object's id")
	tag := flag.String("tag", "review", "a tag with comments on that object")
	rounds := flag.Int("rounds", 400, "measured rounds; each sends every request once to each server")
	warmup := flag.Int("warmup", 1000, "rounds before the measured ones, checked and reported apart")
	doc := flag.String("doc", "", "also write the report into this document's reference section (docs/PERFORMANCE.md)")
	flag.Parse()
	if *ours == "" || *sqlite == "" {
		fmt.Fprintln(os.Stderr, "reference: -ours and -drf are required")
		os.Exit(2)
	}
	servers := []server{{"ours", *ours, *oursDesc}, {"DRF + SQLite", *sqlite, *sqliteDesc}}
	if *pg != "" {
		servers = append(servers, server{"DRF + PostgreSQL", *pg, *pgDesc})
	}
	object := url.Values{"content_type": {*contentType}, "object_id": {*objectID}}
	requests := []request{
		{"comments, page 1", object},
		{"comments, tag=" + *tag, with(object, "tag", *tag)},
		{"comments, page 2", with(object, "page", "2")},
	}
	if err := run(os.Stdout, servers, *fixture, *email, requests, *rounds, *warmup, *doc); err != nil {
		fmt.Fprintln(os.Stderr, "reference:", err)
		os.Exit(1)
	}
}

func with(v url.Values, key, value string) url.Values {
	out := url.Values{}
	for k, vs := range v {
		out[k] = vs
	}
	out.Set(key, value)
	return out
}

// run measures requests on servers (this API first) and prints the report to out, also into doc when given.
func run(out io.Writer, servers []server, fixture, email string, requests []request, rounds, warmup int,
	doc string) error {
	password, err := demoPassword(fixture, email)
	if err != nil {
		return err
	}
	client := &http.Client{Timeout: 30 * time.Second}
	sessions := make([]session, len(servers))
	for i, s := range servers {
		if sessions[i], err = login(client, s, email, password); err != nil {
			return err
		}
	}
	loadBefore := loadAverage()
	rows, firstRows := newRows(requests, len(servers)), newRows(requests, len(servers))
	first := min(firstWarmupRounds, warmup)
	start := time.Now()
	times := make([]time.Duration, len(servers))
	pages := make([]Page, len(servers))
	for round := range warmup + rounds {
		for i, r := range requests {
			for j, s := range sessions {
				if times[j], pages[j], err = list(client, s, r.query); err != nil {
					return fmt.Errorf("%s: %w", r.name, err)
				}
			}
			if len(pages[0].IDs) == 0 {
				return fmt.Errorf("%s: %s answered no comments: nothing would be measured", r.name, servers[0].name)
			}
			for j := 1; j < len(servers); j++ {
				if err := Compare(pages[0], pages[j]); err != nil {
					return fmt.Errorf("%s, round %d: %s and %s differ: %s has %w", r.name, round+1, servers[0].name,
						servers[j].name, servers[0].name, err)
				}
			}
			into := rows
			switch {
			case round < first:
				into = firstRows
			case round < warmup:
				continue
			}
			into[i].Answer = pages[0]
			for j := range servers {
				into[i].Stats[j].Add(times[j], nil)
			}
		}
	}
	var report bytes.Buffer
	fmt.Fprintf(&report, "GET /api/v1/comments/?content_type=%s&object_id=%s, as %s on every server\n",
		requests[0].query.Get("content_type"), requests[0].query.Get("object_id"), email)
	names := make([]string, len(servers))
	for i, s := range servers {
		names[i] = s.name
		fmt.Fprintf(&report, "%s: %s at %s\n", s.name, s.desc, s.base)
	}
	fmt.Fprintf(&report, "%d rounds after %d warm-up rounds (took %s), each request to %s in turn, one at a time; "+
		"every answer 200 with the same count and ids everywhere; load average %s before, %s after\n",
		rounds, warmup, time.Since(start).Round(time.Second), strings.Join(names, ", "), loadBefore, loadAverage())
	fmt.Fprintln(&report, "times in ms, from sending the request to the end of the body, measured by the client")
	if err := WriteTable(&report, names, rows); err != nil {
		return err
	}
	if first > 0 {
		fmt.Fprintf(&report, "\nthe first %d warm-up rounds of the same run, DynamoDB Local's JVM still compiling:\n", first)
		if err := WriteTable(&report, names, firstRows); err != nil {
			return err
		}
	}
	if _, err := out.Write(report.Bytes()); err != nil {
		return err
	}
	if doc != "" {
		return perfdoc.Write(doc, "reference", time.Now(), report.String())
	}
	return nil
}

// firstWarmupRounds is how many rounds at the start of the warm-up are reported apart.
const firstWarmupRounds = 50

// newRows is an empty row per request, with a Stats per server.
func newRows(requests []request, servers int) []Row {
	rows := make([]Row, len(requests))
	for i, r := range requests {
		rows[i] = Row{Name: r.name, Stats: make([]*bench.Stats, servers)}
		for j := range servers {
			rows[i].Stats[j] = &bench.Stats{}
		}
	}
	return rows
}

// demoPassword is the password the fixture gives the user with that e-mail address.
func demoPassword(fixture, email string) (string, error) {
	raw, err := os.ReadFile(fixture)
	if err != nil {
		return "", err
	}
	var f struct {
		Users []struct {
			Email    string `json:"email"`
			Password string `json:"password"`
		} `json:"users"`
	}
	if err := json.Unmarshal(raw, &f); err != nil {
		return "", fmt.Errorf("%s: %w", fixture, err)
	}
	for _, u := range f.Users {
		if strings.EqualFold(u.Email, email) {
			return u.Password, nil
		}
	}
	return "", fmt.Errorf("%s has no user %s", fixture, email)
}

// login logs in at s and keeps the token: this API answers 201 with the user and its token, DRF's
// obtain_auth_token 200 with {"token": …}.
func login(client *http.Client, s server, email, password string) (session, error) {
	s.base = strings.TrimRight(s.base, "/")
	body, _ := json.Marshal(map[string]string{"username": email, "password": password})
	resp, err := client.Post(s.base+"/api/v1/auth/login/", "application/json", bytes.NewReader(body))
	if err != nil {
		return session{}, fmt.Errorf("%s: login: %w", s.name, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return session{}, fmt.Errorf("%s: login: %w", s.name, err)
	}
	if resp.StatusCode != http.StatusOK && resp.StatusCode != http.StatusCreated {
		return session{}, fmt.Errorf("%s: login answered %d: %.200s", s.name, resp.StatusCode, raw)
	}
	var out struct {
		Token string `json:"token"`
	}
	if err := json.Unmarshal(raw, &out); err != nil || out.Token == "" {
		return session{}, fmt.Errorf("%s: login answered no token", s.name)
	}
	return session{server: s, token: out.Token}, nil
}

// list sends one list request and times it from the send to the end of the body; the answer is read
// after the clock stops.
func list(client *http.Client, s session, query url.Values) (time.Duration, Page, error) {
	req, err := http.NewRequest(http.MethodGet, s.base+"/api/v1/comments/?"+query.Encode(), nil)
	if err != nil {
		return 0, Page{}, err
	}
	req.Header.Set("Authorization", "Bearer "+s.token)
	req.Header.Set("Accept", "application/json")
	start := time.Now()
	resp, err := client.Do(req)
	if err != nil {
		return 0, Page{}, fmt.Errorf("%s: %w", s.name, err)
	}
	raw, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	d := time.Since(start)
	if err != nil {
		return 0, Page{}, fmt.Errorf("%s: %w", s.name, err)
	}
	if resp.StatusCode != http.StatusOK {
		return 0, Page{}, fmt.Errorf("%s answered %d: %.200s", s.name, resp.StatusCode, raw)
	}
	p, err := ParsePage(raw)
	if err != nil {
		return 0, Page{}, fmt.Errorf("%s: %w", s.name, err)
	}
	return d, p, nil
}

// loadAverage is the one-minute load average (Linux), or "unknown": a busy machine shows in every time.
func loadAverage() string {
	raw, err := os.ReadFile("/proc/loadavg")
	if fields := strings.Fields(string(raw)); err == nil && len(fields) > 0 {
		return fields[0]
	}
	return "unknown"
}
