package main

import (
	"bytes"
	"context"
	"encoding/json"
	"log"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/reportingplatform/api/infra/contract"
	"github.com/reportingplatform/api/infra/gateway"
	"github.com/reportingplatform/api/infra/testkit"
)

// The links a built bootstrap writes carry the stage the client called (SPEC §6), on a cold and then
// a warm invocation of one process. (TestEveryEventFileIsAnswered sends every route's event.)
func TestBootstrapLinksCarryTheStage(t *testing.T) {
	db := testkit.NewDB(t)
	db.LoadDemo(t, time.Now(), 7*24*time.Hour)
	evs, bins := build(t, "AuthFunction", "CommentsFunction")
	env := Settings{"TABLE_NAME": db.Table, "DYNAMODB_ENDPOINT": os.Getenv("DYNAMODB_ENDPOINT"),
		"TOKEN_TTL": "24h", "INVITATION_TTL": "168h"}
	call := func(t *testing.T, p *Process, method, pathQuery, token,
		body string) (events.APIGatewayProxyResponse, map[string]any) {
		t.Helper()
		return invoke(t, evs, p, method, pathQuery, token, body)
	}

	auth := startProcess(t, bins[0], env)
	resp, user := call(t, auth, http.MethodPost, "/api/v1/auth/login", "", LoginBody(DemoAdminEmail, DemoAdminPassword))
	token, _ := user["token"].(string)
	if resp.StatusCode != http.StatusCreated || token == "" || user["email"] != DemoAdminEmail || user["password"] != "" {
		t.Fatalf("login: %d %s", resp.StatusCode, resp.Body)
	}

	t.Run("CommentsFunction", func(t *testing.T) {
		p := startProcess(t, bins[1], env)
		query := "content_type=report&object_id=" + DemoReportID + "&page_size=2"
		stage := "https://" + APIHost + "/Prod/api/v1/comments/?"
		resp, page1 := call(t, p, http.MethodGet, "/api/v1/comments/?"+query, token, "")
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("page 1: %d %s", resp.StatusCode, resp.Body)
		}
		want := stage + "content_type=report&object_id=" + DemoReportID + "&page=2&page_size=2"
		next, continued := withoutCursor(page1["next"])
		if next != want || !continued || page1["previous"] != nil {
			t.Errorf("page 1 links: next %v, previous %v; want next %s with a cursor, previous null", page1["next"],
				page1["previous"], want)
		}
		if results, _ := page1["results"].([]any); len(results) != 2 {
			t.Errorf("page 1 has %d results, want 2: %s", len(results), resp.Body)
		}
		// The same process again: a warm invocation, and DRF's previous link to page 1 drops page.
		// Page 2 as a client reaches it: by the next link, its cursor included.
		link, _ := page1["next"].(string)
		resp, page2 := call(t, p, http.MethodGet, strings.TrimPrefix(link, "https://"+APIHost+"/Prod"), token, "")
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("page 2: %d %s", resp.StatusCode, resp.Body)
		}
		if previous, continued := withoutCursor(page2["previous"]); previous != stage+query || !continued {
			t.Errorf("page 2 previous = %v, want %s with a cursor", page2["previous"], stage+query)
		}
	})
}

