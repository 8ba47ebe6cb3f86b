package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/google/uuid"
	"github.com/reportingplatform/api/infra/faultproxy"
	"github.com/reportingplatform/api/infra/gateway"
	"github.com/reportingplatform/api/infra/testkit"
)

// asMakeRun set in its environment makes the test binary run main, the server `make run` starts: the
// tests below start it as a process of its own, as make run does, and read what it prints.
const asMakeRun = "LOCAL_TEST_AS_MAKE_RUN"

// demoObject is the demo's report with comments, and how many demo.json gives it.
const (
	demoObject         = "8ae83b59-9621-58f7-ae8c-5a712269c424"
	demoObjectComments = 45
)

// started is one run of the server: what it printed, and how it ended.
type started struct {
	out    []string // stdout and stderr lines, in order of arrival
	exited bool     // it ended on its own (the start failed), with err
	err    error
	base   string // the API's URL, from the banner
	login  demoLogin
	others int // other demo users the banner shows
}

// banner's lines the tests read.
var (
	servingLine = regexp.MustCompile(`^Reporting Platform API on (http://\S+)`)
	loginLine   = regexp.MustCompile(`^Demo login \(([^)]*)\): (\S+) / (\S+)$`)
	otherLine   = regexp.MustCompile(`^  (\S+@\S+) / (\S+) \(`)
)

// startMakeRun runs the server against endpoint (table in it), with the demo fixture and args, until it
// prints its banner's last line or ends on its own; a server still running is stopped when the test ends.
// The wait is bounded by a generous limit only so that a hung start fails the test rather than the run.
func startMakeRun(t *testing.T, endpoint, table string, args ...string) started {
	t.Helper()
	tpl, err := gateway.FindTemplate()
	if err != nil {
		t.Fatal(err)
	}
	demo := filepath.Join(filepath.Dir(tpl), "infra", "demo-data", "demo.json")
	cmd := exec.Command(os.Args[0], append([]string{"-demo", demo}, args...)...)
	cmd.Env = append(os.Environ(), asMakeRun+"=1", "DYNAMODB_ENDPOINT="+endpoint, "TABLE_NAME="+table,
		"API_ADDR=127.0.0.1:0", "LOG_FORMAT=text", "OUTBOX_DIR="+t.TempDir(), "SENDER_EMAIL=", "DYNAMODB_SLOW=")
	pr, pw := io.Pipe()
	cmd.Stdout, cmd.Stderr = pw, pw
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var waitErr error
	exited := make(chan struct{})
	go func() { waitErr = cmd.Wait(); _ = pw.Close(); close(exited) }()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		<-exited
	})
	lines := make(chan string)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()
	var s started
	limit := time.After(4 * time.Minute)
	for {
		select {
		case line, ok := <-lines:
			if !ok {
				<-exited
				s.exited, s.err = true, waitErr
				return s
			}
			s.out = append(s.out, line)
			if m := servingLine.FindStringSubmatch(line); m != nil {
				s.base = m[1]
			}
			if m := loginLine.FindStringSubmatch(line); m != nil {
				s.login = demoLogin{Shows: m[1], Email: m[2], Password: m[3]}
			}
			if otherLine.MatchString(line) {
				s.others++
			}
			if strings.HasPrefix(line, "Ctrl-C stops the server") {
				// What it prints from now on is read and dropped, or its writes would block it.
				go func() {
					for range lines {
					}
				}()
				return s
			}
		case <-limit:
			t.Fatalf("no banner and no exit; it printed:\n%s", strings.Join(s.out, "\n"))
		}
	}
}

// behindProxy is a fault proxy in front of the tests' DynamoDB Local, and a table name of the test's own,
// deleted when the test ends.
func behindProxy(t *testing.T) (*faultproxy.Proxy, string, *testkit.DB) {
	t.Helper()
	db := testkit.NewDB(t) // for its client, to look at the table make run made
	proxy, err := faultproxy.New(testkit.Endpoint(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = proxy.Close() })
	table := "makerun-" + uuid.NewString()
	t.Cleanup(func() {
		_, _ = db.Client.DeleteTable(context.Background(), &dynamodb.DeleteTableInput{TableName: aws.String(table)})
	})
	return proxy, table, db
}

