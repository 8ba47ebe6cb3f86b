package consistency_test

import (
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/google/uuid"
	"github.com/reportingplatform/api/infra/fixture"
	"github.com/reportingplatform/api/infra/routes"
	"github.com/reportingplatform/api/infra/testkit"
	"github.com/reportingplatform/api/infra/wiring"
	"github.com/reportingplatform/api/shared/config"
	"github.com/reportingplatform/api/shared/domain"
	"github.com/reportingplatform/api/shared/dynamo"
)

// What SPEC §9 lets a request read before its token is verified: one BatchGetItem of the token, its
// user and the few items its path and body name, and beside it at most one Query of a first page's
// index entries.
const (
	nobodyMaxKeys  = 8
	nobodyMaxLimit = 100
)

// nobodyWorld is enough data that a wider read would show: an organization with more invitations than
// a list reads whole, and portfolios to name, and an object with more comments than the deepest page the
// test asks for, so that reading a page's comments before the token is verified would show.
type nobodyWorld struct {
	db                   *testkit.DB
	gw                   http.Handler
	staff, admin         domain.User
	org                  string
	portfolios           []string
	invitation           string
	object, comment, tip string // the object with many comments, its first comment, its newest
	seq                  int    // numbers what the samples make new
	// linked are comment list requests a next link names (a continuation): at the default page size and at
	// page_size 100, whose Query waits for the session.
	linked []string
}

func newNobodyWorld(t *testing.T) *nobodyWorld {
	t.Helper()
	const invitations, comments = 150, 1100
	db := testkit.NewDB(t)
	now := time.Now().UTC().Truncate(time.Microsecond)
	w := &nobodyWorld{db: db, org: uuid.NewString(), object: uuid.NewString()}
	staff := fixture.User{ID: uuid.NewString(), Email: "nobody-staff-" + w.org[:8] + "@example.com", IsStaff: true}
	admin := fixture.User{ID: uuid.NewString(), Email: "nobody-admin-" + w.org[:8] + "@example.com"}
	member := uuid.NewString()
	file := fixture.File{
		Users:         []fixture.User{staff, admin},
		Organizations: []fixture.Organization{{ID: w.org, Name: "Nobody's business"}},
		Members:       []fixture.Member{{ID: member, OrganizationID: w.org, UserID: admin.ID, Role: domain.Ptr(2)}},
	}
	for i := range 100 {
		p := fixture.Portfolio{ID: uuid.NewString(), OrganizationID: w.org, Name: fmt.Sprintf("Fund %03d", i)}
		w.portfolios = append(w.portfolios, p.ID)
		file.Portfolios = append(file.Portfolios, p)
	}
	for i := range invitations {
		file.Invitations = append(file.Invitations, fixture.Invitation{ID: uuid.NewString(), OrganizationID: w.org,
			InviterMemberID: member, Email: fmt.Sprintf("guest-%03d@example.com", i), AccessiblePortfolioIDs: w.portfolios[:3]})
	}
	w.invitation = file.Invitations[0].ID
	for i := range comments {
		at := now.Add(time.Duration(i-comments) * time.Second).Format(time.RFC3339Nano)
		file.Comments = append(file.Comments,
			fixture.Comment{ID: uuid.NewString(), OrganizationID: w.org, CommenterID: admin.ID,
				ContentType: "report", ObjectID: w.object, Tag: domain.Ptr("t"), Text: fmt.Sprintf("comment %d", i),
				CreatedAt: &at})
	}
	w.comment, w.tip = file.Comments[0].ID, file.Comments[comments-1].ID
	db.Load(t, file, now, time.Hour)
	var err error
	if w.staff, err = db.Store.User(t.Context(), staff.ID); err != nil {
		t.Fatal(err)
	}
	if w.admin, err = db.Store.User(t.Context(), admin.ID); err != nil {
		t.Fatal(err)
	}
	handlers := map[string]http.Handler{}
	cfg := config.Config{TokenTTL: time.Hour, InvitationTTL: time.Hour, OutboxDir: t.TempDir(),
		InvitationURL: config.DefaultInvitationURL}
	for fn, h := range wiring.Handlers(db.Store, testkit.Log(t), cfg, func() time.Time { return now }) {
		handlers[fn] = h
	}
	w.gw = testkit.Gateway(t, handlers)
	return w
}

// nobodyRequest is one request a route accepts at its largest.
type nobodyRequest struct{ path, body string }

