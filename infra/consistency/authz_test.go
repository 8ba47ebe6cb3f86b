package consistency_test

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/reportingplatform/api/infra/fixture"
	"github.com/reportingplatform/api/infra/routes"
	"github.com/reportingplatform/api/infra/testkit"
	"github.com/reportingplatform/api/infra/wiring"
	"github.com/reportingplatform/api/shared/config"
	"github.com/reportingplatform/api/shared/domain"
)

// outcome is what SPEC §2 and §3 give one caller for one operation.
type outcome int

const (
	noCredentials outcome = iota // 401: no Authorization, or another scheme
	bareBearer                   // 401: "Bearer" with nothing after it
	spacedToken                  // 401: more than one word after "Bearer"
	invalidToken                 // 401: unknown, forged or expired token
	inactiveUser                 // 401: the token of a user made inactive
	forbidden                    // 403
	notFound                     // 404
	emptyList                    // 200, count 0: none of the caller's business
	rejected                     // 400 with the operation's own body: an object the caller may not know of
	allowed                      // the operation's success, checked by the operation
)

// refusals are the exact bodies of every outcome but a success.
var refusals = map[outcome]struct {
	status int
	body   string
}{
	noCredentials: {401, `{"detail": "Authentication credentials were not provided."}`},
	bareBearer:    {401, `{"detail": "Invalid token header. No credentials provided."}`},
	spacedToken:   {401, `{"detail": "Invalid token header. Token string should not contain spaces."}`},
	invalidToken:  {401, `{"detail": "Invalid token."}`},
	inactiveUser:  {401, `{"detail": "User inactive or deleted."}`},
	forbidden:     {403, `{"detail": "You do not have permission to perform this action."}`},
	notFound:      {404, `{"detail": "Not found."}`},
	emptyList:     {200, `{"count": 0, "next": null, "previous": null, "results": []}`},
}

// The caller classes, in the order of the matrix's columns: eight without a valid token, then the
// users of infra/routes' Who.
var callerNames = append([]string{
	"no header", "other scheme", "bare Bearer", "two words", "unknown token", "forged staff token",
	"expired token", "inactive admin"}, routes.Users...)

// Column by column, as callerNames: the last eight are real, active users.
const (
	n401, b401, s401, bad, dead = noCredentials, bareBearer, spacedToken, invalidToken, inactiveUser
	no403, no404, none, yes     = forbidden, notFound, emptyList, allowed
	no400                       = rejected
)

// authzWorld is two organizations, A (whose objects the matrix works on) and B (whose data must never
// show), with a user of every caller class, served by the four functions behind the gateway.
type authzWorld struct {
	db        *testkit.DB
	gw        http.Handler
	suffix    string // makes this run's names and addresses its own
	now       time.Time
	headers   map[string]string // Authorization header by caller class; absent: none sent
	users     map[string]domain.User
	orgA      fixture.Organization
	folioA    fixture.Portfolio
	adminMbr  string
	invA      domain.Invitation // pending, to the invitee's address in upper case
	invDecl   domain.Invitation // pending, to the invitee's address: the invitee may decline it
	objA      string
	comments  []fixture.Comment          // on objA; the first, by the commenter, is the one the matrix reads and writes
	objDel    string                     // another object of A, with one comment per caller class to delete
	doomed    map[string]fixture.Comment // by caller class: the commenter's comment that caller tries to delete
	doomedInv map[string]string          // by caller class: an invitation of A, not to the invitee, to try to delete
	secretsA  []string                   // what only readers of A's objects may see
	secretsB  []string                   // what no response of the matrix may carry
	seq       int                        // numbers what the samples make new
}

const authzTTL = 7 * 24 * time.Hour