// assertDemoServed logs in with the login the banner printed, as a reader of it would, and lists the
// demo object's comments with the token: the demo data is all there.
func assertDemoServed(t *testing.T, s started) {
	t.Helper()
	if s.exited || s.base == "" || s.login.Email == "" {
		t.Fatalf("no login printed (exited %v: %v); it printed:\n%s", s.exited, s.err, strings.Join(s.out, "\n"))
	}
	if s.others != len(demoLogins)-1 {
		t.Errorf("the banner shows %d other demo users, want %d:\n%s", s.others, len(demoLogins)-1,
			strings.Join(s.out, "\n"))
	}
	body := `{"username": "` + s.login.Email + `", "password": "` + s.login.Password + `"}`
	resp, err := http.Post(s.base+"/api/v1/auth/login", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	var login struct {
		Token string `json:"token"`
		Email string `json:"email"`
	}
	decode(t, resp, http.StatusCreated, &login)
	if login.Token == "" || login.Email != s.login.Email {
		t.Fatalf("the printed login answered user %q, token set %v; want %s and a token", login.Email,
			login.Token != "", s.login.Email)
	}
	req, err := http.NewRequest(http.MethodGet,
		s.base+"/api/v1/comments/?content_type=report&object_id="+demoObject, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+login.Token)
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var list struct {
		Count int `json:"count"`
	}
	decode(t, resp, http.StatusOK, &list)
	if list.Count != demoObjectComments {
		t.Errorf("the demo report has %d comments, want demo.json's %d", list.Count, demoObjectComments)
	}
}

func decode(t *testing.T, resp *http.Response, status int, v any) {
	t.Helper()
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != status {
		t.Fatalf("%s %s answered %d %s, want %d", resp.Request.Method, resp.Request.URL.Path, resp.StatusCode, raw, status)
	}
	if err := json.Unmarshal(raw, v); err != nil {
		t.Fatalf("%s: %v", raw, err)
	}
}

// assertNoLogin holds a start that failed to saying so, with no login printed.
func assertNoLogin(t *testing.T, s started, says string) {
	t.Helper()
	text := strings.Join(s.out, "\n")
	if !s.exited || s.err == nil {
		t.Fatalf("the start did not fail (exited %v, %v); it printed:\n%s", s.exited, s.err, text)
	}
	if strings.Contains(text, "Demo login") || strings.Contains(text, "demo-admin-2026") {
		t.Fatalf("a start that failed printed a login:\n%s", text)
	}
	if !strings.Contains(text, says) {
		t.Fatalf("the failed start does not say %q; it printed:\n%s", says, text)
	}
}

// SPEC §8: a freshly started DynamoDB Local on a busy machine answers its first calls in seconds, each
// done by DynamoDB whether or not its caller still waits. make run still creates the table, loads the
// demo data, and prints a login that works.
func TestMakeRunOnASlowStoreLoadsTheDemoAndPrintsAWorkingLogin(t *testing.T) {
	proxy, table, _ := behindProxy(t)
	proxy.Set(faultproxy.Fault{Mode: faultproxy.Queued, Delay: time.Second, MaxDelay: 3 * time.Second, Times: 8})
	s := startMakeRun(t, proxy.URL, table)
	assertDemoServed(t, s)
}

// A store that stops answering half-way through the demo load ends the start with what went wrong and no
// login. The next start, the store back, finds the demo not loaded to the end (no marker) and completes
// it; the one after that loads nothing.
func TestMakeRunStoppedHalfWayLoadsTheDemoAtTheNextStart(t *testing.T) {
	proxy, table, db := behindProxy(t)
	// Its first 20 calls pass: past the table's set-up and the loader's read, into its writes.
	proxy.Set(faultproxy.Fault{Mode: faultproxy.Unavailable, Skip: 20})
	s := startMakeRun(t, proxy.URL, table, "-ready-within", "5s")
	// It fails on its deadline, or sooner once a write's copies have all gone unanswered: either way it
	// names the table and prints no login.
	assertNoLogin(t, s, "table "+table)
	out, err := db.Client.GetItem(context.Background(), &dynamodb.GetItemInput{TableName: aws.String(table),
		Key: demoMarker, ConsistentRead: aws.Bool(true)})
	if err != nil || out.Item != nil {
		t.Fatalf("the demo marker after the failed start: %v, %v; want none", out.Item, err)
	}

	proxy.Clear()
	second := startMakeRun(t, proxy.URL, table)
	if !strings.Contains(strings.Join(second.out, "\n"), "loaded the demo fixture") {
		t.Errorf("the start after the failed one did not load the demo:\n%s", strings.Join(second.out, "\n"))
	}
	assertDemoServed(t, second)

	third := startMakeRun(t, proxy.URL, table)
	if strings.Contains(strings.Join(third.out, "\n"), "loaded the demo fixture") {
		t.Errorf("a start after the demo was loaded loaded it again:\n%s", strings.Join(third.out, "\n"))
	}
	assertDemoServed(t, third)
}

// A store that never answers: the start says so and prints no login.
func TestMakeRunAgainstADownStorePrintsNoLogin(t *testing.T) {
	proxy, table, _ := behindProxy(t)
	proxy.Set(faultproxy.Fault{Mode: faultproxy.Unavailable})
	s := startMakeRun(t, proxy.URL, table, "-ready-within", "3s")
	assertNoLogin(t, s, "did not get table "+table+" ready within 3s")
}