// largest are, by route of infra/routes, the largest queries and bodies each route accepts, where they
// are larger than its sample's.
func (w *nobodyWorld) largest() map[string][]nobodyRequest {
	const invitations, comments = "/api/v1/organization-invitations/", "/api/v1/comments/"
	ids := func(n int) string {
		out := slices.Clone(w.portfolios)
		for len(out) < n {
			out = append(out, uuid.NewString())
		}
		return `["` + strings.Join(out[:n], `", "`) + `"]`
	}
	invitation := func(portfolios int) string {
		return `{"organization_id": "` + w.org +
			`", "email": "new-guest@example.com", "first_name": "New", "last_name": "Guest",
			"role": 2, "status": 1, "accessible_portfolio_ids": ` + ids(portfolios) + `}`
	}
	object := "content_type=report&object_id=" + w.object
	comment := `{"content_type": "report", "object_id": "` + w.object + `", "tag": "t", "parent": "` + w.tip + `",
		"organization_id": "` + w.org + `", "text": "` + strings.Repeat("x", domain.MaxCommentText) + `"}`
	return map[string][]nobodyRequest{
		"GET " + invitations: {
			{path: invitations},
			{path: invitations + "?page=last&page_size=100"},
			{path: invitations + "?organization=" + w.org + "&page_size=100"},
			{path: invitations + "?organization=" + w.org + "&status=0&email=guest-001@example.com&page=2&page_size=100"},
		},
		"POST " + invitations: {
			{path: invitations, body: invitation(100)},
			{path: invitations, body: invitation(1000)},
		},
		"PATCH " + invitations + "{id}/": {{path: invitations + w.invitation + "/", body: invitation(100)}},
		"GET " + comments: {
			{path: w.linked[0]},
			{path: w.linked[1]},
			{path: comments + "?" + object + "&page_size=100"},
			{path: comments + "?" + object + "&page=last&page_size=100"},
			{path: comments + "?" + object + "&page=50"},
			{path: comments + "?" + object + "&page=10&page_size=100"},
			{path: comments + "?" + object + "&page=11&page_size=100&ordering=-created_at"},
			{path: comments + "?" + object + "&tag=t&page=10&page_size=100&ordering=-created_at"},
		},
		"POST " + comments:            {{path: comments, body: comment}},
		"PUT " + comments + "{id}/":   {{path: comments + w.comment + "/", body: comment}},
		"PATCH " + comments + "{id}/": {{path: comments + w.comment + "/", body: comment}},
		"POST /api/v1/users/": {{path: "/api/v1/users/", body: `{"email": "someone@example.com", "password": "Vq8#mLp2zR",
			"confirm_password": "Vq8#mLp2zR", "first_name": "Some", "last_name": "One"}`}},
	}
}

// value fills the samples' placeholders: the organization, its object with many comments and its
// first comment, its first invitation (also as what a DELETE removes: nothing is removed here).
func (w *nobodyWorld) value(name string) (string, bool) {
	v, ok := map[string]string{"organization": w.org, "report": w.object, "comment": w.comment,
		"new comment": w.comment, "invitation": w.invitation, "new invitation": w.invitation}[name]
	if name == "n" {
		w.seq++
		return fmt.Sprint(w.seq), true
	}
	return v, ok
}

// requests are those of r: its largest, else its sample.
func (w *nobodyWorld) requests(t *testing.T, r routes.Route, largest map[string][]nobodyRequest) []nobodyRequest {
	t.Helper()
	if reqs, ok := largest[r.Name()]; ok {
		return reqs
	}
	req, err := r.In(routes.World{Value: w.value})
	if err != nil {
		t.Fatal(err)
	}
	return []nobodyRequest{{path: req.Path, body: req.Body}}
}

// nobodyRoute is a route of template.yaml as its function's router serves it.
type nobodyRoute struct {
	method, pattern string
	open            bool
	served          []string // every method the route's path serves
}

// servedRoutes are the routes of template.yaml's functions, derived as TestRoutesAgree derives them:
// a new route is in the list without anyone adding it.
func servedRoutes(t *testing.T) []nobodyRoute {
	t.Helper()
	handlers := wiring.Handlers(nil, testkit.Log(t), config.Config{}, time.Now)
	var out []nobodyRoute
	for _, tr := range templateRoutes(t) {
		h, ok := handlers[tr.Function]
		if !ok {
			t.Fatalf("template.yaml routes %s to %s, which has no handler", tr.Path, tr.Function)
		}
		var served []string
		for _, r := range h.Routes() {
			if normal(r.Pattern) == normal(tr.Path) {
				served = append(served, r.Method)
			}
		}
		for _, r := range h.Routes() {
			if normal(r.Pattern) == normal(tr.Path) && (tr.Method == "ANY" || tr.Method == r.Method) {
				out = append(out, nobodyRoute{method: r.Method, pattern: r.Pattern, open: r.Open, served: served})
			}
		}
	}
	return out
}

