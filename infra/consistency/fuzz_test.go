package consistency_test

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"reflect"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/reportingplatform/api/infra/contract"
	"github.com/reportingplatform/api/infra/testkit"
	"github.com/reportingplatform/api/infra/wiring"
	"github.com/reportingplatform/api/shared/config"
)

// FuzzAPI sends random requests through the whole path a deployed request takes (API Gateway event →
// adapter → handler → DynamoDB Local), against the demo data: a method (odd ones included), one of the
// routes with a random suffix, a raw query, a caller (none, staff, a member, the demo invitee, or a
// token of nobody), Content-Type and Authorization headers and a body. The properties it holds:
//
//   - no response is a 5xx;
//   - every response is valid against openapi.yaml (testkit.Do);
//   - a request answered 4xx, or made with a method that does not write, leaves the table as it was,
//     item by item, but for the failed-login windows (LOGINFAIL#), which a refused login writes by
//     design (SPEC §9).
//
// After every input the table is put back as it was (the writes of a 2xx undone, windows dropped), so
// that each input runs against the same data, a failure replays from its input alone, and ten refused
// logins do not turn every later login into a 429.
func FuzzAPI(f *testing.F) {
	for _, s := range apiSeeds {
		f.Add(s.method, s.route, s.caller, s.suffix, s.query, s.contentType, s.authorization, []byte(s.body))
	}
	// The table lives as long as the fuzz run; each fuzz worker process has its own. The demo data and
	// tokens are loaded on the first input, whose *testing.T loadDemo and tokenOf need.
	db := testkit.NewDB(f)
	log := testkit.Log(f)
	var (
		once sync.Once
		api  *fuzzAPI
	)
	f.Fuzz(func(t *testing.T, method string, route, caller uint8, suffix, query, contentType,
		authorization string, body []byte) {
		once.Do(func() { api = newFuzzAPI(t, db, log) })
		if api == nil {
			t.Fatal("the set-up failed on an earlier input")
		}
		req := testkit.Request{
			Method: fuzzMethod(method),
			Path:   fuzzRoutes[int(route)%len(fuzzRoutes)] + escapeOdd(suffix, true),
			Header: map[string]string{"Content-Type": contentType},
			Body:   string(body),
		}
		if query != "" {
			req.Path += "?" + escapeOdd(query, false)
		}
		token := api.tokens[int(caller)%callers]
		switch {
		case authorization != "":
			req.Header["Authorization"] = strings.ReplaceAll(authorization, "{token}", token)
		case token != "":
			req.Header["Authorization"] = "Bearer " + token
		}
		api.check(t, req)
	})
}

// fuzzAPI is the demo API of one fuzz process and the table as the demo data left it.
type fuzzAPI struct {
	gw      http.Handler
	tokens  [callers]string
	client  *dynamodb.Client // a client of its own for Scan and repairs, outside the handlers' call log
	table   string
	initial tableItems
}

// The callers an input picks from.
const (
	callerNone    = iota
	callerStaff   // admin
	callerMember  // edsger: a member (role 0) of Acme Analytics, commenter of some of its comments
	callerInvitee // alan: invited to Acme Analytics (pending) and to Globex Research (revoked)
	callerNobody  // a well-formed token no user has
	callers
)

func newFuzzAPI(t *testing.T, db *testkit.DB, log *slog.Logger) *fuzzAPI {
	t.Helper()
	loadDemo(t, db)
	handlers := map[string]http.Handler{}
	for id, h := range wiring.Handlers(db.Store, log,
		config.Config{TokenTTL: time.Hour, InvitationTTL: time.Hour}, time.Now) {
		handlers[id] = h
	}
	api := &fuzzAPI{gw: testkit.Gateway(t, handlers), client: testkit.Client(t, testkit.Endpoint(t)), table: db.Table}
	api.tokens[callerStaff] = tokenOf(t, db, "admin@example.com")
	api.tokens[callerMember] = tokenOf(t, db, "edsger@example.com")
	api.tokens[callerInvitee] = tokenOf(t, db, "alan@example.com")
	api.tokens[callerNobody] = strings.ReplaceAll(unknownID, "-", "") + "." + strings.Repeat("A", 43)
	// The key that signs list continuations exists, as in any table that has served a list: the
	// table's first list makes it, once (SPEC §6), which is no change a GET makes to what the API serves.
	if _, err := db.Store.ContinuationKey(context.Background()); err != nil {
		t.Fatal(err)
	}
	api.initial = api.scan(t)
	return api
}

// check sends req and holds the answer and the table to FuzzAPI's properties, then repairs the table.
func (a *fuzzAPI) check(t *testing.T, req testkit.Request) {
	repaired := false
	defer func() {
		if !repaired {
			a.repair(t, a.scan(t))
		}
	}()
	status, body := a.send(t, req)
	if status == http.StatusServiceUnavailable {
		// The store's time limits are wall-clock (SPEC §9): on two busy cores a slow DynamoDB Local can
		// exhaust them. Only a 503 that comes again from the same request on the same data is the input's.
		t.Logf("%s %.200s: 503 %s; trying again", req.Method, req.Path, body)
		a.repair(t, a.scan(t))
		status, body = a.send(t, req)
	}
	if status >= 500 {
		t.Fatalf("%s %.300s (headers %q, body %.300q): %d %s", req.Method, req.Path, req.Header, req.Body, status, body)
	}
	after := a.scan(t)
	if status >= 400 || !writes(req.Method) {
		if diff := a.initial.diff(after); diff != "" {
			t.Fatalf("%s %.300s (headers %q, body %.300q) answered %d %s, yet changed the table:\n%s",
				req.Method, req.Path, req.Header, req.Body, status, body, diff)
		}
	}
	repaired = true
	a.repair(t, after)
}

