package main

import (
	"encoding/json"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/reportingplatform/api/functions/expiries"
	"github.com/reportingplatform/api/infra/contract"
	"github.com/reportingplatform/api/infra/gateway"
	"github.com/reportingplatform/api/infra/routes"
	"github.com/reportingplatform/api/infra/testkit"
	"github.com/reportingplatform/api/infra/wiring"
	"github.com/reportingplatform/api/shared/config"
)

// eventFile is one file of events/ for `sam local invoke`, named after the logical id of its function:
// an API Gateway REST (payload 1.0) event, <Function>-<method>-<what>.json, or EventBridge's Scheduled
// Event for a scheduled function, <Function>-scheduled.json.
type eventFile struct {
	Name     string
	Function string
	// Status is what events/expected.json says the function answers against the demo data: the HTTP
	// status, or for a Scheduled Event the number of expiries the run records.
	Status    int
	Event     events.APIGatewayProxyRequest
	Scheduled bool
	Stream    bool // a DynamoDB Stream's batch: Status is the number of e-mails it sends
	Raw       []byte
}

// tokenPlaceholder is how an event names the demo user whose token it needs: "<token:EMAIL>".
var tokenPlaceholder = regexp.MustCompile(`<token:([^>]+)>`)

// loadEventFiles reads events/ and events/expected.json at the root of the checkout.
func loadEventFiles(t *testing.T, root string) []eventFile {
	t.Helper()
	dir := filepath.Join(root, "events")
	var expected map[string]int
	b, err := os.ReadFile(filepath.Join(dir, "expected.json"))
	if err == nil {
		err = json.Unmarshal(b, &expected)
	}
	if err != nil {
		t.Fatalf("events/expected.json: %v", err)
	}
	names, err := filepath.Glob(filepath.Join(dir, "*Function-*.json"))
	if err != nil || len(names) == 0 {
		t.Fatalf("no event files in %s: %v", dir, err)
	}
	var out []eventFile
	for _, path := range names {
		name := filepath.Base(path)
		status, listed := expected[name]
		f := eventFile{Name: name, Function: name[:strings.Index(name, "-")], Status: status}
		var kind struct {
			DetailType string `json:"detail-type"`
			Records    []struct {
				EventSource string `json:"eventSource"`
			} `json:"Records"`
		}
		b, err := os.ReadFile(path)
		if err == nil {
			err = json.Unmarshal(b, &kind)
		}
		if err == nil {
			err = json.Unmarshal(b, &f.Event)
		}
		if err != nil {
			t.Fatalf("events/%s: %v", name, err)
		}
		f.Raw, f.Scheduled = b, kind.DetailType == "Scheduled Event"
		f.Stream = len(kind.Records) > 0 && kind.Records[0].EventSource == "aws:dynamodb"
		if !listed {
			t.Errorf("events/expected.json has no status for %s", name)
		}
		delete(expected, name)
		out = append(out, f)
	}
	for name := range expected {
		t.Errorf("events/expected.json lists %s, which is not in events/", name)
	}
	return out
}

// TestEventFilesCoverEveryRoute: a route of infra/routes without its event file in events/, one that
// reaches another route or function, or whose status in events/expected.json is not its sample's,
// fails here, so that a new route gets its event (`go generate ./infra/routes` writes it).
func TestEventFilesCoverEveryRoute(t *testing.T) {
	templatePath, err := gateway.FindTemplate()
	if err != nil {
		t.Fatal(err)
	}
	files := loadEventFiles(t, filepath.Dir(templatePath))
	for _, r := range routes.All {
		i := slices.IndexFunc(files, func(f eventFile) bool { return f.Name == r.Event })
		if i < 0 {
			t.Errorf("%s (%s) has no event in events/: run go generate ./infra/routes to write events/%s", r.Name(),
				r.Function, r.Event)
			continue
		}
		f := files[i]
		if f.Function != r.Function || f.Event.HTTPMethod != r.Method ||
			strings.TrimSuffix(f.Event.Resource, "/") != strings.TrimSuffix(r.Pattern, "/") {
			t.Errorf("events/%s is %s %s of %s, want %s of %s", f.Name, f.Event.HTTPMethod, f.Event.Resource, f.Function,
				r.Name(), r.Function)
		}
		if f.Status != r.Sample.Status {
			t.Errorf("events/expected.json gives %s %d, want %s's %d", f.Name, f.Status, r.Name(), r.Sample.Status)
		}
	}
	streamed, err := wiring.Streamed(nil, testkit.Log(t), config.Config{}, nil, time.Now)
	if err != nil {
		t.Fatal(err)
	}
	for fn := range streamed {
		if !slices.ContainsFunc(files, func(f eventFile) bool { return f.Function == fn && f.Stream }) {
			t.Errorf("%s is invoked by the table's stream and has no stream event in events/: add %s-stream.json "+
				"and the e-mails it sends in events/expected.json", fn, fn)
		}
	}
	for fn := range wiring.Scheduled(nil, testkit.Log(t), time.Now) {
		if !slices.ContainsFunc(files, func(f eventFile) bool { return f.Function == fn && f.Scheduled }) {
			t.Errorf("%s runs on a schedule and has no Scheduled Event in events/: add %s-scheduled.json and what "+
				"it records in events/expected.json", fn, fn)
		}
	}
}

