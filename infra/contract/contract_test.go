package contract

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
)

const (
	uuid1 = "6f1c1a52-6b1e-4a47-9d3e-0a3c5c6f1b01"
	uuid2 = "0b8e4c2e-3d4f-4e55-8a66-7b8c9d0e1f02"
	uuid3 = "00000000-0000-0000-0000-000000000003"
	stamp = "2026-11-20T10:04:05.123456Z"
)

var (
	loginBody = `{"id":"` + uuid1 + `","token":"tok","organizations":"[]","password":"",
		"last_login":"` + stamp + `","is_superuser":false,"is_staff":true,"is_active":true,
		"date_joined":"` + stamp + `","created_at":"` + stamp + `","updated_at":"` + stamp + `",
		"email":"ada@example.com","first_name":"Ada","last_name":"Lovelace","groups":[],"user_permissions":[]}`
	commentRead = `{"id":"` + uuid1 + `","content_type":"report","commenter":{"id":"` + uuid2 + `",
		"full_name":"Ada Lovelace","email":"ada@example.com","first_name":"Ada","last_name":"Lovelace"},
		"created_at":"` + stamp + `","updated_at":"` + stamp + `","object_id":"` + uuid3 + `",
		"tag":null,"text":"Looks good","parent":null}`
	invitation = `{"id":"` + uuid1 + `","token":"` + uuid2 + `","expiry_date":"` + stamp + `",
		"organization":{"id":"` + uuid3 + `","name":"Acme"},
		"inviter_member":{"id":"` + uuid2 + `","first_name":"Ada","last_name":"Lovelace","email":"ada@example.com"},
		"email":"bob@example.com","email_sent":false,"accessible_portfolios":[{"id":"` + uuid3 + `","name":"Growth"}],
		"status":0,"first_name":"Bob","last_name":null,"role":%d}`
)

func jsonHeader(kv ...string) http.Header {
	h := http.Header{"Content-Type": {"application/json"}}
	for i := 0; i+1 < len(kv); i += 2 {
		h.Set(kv[i], kv[i+1])
	}
	return h
}

func mustLoad(t *testing.T) *spec {
	t.Helper()
	s, err := load()
	if err != nil {
		t.Fatalf("load: %v", err)
	}
	return s
}

func TestSpecLoadsAndValidates(t *testing.T) {
	s := mustLoad(t)
	if got := s.doc.OpenAPI; got != "3.0.3" {
		t.Errorf("openapi version = %q, want 3.0.3", got)
	}
	// Relative: a client generated from the file hard-codes no address.
	if len(s.doc.Servers) != 1 || s.doc.Servers[0].URL != "/" {
		t.Errorf("servers = %v, want one /", s.doc.Servers)
	}
	// Validate once more on a fresh load, as a reader of the document would.
	root, err := moduleRoot(".")
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(root, specFile))
	if err != nil {
		t.Fatal(err)
	}
	doc, err := openapi3.NewLoader().LoadFromData(data)
	if err != nil {
		t.Fatal(err)
	}
	if err := doc.Validate(context.Background()); err != nil {
		t.Fatal(err)
	}
}

func TestSecurity(t *testing.T) {
	s := mustLoad(t)
	for path, item := range s.doc.Paths.Map() {
		for method, op := range item.Operations() {
			// SPEC §2 and §10: login, the schema and the docs page need no token; everything else does.
			public := path == "/api/v1/auth/login" || path == "/api/schema/" || strings.HasPrefix(path, "/api/docs/")
			open := op.Security != nil && len(*op.Security) == 0
			if public != open {
				t.Errorf("%s %s: open (no security) = %v, want %v", method, path, open, public)
			}
		}
	}
}

func TestParseSpecRejectsInvalidDocument(t *testing.T) {
	bad := []byte("openapi: 3.0.3\ninfo: {title: x, version: '1'}\npaths:\n  nope: {}\n")
	if _, err := parseSpec(bad); err == nil {
		t.Fatal("parseSpec accepted an invalid document")
	}
}