// send is testkit.Do for methods as HTTP spells them. aws-lambda-go-api-proxy upper-cases the event's
// method (as Django's dispatch lower-cases it), so "get" is served as GET: its response is held to
// openapi.yaml as GET's. HEAD's empty body is held to nothing openapi.yaml could describe.
func (a *fuzzAPI) send(t *testing.T, req testkit.Request) (int, []byte) {
	served := strings.ToUpper(req.Method)
	if served == req.Method && served != http.MethodHead {
		resp := testkit.Do(t, a.gw, req)
		return resp.Status, resp.Body
	}
	r := httptest.NewRequest(req.Method, "http://127.0.0.1:3000"+req.Path, strings.NewReader(req.Body))
	for k, v := range req.Header {
		r.Header.Set(k, v)
	}
	w := httptest.NewRecorder()
	a.gw.ServeHTTP(w, r)
	if w.Header().Get("X-Request-Id") == "" {
		t.Fatalf("%s %.300s: %d without X-Request-Id", req.Method, req.Path, w.Code)
	}
	if served != http.MethodHead {
		path := r.URL.Path
		if i := strings.Index(path, "/api/"); i > 0 {
			path = path[i:] // the stage, as testkit.Do strips it
		}
		contract.Validate(t, served, path, r.URL.Query(), w.Code, w.Header(), w.Body.Bytes())
	}
	return w.Code, w.Body.Bytes()
}

// writes reports whether a method may change data when it succeeds.
func writes(method string) bool {
	switch method {
	case http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete:
		return true
	}
	return false
}

// tableItems is a whole table by "PK SK".
type tableItems map[string]map[string]types.AttributeValue

// loginFailures is the key prefix of the failed-login windows, which a refused login writes (SPEC §9).
const loginFailures = "LOGINFAIL#"

func (a *fuzzAPI) scan(t *testing.T) tableItems {
	t.Helper()
	items := tableItems{}
	pages := dynamodb.NewScanPaginator(a.client,
		&dynamodb.ScanInput{TableName: aws.String(a.table), ConsistentRead: aws.Bool(true)})
	for pages.HasMorePages() {
		page, err := pages.NextPage(context.Background())
		if err != nil {
			t.Fatalf("scan %s: %v", a.table, err)
		}
		for _, item := range page.Items {
			items[attrS(item, "PK")+" "+attrS(item, "SK")] = item
		}
	}
	return items
}

func attrS(item map[string]types.AttributeValue, name string) string {
	if s, ok := item[name].(*types.AttributeValueMemberS); ok {
		return s.Value
	}
	return ""
}

// diff lists the items added, removed or changed from want to got, failed-login windows aside.
func (want tableItems) diff(got tableItems) string {
	var lines []string
	for k, item := range got {
		switch old, ok := want[k]; {
		case strings.HasPrefix(k, loginFailures):
		case !ok:
			lines = append(lines, "  added "+k)
		case !reflect.DeepEqual(old, item):
			lines = append(lines, "  changed "+k+": "+changedAttributes(old, item))
		}
	}
	for k := range want {
		if _, ok := got[k]; !ok {
			lines = append(lines, "  removed "+k)
		}
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

func changedAttributes(old, item map[string]types.AttributeValue) string {
	var names []string
	for name := range item {
		if !reflect.DeepEqual(old[name], item[name]) {
			names = append(names, name)
		}
	}
	for name := range old {
		if _, ok := item[name]; !ok {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}

// repair puts the table back as initial from its state now: new items deleted, changed or removed
// ones written back whole.
func (a *fuzzAPI) repair(t *testing.T, now tableItems) {
	t.Helper()
	ctx := context.Background()
	for k, item := range now {
		if _, ok := a.initial[k]; ok {
			continue
		}
		key := map[string]types.AttributeValue{"PK": item["PK"], "SK": item["SK"]}
		if _, err := a.client.DeleteItem(ctx,
			&dynamodb.DeleteItemInput{TableName: aws.String(a.table), Key: key}); err != nil {
			t.Fatalf("repair: delete %s: %v", k, err)
		}
	}
	for k, item := range a.initial {
		if reflect.DeepEqual(now[k], item) {
			continue
		}
		if _, err := a.client.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(a.table), Item: item}); err != nil {
			t.Fatalf("repair: put %s: %v", k, err)
		}
	}
}

// fuzzMethods are what a method that could not be sent becomes: the API's methods and some it does
// not serve.
var fuzzMethods = []string{"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "TRACE", "CONNECT",
	"PROPFIND", "get", "Patch"}

// fuzzMethod keeps a method that HTTP can carry (a token) and maps anything else onto fuzzMethods.
func fuzzMethod(m string) string {
	if m != "" && len(m) <= 20 &&
		strings.Trim(m, "!#$%&'*+-.^_`|~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz") == "" {
		return m
	}
	return fuzzMethods[len(m)%len(fuzzMethods)]
}

// escapeOdd percent-encodes the bytes of a fuzzed path suffix or query that no client could put in a
// request line as they are (white space, control characters, '#'), and in a path also '?' and a '%'
// that starts no escape (url.Parse refuses those). The rest, non-ASCII bytes and bad escapes in a query
// included, is sent as it is: those are for the gateway and handlers to cope with.
func escapeOdd(s string, inPath bool) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c <= ' ' || c == 0x7f || c == '#' || (inPath && (c == '?' || c == '%' && !escapeAt(s, i))) {
			fmt.Fprintf(&b, "%%%02X", c)
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}

func escapeAt(s string, i int) bool {
	isHex := func(c byte) bool { return strings.IndexByte("0123456789abcdefABCDEF", c) >= 0 }
	return i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2])
}