func newAuthzWorld(t *testing.T) *authzWorld {
	t.Helper()
	db := testkit.NewDB(t)
	now := time.Now().UTC().Truncate(time.Microsecond)
	r := uuid.NewString()[:8]
	w := &authzWorld{db: db, now: now, suffix: r, headers: map[string]string{}, users: map[string]domain.User{}}
	id := func() string { return uuid.NewString() }
	person := func(class, first, last string, staff, super bool) fixture.User {
		return fixture.User{ID: id(), Email: strings.ReplaceAll(class, " ", "-") + "-" + r + "@example.com",
			FirstName: domain.Ptr(first), LastName: domain.Ptr(last), IsStaff: staff, IsSuperuser: super}
	}
	people := map[string]fixture.User{
		"outsider":       person("outsider", "Otto", "Outsider", false, false),
		"invitee":        person("invitee", "Ivy", "Invitee", false, false),
		"member":         person("member", "Mel", "Member", false, false),
		"collaborator":   person("collaborator", "Col", "Lab", false, false),
		"administrator":  person("administrator", "Ada", "Admin", false, false),
		"commenter":      person("commenter", "Cora", "Commenter", false, false),
		"staff":          person("staff", "Sam", "Staff", true, false),
		"superuser":      person("superuser", "Sue", "Super", false, true),
		"inactive admin": person("inactive admin", "Ina", "Active", false, false),
	}
	w.orgA = fixture.Organization{ID: id(), Name: "Aurora " + r}
	orgB := fixture.Organization{ID: id(), Name: "Borealis " + r}
	w.folioA = fixture.Portfolio{ID: id(), OrganizationID: w.orgA.ID, Name: "Atlas fund " + r}
	folioB := fixture.Portfolio{ID: id(), OrganizationID: orgB.ID, Name: "Boreal fund " + r}
	w.adminMbr = id()
	outsiderMbr := id()
	member := func(mid string, org fixture.Organization, who string, role int) fixture.Member {
		return fixture.Member{ID: mid, OrganizationID: org.ID, UserID: people[who].ID, Role: domain.Ptr(role)}
	}
	invitee := people["invitee"].Email
	w.doomedInv = map[string]string{}
	var doomedInvs []fixture.Invitation
	for _, caller := range callerNames {
		inv := fixture.Invitation{ID: id(), OrganizationID: w.orgA.ID, InviterMemberID: w.adminMbr,
			Email: "doomed-" + strings.ReplaceAll(caller, " ", "-") + "-" + r + "@example.com"}
		w.doomedInv[caller] = inv.ID
		doomedInvs = append(doomedInvs, inv)
	}
	invitations := []fixture.Invitation{
		{ID: id(), OrganizationID: w.orgA.ID, InviterMemberID: w.adminMbr, Email: strings.ToUpper(invitee),
			FirstName: domain.Ptr("Xavier"), LastName: domain.Ptr("Invitee"), Role: domain.Ptr(1),
			AccessiblePortfolioIDs: []string{w.folioA.ID}},
		{ID: id(), OrganizationID: w.orgA.ID, InviterMemberID: w.adminMbr, Email: invitee},
		{ID: id(), OrganizationID: orgB.ID, InviterMemberID: outsiderMbr, Email: "b-guest-" + r + "@example.com",
			FirstName: domain.Ptr("Bjorn"), AccessiblePortfolioIDs: []string{folioB.ID}},
	}
	w.objA = id()
	objB := id()
	at := func(s int) *string {
		return domain.Ptr(now.Add(time.Duration(s-60) * time.Second).Format(time.RFC3339Nano))
	}
	comment := func(org fixture.Organization, obj, who, tag, text string, parent *string, s int) fixture.Comment {
		c := fixture.Comment{ID: id(), OrganizationID: org.ID, CommenterID: people[who].ID, ContentType: "report",
			ObjectID: obj, Text: text, Parent: parent, CreatedAt: at(s)}
		if tag != "" {
			c.Tag = domain.Ptr(tag)
		}
		return c
	}
	first := comment(w.orgA, w.objA, "commenter", "review", "Aurora numbers look right "+r, nil, 0)
	w.comments = []fixture.Comment{first,
		comment(w.orgA, w.objA, "administrator", "", "Aurora agrees "+r, &first.ID, 1),
		comment(w.orgA, w.objA, "member", "later", "Aurora follow-up "+r, nil, 2)}
	commentB := comment(orgB, objB, "outsider", "boreal-tag-"+r, "Borealis only text "+r, nil, 0)
	w.objDel, w.doomed = id(), map[string]fixture.Comment{}
	var doomed []fixture.Comment
	for i, caller := range callerNames {
		c := comment(w.orgA, w.objDel, "commenter", "doomed", "Aurora doomed "+caller+" "+r, nil, i)
		w.doomed[caller] = c
		doomed = append(doomed, c)
	}

	var users []fixture.User
	for _, u := range people {
		users = append(users, u)
	}
	db.Load(t, fixture.File{
		Users:         users,
		Organizations: []fixture.Organization{w.orgA, orgB},
		Members: []fixture.Member{
			member(w.adminMbr, w.orgA, "administrator", 2), member(id(), w.orgA, "collaborator", 1),
			member(id(), w.orgA, "member", 0), member(id(), w.orgA, "commenter", 0),
			member(id(), w.orgA, "inactive admin", 2), member(outsiderMbr, orgB, "outsider", 2),
		},
		Portfolios:  []fixture.Portfolio{w.folioA, folioB},
		Invitations: append(append([]fixture.Invitation{}, invitations...), doomedInvs...),
		Comments:    append(append(append([]fixture.Comment{}, w.comments...), commentB), doomed...),
	}, now, authzTTL)

	for class, p := range people {
		u, err := db.Store.User(t.Context(), p.ID)
		if err != nil {
			t.Fatalf("read %s: %v", class, err)
		}
		w.users[class] = u
		w.headers[class] = "Bearer " + db.Token(t, u, time.Hour)
	}
	db.Deactivate(t, w.users["inactive admin"]) // after its token was issued
	staffToken := strings.TrimPrefix(w.headers["staff"], "Bearer ")
	w.headers["other scheme"] = "Basic " + staffToken
	w.headers["bare Bearer"] = "Bearer"
	w.headers["two words"] = "Bearer " + staffToken + " x"
	w.headers["unknown token"] = "Bearer " + newToken(t, uuid.NewString())
	w.headers["forged staff token"] = "Bearer " + newToken(t, w.users["staff"].ID)
	w.headers["expired token"] = "Bearer " + db.Token(t, w.users["staff"], -24*time.Hour)

	stored := func(fi fixture.Invitation) domain.Invitation {
		inv, err := db.Store.Invitation(t.Context(), fi.ID)
		if err != nil {
			t.Fatal(err)
		}
		return inv
	}
	w.invA, w.invDecl = stored(invitations[0]), stored(invitations[1])
	invB := stored(invitations[2])
	for _, inv := range doomedInvs {
		w.secretsA = append(w.secretsA, inv.ID, inv.Email)
	}
	w.secretsA = append(w.secretsA, w.orgA.ID, w.orgA.Name, w.folioA.ID, w.folioA.Name, w.adminMbr, w.invA.ID,
		w.invA.Token,
		w.invDecl.ID, w.invDecl.Token, invitee, w.objA, people["administrator"].Email, people["commenter"].Email)
	for _, c := range append(append([]fixture.Comment{}, w.comments...), doomed...) {
		w.secretsA = append(w.secretsA, c.ID, c.Text)
	}
	w.secretsB = []string{orgB.ID, orgB.Name, folioB.ID, folioB.Name, outsiderMbr, invB.ID, invB.Token, invB.Email,
		objB, commentB.ID, commentB.Text, *commentB.Tag, people["outsider"].ID, people["outsider"].Email}

	handlers := map[string]http.Handler{}
	cfg := config.Config{TokenTTL: time.Hour, InvitationTTL: authzTTL, OutboxDir: t.TempDir(),
		InvitationURL: config.DefaultInvitationURL}
	for fn, h := range wiring.Handlers(db.Store, testkit.Log(t), cfg, func() time.Time { return now }) {
		handlers[fn] = h
	}
	w.gw = testkit.Gateway(t, handlers)
	return w
}