func TestModuleRoot(t *testing.T) {
	root := t.TempDir()
	deep := filepath.Join(root, "a", "b")
	if err := os.MkdirAll(deep, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "go.mod"), []byte("module x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := moduleRoot(deep)
	if err != nil || got != root {
		t.Fatalf("moduleRoot = %q, %v; want %q", got, err, root)
	}
}

func TestOperations(t *testing.T) {
	got, err := Operations()
	if err != nil {
		t.Fatal(err)
	}
	want := []Operation{
		{"GET", "/api/docs/"},
		{"GET", "/api/docs/{asset}"},
		{"GET", "/api/schema/"},
		{"POST", "/api/v1/auth/login"},
		{"POST", "/api/v1/auth/logout"},
		{"GET", "/api/v1/comments/"},
		{"POST", "/api/v1/comments/"},
		{"DELETE", "/api/v1/comments/{id}/"},
		{"GET", "/api/v1/comments/{id}/"},
		{"PATCH", "/api/v1/comments/{id}/"},
		{"PUT", "/api/v1/comments/{id}/"},
		{"GET", "/api/v1/organization-invitations/"},
		{"POST", "/api/v1/organization-invitations/"},
		{"DELETE", "/api/v1/organization-invitations/{id}/"},
		{"GET", "/api/v1/organization-invitations/{id}/"},
		{"PATCH", "/api/v1/organization-invitations/{id}/"},
		{"POST", "/api/v1/users/"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Operations() =\n%v\nwant\n%v", got, want)
	}
}

func TestCheck(t *testing.T) {
	s := mustLoad(t)
	listQuery := url.Values{"content_type": {"report"}, "object_id": {uuid3}}
	page := `{"count":1,"next":%s,"previous":%s,"results":[` + commentRead + `]}`
	tests := []struct {
		name    string
		method  string
		path    string
		query   url.Values
		status  int
		header  http.Header
		body    string
		wantErr bool
	}{
		{"login 201", "POST", "/api/v1/auth/login", nil, 201, jsonHeader(), loginBody, false},
		{"login with trailing slash", "POST", "/api/v1/auth/login/", nil, 201, jsonHeader(), loginBody, false},
		{"login charset parameter", "POST", "/api/v1/auth/login", nil, 201,
			http.Header{"Content-Type": {"application/json; charset=utf-8"}}, loginBody, false},
		{"login wrong type", "POST", "/api/v1/auth/login", nil, 201, jsonHeader(),
			strings.Replace(loginBody, `"is_staff":true`, `"is_staff":"yes"`, 1), true},
		{"login organizations not a string", "POST", "/api/v1/auth/login", nil, 201, jsonHeader(),
			strings.Replace(loginBody, `"organizations":"[]"`, `"organizations":[]`, 1), true},
		{"login bad date-time", "POST", "/api/v1/auth/login", nil, 201, jsonHeader(),
			strings.Replace(loginBody, `"last_login":"`+stamp, `"last_login":"yesterday`, 1), true},
		{"login undeclared status 200", "POST", "/api/v1/auth/login", nil, 200, jsonHeader(), loginBody, true},
		{"login undeclared status 404", "POST", "/api/v1/auth/login", nil, 404, jsonHeader(),
			`{"detail":"Not found."}`, true},
		{"login 400 credentials", "POST", "/api/v1/auth/login", nil, 400, jsonHeader(),
			`{"non_field_errors":["Unable to log in with provided credentials."]}`, false},
		{"login 400 parse error", "POST", "/api/v1/auth/login", nil, 400, jsonHeader(),
			`{"detail":"JSON parse error - unexpected end"}`, false},
		{"400 empty object", "POST", "/api/v1/auth/login", nil, 400, jsonHeader(), `{}`, true},
		{"400 message not in a list", "POST", "/api/v1/users/", nil, 400, jsonHeader(), `{"email":"bad"}`, true},
		{"415 detail", "POST", "/api/v1/auth/login", nil, 415, jsonHeader(),
			`{"detail":"Unsupported media type \"text/plain\" in request."}`, false},
		{"text/plain content type", "POST", "/api/v1/auth/login", nil, 201,
			http.Header{"Content-Type": {"text/plain"}}, loginBody, true},
		{"no content type", "POST", "/api/v1/auth/login", nil, 201, http.Header{}, loginBody, true},
		{"trailing garbage", "POST", "/api/v1/auth/login", nil, 201, jsonHeader(), loginBody + "x", true},

		{"user 201 without slash", "POST", "/api/v1/users", nil, 201, jsonHeader(),
			`{"id":"` + uuid1 + `","email":"ada@example.com","first_name":null,"last_name":"Lovelace"}`, false},
		{"user 201 missing id", "POST", "/api/v1/users/", nil, 201, jsonHeader(),
			`{"email":"ada@example.com","first_name":"Ada","last_name":"Lovelace"}`, true},
		{"user 201 leaks password", "POST", "/api/v1/users/", nil, 201, jsonHeader(),
			`{"id":"` + uuid1 + `","email":"ada@example.com","password":"x"}`, true},
		{"user 201 bad uuid", "POST", "/api/v1/users/", nil, 201, jsonHeader(),
			`{"id":"42","email":"ada@example.com"}`, true},
		{"user 401 with challenge", "POST", "/api/v1/users/", nil, 401,
			jsonHeader("WWW-Authenticate", `Bearer realm="api"`),
			`{"detail":"Authentication credentials were not provided."}`, false},
		{"user 401 without challenge", "POST", "/api/v1/users/", nil, 401, jsonHeader(),
			`{"detail":"Authentication credentials were not provided."}`, true},
		{"user 403", "POST", "/api/v1/users/", nil, 403, jsonHeader(),
			`{"detail":"You do not have permission to perform this action."}`, false},
		{"user 403 extra key", "POST", "/api/v1/users/", nil, 403, jsonHeader(), `{"detail":"x","code":"y"}`, true},
		{"503 with Retry-After", "POST", "/api/v1/users/", nil, 503, jsonHeader("Retry-After", "1"),
			`{"detail":"Service temporarily unavailable, try again soon."}`, false},
		{"503 without Retry-After", "POST", "/api/v1/users/", nil, 503, jsonHeader(),
			`{"detail":"Service temporarily unavailable, try again soon."}`, true},

		{"invitation 200", "GET", "/api/v1/organization-invitations/" + uuid1 + "/", nil, 200, jsonHeader(),
			fmt.Sprintf(invitation, 2), false},
		{"invitation without slash", "PATCH", "/api/v1/organization-invitations/" + uuid1, nil, 200, jsonHeader(),
			fmt.Sprintf(invitation, 0), false},
		{"invitation bad role", "GET", "/api/v1/organization-invitations/" + uuid1 + "/", nil, 200, jsonHeader(),
			fmt.Sprintf(invitation, 5), true},
		{"invitation missing token", "GET", "/api/v1/organization-invitations/" + uuid1 + "/", nil, 200, jsonHeader(),
			strings.Replace(fmt.Sprintf(invitation, 0), `"token":"`+uuid2+`",`, "", 1), true},
		{"invitation 404 bad id", "GET", "/api/v1/organization-invitations/not-a-uuid/", nil, 404, jsonHeader(),
			`{"detail":"Not found."}`, false},

		{"comment list nulls", "GET", "/api/v1/comments/", listQuery, 200, jsonHeader(),
			fmt.Sprintf(page, "null", "null"), false},
		{"comment list links", "GET", "/api/v1/comments", listQuery, 200, jsonHeader(),
			fmt.Sprintf(page, `"http://h/api/v1/comments/?page=3"`, `"http://h/api/v1/comments/"`), false},
		{"comment list relative link", "GET", "/api/v1/comments/", listQuery, 200, jsonHeader(),
			fmt.Sprintf(page, `"/api/v1/comments/?page=3"`, "null"), true},
		{"comment list missing count", "GET", "/api/v1/comments/", listQuery, 200, jsonHeader(),
			`{"next":null,"previous":null,"results":[]}`, true},
		{"comment list invalid page", "GET", "/api/v1/comments/", listQuery, 404, jsonHeader(),
			`{"detail":"Invalid page."}`, false},
		{"comment read parent null", "GET", "/api/v1/comments/" + uuid1 + "/", nil, 200, jsonHeader(), commentRead, false},
		{"comment read parent uuid", "GET", "/api/v1/comments/" + uuid1, nil, 200, jsonHeader(),
			strings.Replace(commentRead, `"parent":null`, `"parent":"`+uuid2+`"`, 1), false},
		{"comment read parent not uuid", "GET", "/api/v1/comments/" + uuid1 + "/", nil, 200, jsonHeader(),
			strings.Replace(commentRead, `"parent":null`, `"parent":"x"`, 1), true},
		{"comment write", "PUT", "/api/v1/comments/" + uuid1 + "/", nil, 200, jsonHeader(),
			`{"id":"` + uuid1 + `","content_type":"report","object_id":"` + uuid3 +
				`","tag":null,"text":"","parent":null}`, false},
		{"comment write with commenter", "PATCH", "/api/v1/comments/" + uuid1 + "/", nil, 200, jsonHeader(),
			commentRead, true},
		{"comment write missing object_id", "PATCH", "/api/v1/comments/" + uuid1 + "/", nil, 200, jsonHeader(),
			`{"id":"` + uuid1 + `","content_type":"report"}`, true},

		{"unknown path 404", "GET", "/api/v1/nope/", nil, 404, jsonHeader(), `{"detail":"Not found."}`, false},
		{"unknown path 404 not detail", "GET", "/api/v1/nope/", nil, 404, jsonHeader(), `{"error":"Not found."}`, true},
		{"unknown path 404 html", "GET", "/api/v1/nope/", nil, 404, http.Header{"Content-Type": {"text/html"}}, `<h1>`, true},
		{"unknown path 200", "GET", "/api/v1/nope/", nil, 200, jsonHeader(), `{"detail":"ok"}`, true},
		{"known path 405", "DELETE", "/api/v1/comments/" + uuid1 + "/", nil, 405, jsonHeader("Allow", "GET, PUT, PATCH"),
			`{"detail":"Method \"DELETE\" not allowed."}`, false},
		{"known path 405 without slash", "GET", "/api/v1/auth/login", nil, 405, jsonHeader("Allow", "POST"),
			`{"detail":"Method \"GET\" not allowed."}`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel() // handler tests share one loaded spec across goroutines; -race checks that is safe
			err := s.check(tt.method, tt.path, tt.query, tt.status, tt.header, []byte(tt.body))
			if err != nil {
				t.Logf("check: %v", err)
			}
			if (err != nil) != tt.wantErr {
				t.Fatalf("check() error = %v, wantErr %v", err, tt.wantErr)
			}
		})
	}
}

// recorder is a testing.TB that records Fatalf instead of stopping, so Validate's reporting can be tested.
type recorder struct {
	testing.TB
	fatal string
}

func (r *recorder) Helper() {}

func (r *recorder) Fatalf(format string, args ...any) { r.fatal = fmt.Sprintf(format, args...) }

func TestValidate(t *testing.T) {
	Validate(t, "GET", "/api/v1/nope/", nil, 404, jsonHeader(), []byte(`{"detail":"Not found."}`))

	r := &recorder{}
	body := `{"email":"ada@example.com"}`
	Validate(r, "POST", "/api/v1/users/", nil, 201, jsonHeader(), []byte(body))
	if r.fatal == "" {
		t.Fatal("Validate did not call Fatalf for a body missing a required field")
	}
	if !strings.Contains(r.fatal, body) {
		t.Errorf("Fatalf message does not carry the body: %s", r.fatal)
	}
}

// TestCheckExchange holds the validator to both directions: a request the document forbids must not be
// answered with success, and a request it allows, or a forbidden one refused, is judged by its answer.
func TestCheckExchange(t *testing.T) {
	s := mustLoad(t)
	bearer := http.Header{"Authorization": {"Bearer tok"}, "Content-Type": {"application/json"}}
	list := url.Values{"content_type": {"report"}, "object_id": {uuid3}}
	with := func(k, v string) url.Values {
		q := url.Values{}
		for key, vs := range list {
			q[key] = vs
		}
		q.Set(k, v)
		return q
	}
	page := `{"count":0,"next":null,"previous":null,"results":[]}`
	written := `{"id":"` + uuid1 + `","content_type":"report","object_id":"` + uuid3 + `","tag":null,"text":"x","parent":null}`
	created := func(body string) Request {
		return Request{Method: "POST", Path: "/api/v1/comments/", Header: bearer, Body: []byte(body)}
	}
	ok200 := Response{Status: 200, Header: jsonHeader(), Body: []byte(page)}
	ok201 := Response{Status: 201, Header: jsonHeader(), Body: []byte(written)}
	bad400 := Response{Status: 400, Header: jsonHeader(), Body: []byte(`{"text":["Not a valid string."]}`)}
	notFound := Response{Status: 404, Header: jsonHeader(), Body: []byte(`{"detail":"Invalid page."}`)}
	tests := []struct {
		name    string
		req     Request
		resp    Response
		wantErr bool
	}{
		{"list allowed", Request{Method: "GET", Path: "/api/v1/comments/", Query: list, Header: bearer}, ok200, false},
		{"page last", Request{Method: "GET", Path: "/api/v1/comments/", Query: with("page", "last"), Header: bearer}, ok200, false},
		{"page_size ignored", Request{Method: "GET", Path: "/api/v1/comments/", Query: with("page_size", "abc"), Header: bearer}, ok200, false},
		{"unknown ordering ignored", Request{Method: "GET", Path: "/api/v1/comments/", Query: with("ordering", "bogus"), Header: bearer}, ok200, false},
		{"repeated parameter: the last counts", Request{Method: "GET", Path: "/api/v1/comments/",
			Query: url.Values{"content_type": {"nope", "report"}, "object_id": {uuid3}}, Header: bearer}, ok200, false},
		{"python spelling of a UUID", Request{Method: "GET", Path: "/api/v1/comments/",
			Query: with("object_id", "{"+strings.ToUpper(uuid3)+"}"), Header: bearer}, ok200, false},
		// The API drifting from the document: it accepts what the document forbids.
		{"page not a number answered 200", Request{Method: "GET", Path: "/api/v1/comments/", Query: with("page", "first"),
			Header: bearer}, ok200, true},
		{"page not a number answered 404", Request{Method: "GET", Path: "/api/v1/comments/", Query: with("page", "first"),
			Header: bearer}, notFound, false},
		{"content_type not a choice answered 200", Request{Method: "GET", Path: "/api/v1/comments/",
			Query: with("content_type", "nope"), Header: bearer}, ok200, true},
		{"required query parameter missing answered 200", Request{Method: "GET", Path: "/api/v1/comments/",
			Query: url.Values{"content_type": {"report"}}, Header: bearer}, ok200, true},
		{"no token answered 200", Request{Method: "GET", Path: "/api/v1/comments/", Query: list}, ok200, true},
		{"another scheme answered 200", Request{Method: "GET", Path: "/api/v1/comments/", Query: list,
			Header: http.Header{"Authorization": {"Basic eDp5"}}}, ok200, true},
		{"text as a number", created(`{"content_type":"report","object_id":"` + uuid3 + `","text":5}`), ok201, false},
		{"parent blank", created(`{"content_type":"report","object_id":"` + uuid3 + `","text":"x","parent":""}`), ok201, false},
		{"text a list answered 201", created(`{"content_type":"report","object_id":"` + uuid3 + `","text":[]}`), ok201, true},
		{"text a list answered 400", created(`{"content_type":"report","object_id":"` + uuid3 + `","text":[]}`), bad400, false},
		{"text blank answered 201", created(`{"content_type":"report","object_id":"` + uuid3 + `","text":"  "}`), ok201, true},
		{"text too long answered 201", created(`{"content_type":"report","object_id":"` + uuid3 + `","text":"` +
			strings.Repeat("x", 100001) + `"}`), ok201, true},
		{"missing required field answered 201", created(`{"content_type":"report","text":"x"}`), ok201, true},
		{"body not JSON answered 201", Request{Method: "POST", Path: "/api/v1/comments/",
			Header: http.Header{"Authorization": {"Bearer tok"}, "Content-Type": {"text/plain"}}, Body: []byte("x")}, ok201, true},
		{"number out of float64's range is not judged", created(`{"content_type":"report","object_id":"` + uuid3 +
			`","text":"x","tag":1e400}`), ok201, false},
		{"PUT content_type not a choice answered 200", Request{Method: "PUT", Path: "/api/v1/comments/" + uuid1 + "/",
			Header: bearer, Body: []byte(`{"content_type":"dataset","object_id":"` + uuid3 + `"}`)},
			Response{Status: 200, Header: jsonHeader(), Body: []byte(written)}, true},
		{"PATCH invitation without a body", Request{Method: "PATCH", Path: "/api/v1/organization-invitations/" + uuid1 + "/",
			Header: http.Header{"Authorization": {"Bearer tok"}}},
			Response{Status: 200, Header: jsonHeader(), Body: []byte(fmt.Sprintf(invitation, 0))}, false},
		{"PATCH invitation status as text", Request{Method: "PATCH", Path: "/api/v1/organization-invitations/" + uuid1 + "/",
			Header: bearer, Body: []byte(`{"status":"1"}`)},
			Response{Status: 200, Header: jsonHeader(), Body: []byte(fmt.Sprintf(invitation, 0))}, false},
		{"PATCH invitation status out of range answered 200", Request{Method: "PATCH",
			Path: "/api/v1/organization-invitations/" + uuid1 + "/", Header: bearer, Body: []byte(`{"status":7}`)},
			Response{Status: 200, Header: jsonHeader(), Body: []byte(fmt.Sprintf(invitation, 0))}, true},
		// The document drifting from the API's answers is still caught on a valid request.
		{"allowed request, undeclared answer", Request{Method: "GET", Path: "/api/v1/comments/", Query: list, Header: bearer},
			Response{Status: 200, Header: jsonHeader(), Body: []byte(`{"count":0}`)}, true},
		{"schema as YAML text", Request{Method: "GET", Path: "/api/schema/"},
			Response{Status: 200, Header: http.Header{"Content-Type": {"application/vnd.oai.openapi"}}, Body: []byte("openapi: 3.0.3\n")}, false},
		{"schema as an undeclared type", Request{Method: "GET", Path: "/api/schema/"},
			Response{Status: 200, Header: http.Header{"Content-Type": {"text/plain"}}, Body: []byte("openapi: 3.0.3\n")}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := s.checkExchange(tt.req, tt.resp)
			if err != nil {
				t.Logf("checkExchange: %v", err)
			}
			if (err != nil) != tt.wantErr {
				t.Fatalf("checkExchange() error = %v, wantErr %v", err, tt.wantErr)
			}
		})
	}
}