// The built bootstraps, not the handlers: every event of events/ is sent through the Runtime API to
// its function's bootstrap, started with Lambda's environment against the demo data, and must get the
// status events/expected.json gives, the request id the event carries, and a body as openapi.yaml
// describes it. A token placeholder is replaced by a real token of that demo user, from a login
// through AuthFunction's bootstrap; each event changes a different item of the demo data, so the
// functions run side by side. A scheduled function's event runs first, alone: it records the demo's
// invitation past its expiry, which an invitation event saves, and must find it still unrecorded.
func TestEveryEventFileIsAnswered(t *testing.T) {
	db := testkit.NewDB(t)
	db.LoadDemo(t, time.Now(), 7*24*time.Hour)
	templatePath, err := gateway.FindTemplate()
	if err != nil {
		t.Fatal(err)
	}
	root := filepath.Dir(templatePath)
	files := loadEventFiles(t, root)
	byFunction := map[string][]eventFile{}
	for _, f := range files {
		byFunction[f.Function] = append(byFunction[f.Function], f)
	}
	functions := slices.Sorted(mapKeys(byFunction))
	_, bins := build(t, functions...)
	docsFiles(t, root, bins)
	env := Settings{"TABLE_NAME": db.Table, "DYNAMODB_ENDPOINT": os.Getenv("DYNAMODB_ENDPOINT"),
		"TOKEN_TTL": "24h", "INVITATION_TTL": "168h"}
	tokens := demoTokens(t, root, files, bins, env)

	for _, b := range bins {
		alone := slices.ContainsFunc(byFunction[b.Function], func(f eventFile) bool { return f.Scheduled || f.Stream })
		t.Run(b.Function, func(t *testing.T) {
			if !alone {
				t.Parallel() // the parallel subtests start once the loop is done
			}
			fnEnv := env
			outbox := ""
			if slices.ContainsFunc(byFunction[b.Function], func(f eventFile) bool { return f.Stream }) {
				outbox = t.TempDir()
				fnEnv = Settings{"OUTBOX_DIR": outbox}
				for k, v := range env {
					fnEnv[k] = v
				}
			}
			p := startProcess(t, b, fnEnv)
			for _, f := range byFunction[b.Function] {
				if f.Scheduled {
					answerScheduledEvent(t, p, f)
					continue
				}
				if f.Stream {
					answerStreamEvent(t, p, f, outbox)
					continue
				}
				answerEventFile(t, p, f, tokens)
			}
		})
	}
}

// answerScheduledEvent sends f as EventBridge does and checks that the run succeeded and recorded as
// many expiries as events/expected.json says.
func answerScheduledEvent(t *testing.T, p *Process, f eventFile) {
	t.Helper()
	res, err := p.API.Invoke(t.Context(), f.Raw)
	if err != nil {
		t.Fatalf("%s: %v\n%s", f.Name, err, p.Output())
	}
	var got expiries.Result
	if res.ErrorType != "" {
		t.Fatalf("%s: function error %s: %s", f.Name, res.ErrorType, res.Body)
	}
	if err := json.Unmarshal(res.Body, &got); err != nil || got.Recorded != f.Status {
		t.Errorf("%s: answered %s (%v), want %d recorded", f.Name, res.Body, err, f.Status)
	}
}

// answerStreamEvent sends f as Lambda's event source mapping does and checks that no record failed and
// that the function sent as many e-mails (to its outbox) as events/expected.json says.
func answerStreamEvent(t *testing.T, p *Process, f eventFile, outbox string) {
	t.Helper()
	res, err := p.API.Invoke(t.Context(), f.Raw)
	if err != nil {
		t.Fatalf("%s: %v\n%s", f.Name, err, p.Output())
	}
	if res.ErrorType != "" {
		t.Fatalf("%s: function error %s: %s", f.Name, res.ErrorType, res.Body)
	}
	var got events.DynamoDBEventResponse
	sent, _ := filepath.Glob(filepath.Join(outbox, "*.eml"))
	if err := json.Unmarshal(res.Body, &got); err != nil || len(got.BatchItemFailures) != 0 || len(sent) != f.Status {
		t.Errorf("%s: answered %s (%v) and sent %d e-mails, want no failures and %d", f.Name, res.Body, err,
			len(sent), f.Status)
	}
}