// startProcess runs b until the test ends, its logs forwarded into the test's log (see TestMain).
func startProcess(t *testing.T, b Bootstrap, env Settings) *Process {
	t.Helper()
	if b.Path == "" {
		t.Fatal("no bootstrap built for this function")
	}
	p, err := Start(b, env, &lineLogger{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Stop)
	return p
}

// invoke sends the event for the request through the Runtime API and checks the answer against
// openapi.yaml, as every handler test does; it returns the proxy response and its body as an object.
func invoke(t *testing.T, evs *Events, p *Process, method, pathQuery, token,
	body string) (events.APIGatewayProxyResponse, map[string]any) {
	t.Helper()
	resp := send(t, evs, p, method, pathQuery, token, body)
	header := responseHeader(resp)
	if header.Get("X-Request-Id") == "" {
		t.Errorf("%s %s: no X-Request-Id", method, pathQuery)
	}
	u, _ := url.Parse(pathQuery)
	contract.Validate(t, method, u.Path, u.Query(), resp.StatusCode, header, []byte(resp.Body))
	var obj map[string]any
	if err := json.Unmarshal([]byte(resp.Body), &obj); err != nil {
		t.Fatalf("%s %s: body is not an object: %v: %s", method, pathQuery, err, resp.Body)
	}
	return resp, obj
}

// send hands the API Gateway event for the request to the process through the Runtime API and returns
// the proxy response it answered with.
func send(t *testing.T, evs *Events, p *Process, method, pathQuery, token, body string) events.APIGatewayProxyResponse {
	t.Helper()
	ev, fn, err := evs.Event(method, pathQuery, token, body)
	if err != nil {
		t.Fatal(err)
	}
	if ev.RequestContext.Path != "/Prod"+strings.SplitN(pathQuery, "?", 2)[0] || ev.RequestContext.Stage != "Prod" {
		t.Fatalf("event for %s: requestContext path %q stage %q, want the Prod stage", pathQuery,
			ev.RequestContext.Path, ev.RequestContext.Stage)
	}
	payload, err := json.Marshal(ev)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), functionTimeout)
	defer cancel()
	res, err := p.API.Invoke(ctx, payload)
	if err != nil {
		t.Fatalf("%s: %v\n%s", fn, err, p.Output())
	}
	resp, err := ProxyResponse(res)
	if err != nil {
		t.Fatalf("%s: %v", fn, err)
	}
	return resp
}

// build builds the bootstraps of functions with the Makefile's flags, and the events of template.yaml's
// routes to send them.
func build(t *testing.T, functions ...string) (*Events, []Bootstrap) {
	t.Helper()
	templatePath, err := gateway.FindTemplate()
	if err != nil {
		t.Fatal(err)
	}
	root := filepath.Dir(templatePath)
	flags, err := LambdaFlags(root)
	if err != nil {
		t.Fatal(err)
	}
	bins, err := Build(context.Background(), root, t.TempDir(), functions, flags)
	if err != nil {
		t.Fatal(err)
	}
	evs, err := NewEvents(templatePath)
	if err != nil {
		t.Fatal(err)
	}
	return evs, bins
}

// lineLogger hands each whole line a process prints to the log package, which testkit.Main captures.
type lineLogger struct {
	mu  sync.Mutex
	buf []byte
}

func (l *lineLogger) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.buf = append(l.buf, p...)
	for {
		i := bytes.IndexByte(l.buf, '\n')
		if i < 0 {
			return len(p), nil
		}
		log.Print("bootstrap: " + string(l.buf[:i]))
		l.buf = l.buf[i+1:]
	}
}

// TestFaultsCountsWhatTheKernelDoes: the live count the table shows, read from /proc, against the
// kernel's own count in the rusage of the process once it has exited, which can only have grown.
func TestFaultsCountsWhatTheKernelDoes(t *testing.T) {
	evs, bins := build(t, HelloWorld)
	p := startProcess(t, bins[0], Settings{})
	if resp := send(t, evs, p, http.MethodGet, "/api/v1/comments/", "", ""); resp.StatusCode != http.StatusOK {
		t.Fatalf("hello-world answered %d: %s", resp.StatusCode, resp.Body)
	}
	live, err := p.Faults()
	if err != nil {
		t.Fatal(err)
	}
	p.Stop()
	ru, ok := p.cmd.ProcessState.SysUsage().(*syscall.Rusage)
	if !ok {
		t.Fatal("no rusage for the exited process")
	}
	final := ru.Minflt + ru.Majflt
	// A Go process faults in hundreds of pages before its first answer; the kill adds a few at most.
	if live < 100 || live > final || final-live > 50 {
		t.Fatalf("Faults() = %d while running, rusage %d after exit", live, final)
	}
}

// withoutCursor is link (a JSON value) without its continuation, its other parameters in their order,
// and whether it carried one.
func withoutCursor(link any) (string, bool) {
	s, _ := link.(string)
	u, err := url.Parse(s)
	if err != nil || s == "" {
		return s, false
	}
	q := u.Query()
	continued := q.Get("cursor") != ""
	q.Del("cursor")
	u.RawQuery = q.Encode()
	return u.String(), continued
}