// TestNobodyCostsAFirstPage is SPEC §9's "work for callers who are nobody": every route of infra/routes
// that needs a token, sent the largest query and body it accepts, with a forged token (a known user's id with a
// wrong secret, an unknown id) or an expired one, answers DRF's 401 having read at most one
// BatchGetItem of a handful of keys and one Query of a first page's index entries (keys only, Limit at
// most 100), and nothing else: no caller-sized key list, no deeper page, no second round trip, no
// write. So does a method the route's path does not serve. The known users have listed before with
// their real tokens, as a process that served them has seen them (which has also read the key that signs
// list continuations: a process reads it once, beside its first list's session). A page that a next link
// names goes out with the session as a first page does.
func TestNobodyCostsAFirstPage(t *testing.T) {
	w := newNobodyWorld(t)
	object := "/api/v1/comments/?content_type=report&object_id=" + w.object
	for _, u := range []domain.User{w.staff, w.admin} {
		for _, path := range []string{"/api/v1/organization-invitations/",
			"/api/v1/organization-invitations/?organization=" + w.org, object + "&page=3", object + "&page_size=100"} {
			resp := testkit.Do(t, w.gw, testkit.Request{Method: "GET", Path: path, Token: w.db.Token(t, u, time.Hour)})
			if resp.Status != 200 {
				t.Fatalf("%s as %s: %d %s", path, u.Email, resp.Status, resp.Body)
			}
			if next, _ := resp.Object(t)["next"].(string); strings.HasPrefix(path, object) && u.ID == w.admin.ID {
				link, err := url.Parse(next)
				if err != nil || !link.Query().Has("cursor") {
					t.Fatalf("%s: next %q carries no continuation", path, next)
				}
				w.linked = append(w.linked, link.RequestURI())
			}
		}
	}
	tokens := map[string]string{
		"staff's id, wrong secret": newToken(t, w.staff.ID),
		"admin's id, wrong secret": newToken(t, w.admin.ID),
		"unknown id":               newToken(t, uuid.NewString()),
		"expired":                  w.db.Token(t, w.staff, -time.Hour),
	}
	largest := w.largest()
	for _, name := range routes.Unknown(slices.Collect(maps.Keys(largest))) {
		t.Errorf("largest has requests of %s, which infra/routes does not list", name)
	}
	indexes := keyIndexes()
	for _, r := range routes.Protected() {
		key := r.Name()
		reqs := w.requests(t, r, largest)
		for i, req := range reqs {
			for name, tok := range tokens {
				t.Run(fmt.Sprintf("%s %d/%s", key, i, name), func(t *testing.T) {
					nobodyCosts(t, w, indexes, r.Method, req, tok)
				})
			}
		}
		// A method the path does not serve is answered after authentication too (SPEC §1).
		for _, m := range []string{"PUT", "DELETE", "POST", "PATCH", "GET"} {
			if !slices.ContainsFunc(routes.All, func(o routes.Route) bool { return o.Pattern == r.Pattern && o.Method == m }) {
				t.Run(key+" as "+m, func(t *testing.T) {
					nobodyCosts(t, w, indexes, m, reqs[0], tokens["unknown id"])
				})
				break
			}
		}
	}
}

// nobodyCosts sends one request with a token that does not authenticate and holds it to SPEC §9.
func nobodyCosts(t *testing.T, w *nobodyWorld, keysOnly map[string]bool, method string, req nobodyRequest,
	token string) {
	t.Helper()
	w.db.Calls.Reset()
	resp := testkit.Do(t, w.gw, testkit.Request{Method: method, Path: req.path, Token: token, Body: req.body})
	resp.Expect(t, 401, `{"detail": "Invalid token."}`)
	var batches, queries int
	for _, in := range w.db.Calls.Inputs() {
		switch in := in.(type) {
		case *dynamodb.BatchGetItemInput:
			batches++
			keys := 0
			for _, ka := range in.RequestItems {
				keys += len(ka.Keys)
			}
			if keys > nobodyMaxKeys {
				t.Errorf("a BatchGetItem of %d keys before the token was verified, want at most %d", keys, nobodyMaxKeys)
			}
		case *dynamodb.QueryInput:
			queries++
			index := aws.ToString(in.IndexName)
			limit := "none"
			if in.Limit != nil {
				limit = fmt.Sprint(*in.Limit)
			}
			if !keysOnly[index] || in.Select == types.SelectAllAttributes || in.Limit == nil || *in.Limit > nobodyMaxLimit {
				t.Errorf("a Query of %q (Limit %s, Select %q) before the token was verified, want index entries, Limit at most %d",
					index, limit, in.Select, nobodyMaxLimit)
			}
		default:
			t.Errorf("%T before the token was verified", in)
		}
	}
	if batches > 1 || queries > 1 {
		t.Errorf("calls %v before the token was verified, want at most one BatchGetItem and one Query", w.db.Calls)
	}
}

// keyIndexes are the table's indexes that hold entries rather than whole items (their projection is
// not ALL), as schema.go defines them.
func keyIndexes() map[string]bool {
	out := map[string]bool{}
	for _, gsi := range dynamo.TableDefinition("x").GlobalSecondaryIndexes {
		if gsi.Projection != nil && gsi.Projection.ProjectionType != types.ProjectionTypeAll {
			out[aws.ToString(gsi.IndexName)] = true
		}
	}
	return out
}