// newToken is a well-formed token naming userID that was never issued.
func newToken(t *testing.T, userID string) string {
	t.Helper()
	tok, _, err := domain.NewTokenString(userID)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// operation is one row of the matrix: a request on one of A's objects, what every caller class gets
// (want, in callerNames' order), how a success is checked, and, for a write, how many writes landed.
type operation struct {
	name, method, pattern, path string
	pathFor                     func(caller string) string // when each caller class has its own target; nil: path
	body                        func(caller string) string
	want                        []outcome
	rejected                    string // the body of the rejected outcome
	check                       func(t *testing.T, caller string, resp testkit.Response)
	writes                      func(t *testing.T) int64 // nil for a read
	setup                       func(t *testing.T)       // makes the row's objects just before it runs; may be nil
	after                       func(t *testing.T)       // checks what the row left, once every cell ran; may be nil
}

// TestAuthorizationMatrix runs every protected operation as every caller class (SPEC §2 and §3): each
// refusal's status and exact body, each success's exact body, `WWW-Authenticate` on every 401 and
// nowhere else, refused writes writing nothing, and no response carrying organization B's data, nor
// A's data to a caller who may not see it. Successful writes store what is already there, so the cells
// do not depend on each other's order.
func TestAuthorizationMatrix(t *testing.T) {
	w := newAuthzWorld(t)
	ops := w.operations(t)
	t.Logf("authorization matrix: %d operations × %d caller classes = %d cells", len(ops), len(callerNames),
		len(ops)*len(callerNames))
	for _, op := range ops {
		if len(op.want) != len(callerNames) {
			t.Fatalf("%s: %d outcomes for %d caller classes", op.name, len(op.want), len(callerNames))
		}
		if op.setup != nil {
			op.setup(t)
		}
		var before int64
		if op.writes != nil {
			before = op.writes(t)
		}
		landed := 0
		for i, caller := range callerNames {
			want := op.want[i]
			if want == allowed {
				landed++
			}
			t.Run(op.name+"/"+caller, func(t *testing.T) {
				req := testkit.Request{Method: op.method, Path: op.path, Body: op.body(caller)}
				if op.pathFor != nil {
					req.Path = op.pathFor(caller)
				}
				if h, ok := w.headers[caller]; ok {
					req.Header = map[string]string{"Authorization": h}
				}
				resp := testkit.Do(t, w.gw, req)
				w.leaksNothing(t, resp, want == allowed, req.Path+req.Body)
				switch want {
				case allowed:
					op.check(t, caller, resp)
				case rejected:
					resp.Expect(t, 400, op.rejected)
				default:
					resp.Expect(t, refusals[want].status, refusals[want].body)
				}
				challenge := resp.Header.Get("WWW-Authenticate")
				if resp.Status == 401 && challenge != `Bearer realm="api"` || resp.Status != 401 && challenge != "" {
					t.Fatalf("%d with WWW-Authenticate %q", resp.Status, challenge)
				}
			})
		}
		if op.writes != nil {
			if n := op.writes(t) - before; n != int64(landed) {
				t.Errorf("%s: %d writes landed, want one per allowed caller (%d): a refusal wrote, or a success did not",
					op.name, n, landed)
			}
		}
		if op.after != nil {
			op.after(t)
		}
	}
}

// logout is the row that revokes the tokens of the callers it lets through: the last.
const logout = "POST /api/v1/auth/logout"

// operations are the matrix's rows: one for each route of infra/routes that needs a token, in its
// order (the logout last), made of the route's entry and this matrix's own parts of it (ownRows), and
// the rows of other bodies of one route (extraRows) after it. A route with no parts of its own here is
// requested as its sample, on A's objects, and its successes are checked by their status (and by
// openapi.yaml, as every response).
func (w *authzWorld) operations(t *testing.T) []operation {
	t.Helper()
	own, extra := w.ownRows(), w.extraRows()
	for _, name := range routes.Unknown(slices.Collect(maps.Keys(own))) {
		t.Errorf("the matrix has parts of a row for %s, which infra/routes does not list", name)
	}
	world := routes.World{Value: w.value}
	fill := func(s string) string {
		out, err := world.Fill(s)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	var ops, last []operation
	for _, r := range routes.Protected() {
		op := own[r.Name()]
		if op.name == "" {
			op.name = r.Name()
		}
		op.method, op.pattern = r.Method, r.Pattern
		op.want = append([]outcome{n401, n401, b401, s401, bad, bad, bad, dead}, outcomes(r.Who)...)
		if r.Rejected != "" {
			op.rejected = fill(r.Rejected)
		}
		if op.path == "" && op.pathFor == nil {
			op.path = fill(r.Sample.Path)
		}
		if op.body == nil {
			body := fill(r.Sample.Body)
			op.body = func(string) string { return body }
		}
		if op.check == nil {
			op.check = func(t *testing.T, _ string, resp testkit.Response) {
				t.Helper()
				if resp.Status != r.Sample.Status {
					t.Fatalf("%d %s, want %d", resp.Status, resp.Body, r.Sample.Status)
				}
			}
		}
		rows := append([]operation{op}, extra[r.Name()]...)
		if r.Name() == logout {
			last = rows
			continue
		}
		ops = append(ops, rows...)
	}
	// After every row that reads what the invitee may see: the acceptance makes the invitee a member of A.
	ops = append(ops, w.acceptRows()...)
	return append(ops, last...)
}

// value fills the samples' placeholders with A's objects: the first comment, the invitation to the
// invitee's address in upper case.
func (w *authzWorld) value(name string) (string, bool) {
	switch name {
	case "organization":
		return w.orgA.ID, true
	case "report":
		return w.objA, true
	case "comment":
		return w.comments[0].ID, true
	case "invitation":
		return w.invA.ID, true
	case "n":
		w.seq++
		return fmt.Sprint(w.seq), true
	}
	return "", false
}

// outcomes are SPEC §3's outcomes of infra/routes as the matrix's.
func outcomes(who []routes.Outcome) []outcome {
	var out []outcome
	for _, o := range who {
		out = append(out, map[routes.Outcome]outcome{routes.Allowed: allowed, routes.Forbidden: forbidden,
			routes.NotFound: notFound, routes.EmptyList: emptyList, routes.Rejected: rejected}[o])
	}
	return out
}

// ownRows are the matrix's own parts of its rows, by route: the exact body of each success, the count
// of writes, and the requests other than the sample's (the callers' own objects and new addresses,
// a body that stores what is already there, the query of what the invitee may see).
func (w *authzWorld) ownRows() map[string]operation {
	invPath := "/api/v1/organization-invitations/"
	c := w.comments[0]
	static := func(body string) func(string) string { return func(string) string { return body } }
	expect := func(status int, body func() string) func(*testing.T, string, testkit.Response) {
		return func(t *testing.T, _ string, resp testkit.Response) { t.Helper(); resp.Expect(t, status, body()) }
	}
	noBody := func(t *testing.T, _ string, resp testkit.Response) {
		if resp.Status != 204 || len(resp.Body) != 0 {
			t.Fatalf("%d %q, want 204 and no body", resp.Status, resp.Body)
		}
	}
	newEmail := func(caller string) string {
		return "new-" + strings.ReplaceAll(caller, " ", "-") + "-" + w.suffix + "@example.com"
	}
	return map[string]operation{
		"POST /api/v1/users/": {name: "POST users",
			body: func(caller string) string {
				return `{"email": "` + newEmail(caller) + `", "password": "Vq8#mLp2zR", "confirm_password": "Vq8#mLp2zR",
				"first_name": "New", "last_name": "User"}`
			},
			check: func(t *testing.T, caller string, resp testkit.Response) {
				id, _ := resp.Object(t)["id"].(string)
				if _, err := uuid.Parse(id); err != nil {
					t.Fatalf("id %q: %s", id, resp.Body)
				}
				resp.Expect(t, 201, `{"id": "`+id+`", "email": "`+newEmail(caller)+`", "first_name": "New", "last_name": "User"}`)
			},
			writes: func(t *testing.T) int64 {
				n := int64(0)
				for _, caller := range callerNames {
					if _, err := w.db.UserByEmail(t, newEmail(caller)); err == nil {
						n++
					} else if domain.ErrorCode(err) != domain.ENOTFOUND {
						t.Fatal(err)
					}
				}
				return n
			},
		},
		"GET " + invPath + "{id}/": {name: "GET invitation",
			check: expect(200, func() string { return w.invitationJSON(w.invA, 0) })},
		// The invitee may only answer; a change of first_name is refused even to them.
		"PATCH " + invPath + "{id}/": {name: "PATCH invitation",
			body:   static(`{"first_name": "Xavier"}`),
			check:  expect(200, func() string { return w.invitationJSON(w.invA, 0) }),
			writes: w.invitationVersion(w.invA.ID),
		},
		// SPEC §10: what the caller may read of A's invitations to the invitee's address (the invitee
		// reads both as the invitee, members and staff as A's).
		"GET " + invPath: {name: "GET invitations",
			path: invPath + "?organization=" + w.orgA.ID + "&email=" + w.invA.Email,
			check: expect(200, func() string {
				both := []domain.Invitation{w.invA, w.invDecl}
				slices.SortFunc(both, func(a, b domain.Invitation) int { return strings.Compare(a.ID, b.ID) }) // equal created_at
				return mustJSON(map[string]any{"count": 2, "next": nil, "previous": nil, "results": []json.RawMessage{
					json.RawMessage(w.invitationJSON(both[0], statusOf(both[0], w.invDecl))),
					json.RawMessage(w.invitationJSON(both[1], statusOf(both[1], w.invDecl))),
				}})
			}),
		},
		"POST " + invPath: {name: "POST invitation",
			body: func(caller string) string {
				return `{"organization_id": "` + w.orgA.ID + `", "email": "` + newInvitee(caller, w.suffix) + `"}`
			},
			check: func(t *testing.T, caller string, resp testkit.Response) {
				got := resp.Object(t)
				if resp.Status != 201 || got["email"] != newInvitee(caller, w.suffix) || got["status"] != float64(0) ||
					got["email_sent"] != true || got["organization"].(map[string]any)["id"] != w.orgA.ID {
					t.Fatalf("%d %s", resp.Status, resp.Body)
				}
			},
			writes: w.invitationsOfA(),
		},
		// Each caller class tries its own.
		"DELETE " + invPath + "{id}/": {name: "DELETE invitation",
			pathFor: func(caller string) string { return invPath + w.doomedInv[caller] + "/" },
			check:   noBody,
			writes:  func(t *testing.T) int64 { return int64(len(callerNames)) - w.invitationsOfA()(t) },
		},
		"GET /api/v1/comments/": {name: "GET comments",
			check: expect(200, func() string {
				var results []any
				for _, c := range w.comments {
					results = append(results, w.commentRead(c))
				}
				return mustJSON(map[string]any{"count": len(results), "next": nil, "previous": nil, "results": results})
			}),
		},
		"GET /api/v1/comments/{id}/": {name: "GET comment",
			check: expect(200, func() string { return mustJSON(w.commentRead(c)) })},
		"PUT /api/v1/comments/{id}/": {name: "PUT comment",
			body:   static(`{"content_type": "report", "object_id": "` + w.objA + `", "text": ` + mustJSON(c.Text) + `}`),
			check:  expect(200, func() string { return commentWritten(c) }),
			writes: w.commentVersion(c.ID),
		},
		"PATCH /api/v1/comments/{id}/": {name: "PATCH comment",
			body:   static(`{"text": ` + mustJSON(c.Text) + `}`),
			check:  expect(200, func() string { return commentWritten(c) }),
			writes: w.commentVersion(c.ID),
		},
		"POST /api/v1/comments/": {name: "POST comment",
			body: func(caller string) string {
				return `{"content_type": "report", "object_id": "` + w.objA + `", "text": "by ` + caller + `"}`
			},
			check: func(t *testing.T, caller string, resp testkit.Response) {
				id, _ := resp.Object(t)["id"].(string)
				resp.Expect(t, 201,
					mustJSON(map[string]any{"id": id, "content_type": "report", "object_id": w.objA, "tag": nil,
						"text": "by " + caller, "parent": nil}))
			},
			writes: w.commentCount(w.objA, 0),
		},
		// Each caller class tries its own comment of the commenter's.
		"DELETE /api/v1/comments/{id}/": {name: "DELETE comment",
			pathFor: func(caller string) string { return "/api/v1/comments/" + w.doomed[caller].ID + "/" },
			check:   noBody,
			writes:  w.commentCount(w.objDel, len(callerNames)),
		},
		logout: {name: "POST logout", check: noBody},
	}
}

// extraRows are rows of other bodies of a route, by the route they follow.
func (w *authzWorld) extraRows() map[string][]operation {
	invPath := "/api/v1/organization-invitations/"
	return map[string][]operation{"PATCH " + invPath + "{id}/": {{
		// Declining: the first allowed caller makes it cancelled, the others save the state it has.
		name: "PATCH invitation (decline)", method: "PATCH", pattern: invPath + "{id}/", path: invPath + w.invDecl.ID + "/",
		body: func(string) string { return `{"status": 2}` },
		want: []outcome{n401, n401, b401, s401, bad, bad, bad, dead, no404, yes, no403, no403, yes, no403, yes, yes},
		check: func(t *testing.T, _ string, resp testkit.Response) {
			resp.Expect(t, 200, w.invitationJSON(w.invDecl, 2))
		},
		writes: w.invitationVersion(w.invDecl.ID),
	}}}
}

// newInvitee is the address the POST invitation row invites for caller.
func newInvitee(caller, suffix string) string {
	return "invited-by-" + strings.ReplaceAll(caller, " ", "-") + "-" + suffix + "@example.com"
}

// statusOf is the status the matrix's earlier rows left inv in: the declined one cancelled.
func statusOf(inv, declined domain.Invitation) int {
	if inv.ID == declined.ID {
		return 2
	}
	return 0
}

// invitationsOfA counts the writes of the invitation rows: A's invitations other than the two the
// PATCH rows work on, as staff list them (created ones add, deleted ones take away).
func (w *authzWorld) invitationsOfA() func(*testing.T) int64 {
	return func(t *testing.T) int64 {
		list := domain.InvitationList{Sources: []domain.InvitationSource{{OrganizationID: w.orgA.ID}}}
		c, err := w.db.Store.CountInvitations(t.Context(), list, time.Now())
		if err != nil {
			t.Fatal(err)
		}
		return int64(c.Total - 2)
	}
}

// commentCount counts writes to an object's comments: its comment count, or with from > 0 how many
// of its from comments are gone.
func (w *authzWorld) commentCount(object string, from int) func(*testing.T) int64 {
	return func(t *testing.T) int64 {
		_, count, err := w.db.Store.CommentWriteReads(t.Context(), "",
			&domain.CommentObject{ContentType: "report", ObjectID: object})
		if err != nil {
			t.Fatal(err)
		}
		if from > 0 {
			return int64(from - count.N)
		}
		return int64(count.N)
	}
}

// leaksNothing fails when a response carries any of B's data, or A's data to a caller who may not see it,
// beyond what the caller sent (a refusal may name the id it refuses).
func (w *authzWorld) leaksNothing(t *testing.T, resp testkit.Response, mayShowA bool, sent string) {
	t.Helper()
	body := strings.ToLower(string(resp.Body))
	for _, s := range w.secretsB {
		if strings.Contains(body, strings.ToLower(s)) {
			t.Errorf("the response carries organization B's %q: %s", s, resp.Body)
		}
	}
	if mayShowA {
		return
	}
	for _, s := range w.secretsA {
		if strings.Contains(body, strings.ToLower(s)) && !strings.Contains(strings.ToLower(sent), strings.ToLower(s)) {
			t.Errorf("a refusal carries organization A's %q: %s", s, resp.Body)
		}
	}
}

// invitationJSON is the read shape of one of A's invitations (SPEC §5), saved at the world's clock.
func (w *authzWorld) invitationJSON(inv domain.Invitation, status int) string {
	admin := w.users["administrator"]
	folios := []any{}
	for _, id := range inv.PortfolioIDs {
		if id == w.folioA.ID {
			folios = append(folios, map[string]any{"id": id, "name": w.folioA.Name})
		}
	}
	return mustJSON(map[string]any{
		"id": inv.ID, "token": inv.Token, "expiry_date": domain.FormatTime(w.now.Add(authzTTL)),
		"organization":   map[string]any{"id": w.orgA.ID, "name": w.orgA.Name},
		"inviter_member": map[string]any{"id": w.adminMbr, "first_name": "Ada", "last_name": "Admin", "email": admin.Email},
		"email":          inv.Email, "email_sent": false, "accessible_portfolios": folios, "status": status,
		"first_name": inv.FirstName, "last_name": inv.LastName, "role": inv.Role,
	})
}

// commentRead is the read shape of one of A's comments (SPEC §6), as loaded (and as saved unchanged).
func (w *authzWorld) commentRead(c fixture.Comment) map[string]any {
	var author domain.User
	for _, u := range w.users {
		if u.ID == c.CommenterID {
			author = u
		}
	}
	created, _ := time.Parse(time.RFC3339Nano, *c.CreatedAt)
	return map[string]any{
		"id": c.ID, "content_type": c.ContentType,
		"commenter": map[string]any{"id": author.ID, "full_name": author.FullName(), "email": author.Email,
			"first_name": domain.Deref(author.FirstName), "last_name": domain.Deref(author.LastName)},
		"created_at": domain.FormatTime(created), "updated_at": domain.FormatTime(w.now),
		"object_id": c.ObjectID, "tag": c.Tag, "text": c.Text, "parent": c.Parent,
	}
}

func commentWritten(c fixture.Comment) string {
	return mustJSON(map[string]any{"id": c.ID, "content_type": c.ContentType, "object_id": c.ObjectID,
		"tag": c.Tag, "text": c.Text, "parent": c.Parent})
}

func (w *authzWorld) invitationVersion(id string) func(*testing.T) int64 {
	return func(t *testing.T) int64 {
		inv, err := w.db.Store.Invitation(t.Context(), id)
		if err != nil {
			t.Fatal(err)
		}
		return inv.Version
	}
}

func (w *authzWorld) commentVersion(id string) func(*testing.T) int64 {
	return func(t *testing.T) int64 {
		c, err := w.db.Store.Comment(t.Context(), id)
		if err != nil {
			t.Fatal(err)
		}
		return c.Version
	}
}

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}
