package comments_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/google/uuid"
	"github.com/reportingplatform/api/functions/comments"
	"github.com/reportingplatform/api/infra/fixture"
	"github.com/reportingplatform/api/infra/testkit"
	"github.com/reportingplatform/api/shared/domain"
	"github.com/reportingplatform/api/shared/dynamo"
)

// env is one test's world: a fresh table, the comments function behind the gateway, two
// organizations and users in every role SPEC §3 names.
type env struct {
	db       *testkit.DB
	gw       http.Handler
	now      time.Time // the handler's clock: every save's updated_at
	orgA     string
	orgB     string
	users    map[string]domain.User // by role name
	tokens   map[string]string
	loadedAt time.Time // updated_at of every comment the fixture loader wrote
}

// Roles: staff (no membership), alice (commenter, member of A), amy (member of A), bob (member of B),
// olga (no membership).
func setup(t *testing.T) *env {
	t.Helper()
	db := testkit.NewDB(t)
	return setupOn(t, db, db.Store)
}

// setupOn is setup with the handler over store (a store with its own client, say), on db's table.
func setupOn(t testing.TB, db *testkit.DB, store *dynamo.Store) *env {
	t.Helper()
	now := time.Now().UTC().Truncate(time.Microsecond)
	e := &env{
		db: db, now: now, orgA: uuid.NewString(), orgB: uuid.NewString(),
		users: map[string]domain.User{}, tokens: map[string]string{},
		loadedAt: now.Add(-time.Hour),
	}
	log := testkit.Log(t) // TEST_LOG=1 shows the lines
	e.gw = testkit.Gateway(t, map[string]http.Handler{
		"CommentsFunction": comments.New(store, log, func() time.Time { return now }),
	})
	for _, u := range []struct {
		role        string
		first, last *string
		staff       bool
	}{
		{"staff", domain.Ptr("Sam"), domain.Ptr("Staff"), true},
		{"alice", domain.Ptr("Alice"), nil, false},
		{"amy", domain.Ptr("Amy"), domain.Ptr("Member"), false},
		{"bob", nil, domain.Ptr("Bob"), false},
		{"olga", domain.Ptr("Olga"), domain.Ptr("Outsider"), false},
	} {
		user := db.User(t,
			testkit.NewUser{Email: u.role + "-" + uuid.NewString()[:8] + "@Example.COM", FirstName: u.first,
				LastName: u.last, Staff: u.staff})
		e.users[u.role] = user
		e.tokens[u.role] = db.Token(t, user, time.Hour)
	}
	e.load(t, fixture.File{
		Organizations: []fixture.Organization{{ID: e.orgA, Name: "Acme " + e.orgA[:8]},
			{ID: e.orgB, Name: "Beta " + e.orgB[:8]}},
		Members: []fixture.Member{
			{ID: uuid.NewString(), OrganizationID: e.orgA, UserID: e.users["alice"].ID},
			{ID: uuid.NewString(), OrganizationID: e.orgA, UserID: e.users["amy"].ID, Role: domain.Ptr(2)},
			{ID: uuid.NewString(), OrganizationID: e.orgB, UserID: e.users["bob"].ID},
		},
	})
	return e
}

// load writes f with the fixture loader, which keeps the counters as the API does.
func (e *env) load(t testing.TB, f fixture.File) {
	t.Helper()
	e.db.Load(t, f, e.loadedAt, time.Hour)
}

// thread builds comments on one object of orgA by alice, created a second apart from base in the
// order given.
type thread struct {
	e           *env
	contentType string
	objectID    string
	org         string
	base        time.Time
	comments    []fixture.Comment
}

func (e *env) thread(contentType string) *thread {
	return &thread{e: e, contentType: contentType, objectID: uuid.NewString(), org: e.orgA,
		base: time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC)}
}

// add appends a comment and returns it; tag "" means none, parent "" none.
func (th *thread) add(tag, parent string) fixture.Comment {
	c := fixture.Comment{
		ID: uuid.NewString(), OrganizationID: th.org, CommenterID: th.e.users["alice"].ID,
		ContentType: th.contentType, ObjectID: th.objectID, Text: "comment " + uuid.NewString()[:8],
		CreatedAt: domain.Ptr(th.base.Add(time.Duration(len(th.comments)) * time.Second).Format(time.RFC3339Nano)),
	}
	if tag != "" {
		c.Tag = &tag
	}
	if parent != "" {
		c.Parent = &parent
	}
	th.comments = append(th.comments, c)
	return c
}

func (th *thread) load(t testing.TB) { t.Helper(); th.e.load(t, fixture.File{Comments: th.comments}) }

// readJSON is the read shape the API must give c.
func (e *env) readJSON(t testing.TB, c fixture.Comment) map[string]any {
	t.Helper()
	var author domain.User
	for _, u := range e.users {
		if u.ID == c.CommenterID {
			author = u
		}
	}
	created, err := time.Parse(time.RFC3339Nano, *c.CreatedAt)
	if err != nil {
		t.Fatal(err)
	}
	return map[string]any{
		"id": c.ID, "content_type": c.ContentType,
		"commenter": map[string]any{"id": author.ID, "full_name": author.FullName(), "email": author.Email,
			"first_name": domain.Deref(author.FirstName), "last_name": domain.Deref(author.LastName)},
		"created_at": domain.FormatTime(created), "updated_at": domain.FormatTime(e.loadedAt),
		"object_id": c.ObjectID, "tag": c.Tag, "text": c.Text, "parent": c.Parent,
	}
}