// answerEventFile sends f, its token placeholders replaced, and checks the answer.
func answerEventFile(t *testing.T, p *Process, f eventFile, tokens map[string]string) {
	t.Helper()
	ev := f.Event
	withToken := func(v string) string {
		return tokenPlaceholder.ReplaceAllStringFunc(v,
			func(m string) string { return tokens[tokenPlaceholder.FindStringSubmatch(m)[1]] })
	}
	ev.Headers, ev.MultiValueHeaders = map[string]string{}, map[string][]string{}
	for k, v := range f.Event.Headers {
		ev.Headers[k] = withToken(v)
	}
	for k, vs := range f.Event.MultiValueHeaders {
		for _, v := range vs {
			ev.MultiValueHeaders[k] = append(ev.MultiValueHeaders[k], withToken(v))
		}
	}
	payload, err := json.Marshal(ev)
	if err != nil {
		t.Fatal(err)
	}
	res, err := p.API.Invoke(t.Context(), payload)
	if err != nil {
		t.Fatalf("%s: %v\n%s", f.Name, err, p.Output())
	}
	resp, err := ProxyResponse(res)
	if err != nil {
		t.Fatalf("%s: %v", f.Name, err)
	}
	header := responseHeader(resp)
	if resp.StatusCode != f.Status {
		t.Errorf("%s: %d, want %d: %.300s", f.Name, resp.StatusCode, f.Status, resp.Body)
		return
	}
	// What API Gateway's access log holds as requestId is what the function logged and answered.
	if got := header.Get("X-Request-Id"); got != f.Event.RequestContext.RequestID {
		t.Errorf("%s: X-Request-Id %q, want the event's requestContext.requestId %q", f.Name, got,
			f.Event.RequestContext.RequestID)
	}
	if strings.HasPrefix(f.Event.Path, "/api/v1/") {
		u := url.URL{Path: f.Event.Path, RawQuery: url.Values(f.Event.MultiValueQueryStringParameters).Encode()}
		contract.Validate(t, f.Event.HTTPMethod, u.Path, u.Query(), resp.StatusCode, header, []byte(resp.Body))
		return
	}
	// The docs function's page, asset and schema: what it serves, whole.
	if ct := header.Get("Content-Type"); !strings.Contains(ct, docsContentType(f.Event.Path)) || len(resp.Body) < 100 {
		t.Errorf("%s: Content-Type %q and %d bytes, want a whole %s", f.Name, ct, len(resp.Body),
			docsContentType(f.Event.Path))
	}
}

func docsContentType(path string) string {
	switch {
	case strings.HasSuffix(path, ".css"):
		return "text/css"
	case strings.HasSuffix(path, ".js"):
		return "text/javascript"
	case strings.HasPrefix(path, "/api/schema/"):
		return "openapi"
	}
	return "text/html"
}

func responseHeader(resp events.APIGatewayProxyResponse) http.Header {
	header := http.Header{}
	for k, vs := range resp.MultiValueHeaders {
		for _, v := range vs {
			header.Add(k, v)
		}
	}
	for k, v := range resp.Headers {
		header.Set(k, v)
	}
	return header
}

// demoTokens logs in, through AuthFunction's bootstrap, each demo user an event asks a token of, with
// the password infra/demo-data/demo.json gives that user.
func demoTokens(t *testing.T, root string, files []eventFile, bins []Bootstrap, env Settings) map[string]string {
	t.Helper()
	var fixture struct {
		Users []struct{ Email, Password string } `json:"users"`
	}
	b, err := os.ReadFile(filepath.Join(root, "infra", "demo-data", "demo.json"))
	if err == nil {
		err = json.Unmarshal(b, &fixture)
	}
	if err != nil {
		t.Fatalf("demo fixture: %v", err)
	}
	i := slices.IndexFunc(bins, func(b Bootstrap) bool { return b.Function == "AuthFunction" })
	if i < 0 {
		t.Fatal("no AuthFunction bootstrap to log in with")
	}
	evs, err := NewEvents(filepath.Join(root, "template.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	auth := startProcess(t, bins[i], env)
	tokens := map[string]string{}
	for _, f := range files {
		for _, m := range tokenPlaceholder.FindAllStringSubmatch(f.Event.Headers["Authorization"], -1) {
			email := m[1]
			if tokens[email] != "" {
				continue
			}
			u := slices.IndexFunc(fixture.Users, func(u struct{ Email, Password string }) bool { return u.Email == email })
			if u < 0 {
				t.Fatalf("%s asks a token of %s, who is not a user of the demo fixture", f.Name, email)
			}
			resp, user := invoke(t, evs, auth, http.MethodPost, "/api/v1/auth/login", "",
				LoginBody(email, fixture.Users[u].Password))
			token, _ := user["token"].(string)
			if resp.StatusCode != http.StatusCreated || token == "" || user["email"] != email {
				t.Fatalf("login as %s: %d %s", email, resp.StatusCode, resp.Body)
			}
			tokens[email] = token
		}
	}
	return tokens
}

// docsFiles puts openapi.yaml and Swagger UI's files beside the DocsFunction bootstrap, as
// build-DocsFunction does in the deployment package.
func docsFiles(t *testing.T, root string, bins []Bootstrap) {
	t.Helper()
	for _, b := range bins {
		if b.Function != "DocsFunction" {
			continue
		}
		cmd := exec.Command(filepath.Join(root, "infra", "scripts", "docs-assets.sh"), "copy", filepath.Dir(b.Path))
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("docs-assets.sh copy: %v\n%s", err, out)
		}
	}
}

func mapKeys[V any](m map[string]V) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}