// do sends one request as role ("" for none) through the gateway; responses are checked against
// openapi.yaml.
func (e *env) do(t testing.TB, method, path, role, body string) testkit.Response {
	t.Helper()
	return testkit.Do(t, e.gw, testkit.Request{Method: method, Path: path, Token: e.tokens[role], Body: body})
}

// list is the envelope the API must give.
func list(count int, next, previous *string, results ...map[string]any) string {
	if results == nil {
		results = []map[string]any{}
	}
	b, _ := json.Marshal(map[string]any{"count": count, "next": next, "previous": previous, "results": results})
	return string(b)
}

func str(s string) *string { return &s }

// taggedWith is the comments of cs with tag, in cs's order.
func taggedWith(cs []fixture.Comment, tag string) []fixture.Comment {
	var out []fixture.Comment
	for _, c := range cs {
		if c.Tag != nil && *c.Tag == tag {
			out = append(out, c)
		}
	}
	return out
}

// listPath is the list URL for an object with extra query parameters.
func listPath(contentType, objectID string, extra ...string) string {
	q := "content_type=" + contentType + "&object_id=" + objectID
	for _, x := range extra {
		q += "&" + x
	}
	return "/api/v1/comments/?" + q
}

// keysInOrder returns the keys of the top-level JSON object in body, in the order they appear.
func keysInOrder(t testing.TB, body []byte) []string {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(body))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		t.Fatalf("not an object: %s", body)
	}
	var keys []string
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, tok.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			t.Fatal(err)
		}
	}
	return keys
}

// cursorValue is a continuation as links carry it (base64url).
var cursorValue = regexp.MustCompile(`cursor=[A-Za-z0-9_-]+`)

// masked is resp with the value of each link's continuation replaced by C, after checking that every
// next and previous link carries exactly one: tests compare the links' shape, the value is opaque (its
// checks are shared/httpapi's; following links proves it works).
func masked(t testing.TB, resp testkit.Response) testkit.Response {
	t.Helper()
	var env struct{ Next, Previous *string }
	if err := json.Unmarshal(resp.Body, &env); err != nil {
		t.Fatalf("not a page: %s", resp.Body)
	}
	for _, l := range []*string{env.Next, env.Previous} {
		if l == nil {
			continue
		}
		u, err := url.Parse(*l)
		if err != nil || len(u.Query()["cursor"]) != 1 || len(cursorValue.FindAllString(*l, -1)) != 1 {
			t.Fatalf("link %s does not carry one continuation", *l)
		}
	}
	resp.Body = cursorValue.ReplaceAll(resp.Body, []byte("cursor=C"))
	return resp
}

// A list's first call as describeCalls names it: the session (token and user) with the object's
// counter, and with a tag the tag's counter too.
const (
	sessionCall    = "BatchGetItem OBJECT×1 TOKEN×1 USER×1"
	sessionTagCall = "BatchGetItem OBJECT×2 TOKEN×1 USER×1"
)

// describeCalls names each DynamoDB call since the last Reset by its operation, the index a Query
// read and the kinds of keys a read by key asked for ("BatchGetItem COMMENT×20 USER×1"), sorted, so
// that a test can say which calls a request made whatever the order parallel calls ended in.
func describeCalls(calls *testkit.Calls) []string {
	kinds := func(keys []map[string]types.AttributeValue) string {
		n := map[string]int{}
		for _, k := range keys {
			pk := k["PK"].(*types.AttributeValueMemberS).Value
			n[pk[:strings.IndexByte(pk, '#')]]++
		}
		var out []string
		for kind, count := range n {
			out = append(out, fmt.Sprintf("%s×%d", kind, count))
		}
		slices.Sort(out)
		return strings.Join(out, " ")
	}
	var out []string
	for _, in := range calls.Inputs() {
		switch in := in.(type) {
		case *dynamodb.QueryInput:
			out = append(out, "Query "+aws.ToString(in.IndexName))
		case *dynamodb.BatchGetItemInput:
			for _, ka := range in.RequestItems {
				out = append(out, "BatchGetItem "+kinds(ka.Keys))
			}
		case *dynamodb.GetItemInput:
			out = append(out, "GetItem "+kinds([]map[string]types.AttributeValue{in.Key}))
		default:
			out = append(out, fmt.Sprintf("%T", in))
		}
	}
	slices.Sort(out)
	return out
}

// warm makes the process read the table's continuation key (made by the table's first list), so that
// the calls a test counts next are those of the list alone.
func (e *env) warm(t *testing.T) {
	t.Helper()
	if resp := e.do(t, "GET", listPath("report", uuid.NewString()), "alice", ""); resp.Status != 200 {
		t.Fatalf("%d %s", resp.Status, resp.Body)
	}
}

// page2 is the next link of a list's page 1 (its continuation masked).
func page2(objectID string) *string {
	return str("http://127.0.0.1:3000/api/v1/comments/?content_type=report&cursor=C&object_id=" + objectID + "&page=2")
}

// shown is the read shape of th's comments from to to, as a page must show them.
func (th *thread) shown(t *testing.T, from, to int) []map[string]any {
	t.Helper()
	out := make([]map[string]any, 0, to-from)
	for _, c := range th.comments[from:to] {
		out = append(out, th.e.readJSON(t, c))
	}
	return out
}

// TestPageOfAnObjectWhoseIDAnotherTypeShares: GSI6's partition is the object id alone, so the comments
