package bench_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/reportingplatform/api/infra/bench"
	"github.com/reportingplatform/api/infra/fixture"
	"github.com/reportingplatform/api/infra/testkit"
	"github.com/reportingplatform/api/infra/wiring"
	"github.com/reportingplatform/api/shared/config"
	"github.com/reportingplatform/api/shared/domain"
	"github.com/reportingplatform/api/shared/dynamo"
)

// scaleWorld is one size of `make scale`: a fresh table where each list's scope holds about n items,
// loaded as `make seed` loads a file, and the functions in front of it, whose DynamoDB client records
// every call (bench.Recorder), as make bench's does, and waits as long as the tests' for an answer.
//
// Acme holds n invitations: n-others to one address (the invitee's), one of them pending and the rest
// final, most cancelled (2) and every tenth revoked (4), since only one invitation per address and
// organization may be pending; and others pending ones to other addresses, half of them past their
// expiry date. Globex and Initech hold others/2 pending invitations each. One report of Acme's has n
// comments, nine in ten tagged "t". The callers: staff; Acme's administrator; a member of Acme, Globex
// and Initech, who reads the comments; the invitee, a user who is a member of none.
type scaleWorld struct {
	n                                         int
	db                                        *testkit.DB
	rec                                       *bench.Recorder
	gw                                        http.Handler
	staff, admin, member, invitee             string // tokens
	inviteeEmail, object                      string
	acme, organizations, addressed, cancelled int // the invitations of each scope, known from the data
	tagged                                    int // the report's comments tagged "t"
}

// others is how many invitations of Acme go to other addresses than the invitee's.
const others = 4

// scaleTTL is the invitations' INVITATION_TTL; what counts is that expiries either passed or did not.
const scaleTTL = config.DefaultInvitationTTL

func newScaleWorld(tb testing.TB, n int) *scaleWorld {
	tb.Helper()
	if n < 2*others {
		tb.Fatalf("N=%d: at least %d, so that most of Acme's invitations go to one address", n, 2*others)
	}
	db := testkit.NewDB(tb)
	s := &scaleWorld{n: n, db: db, rec: &bench.Recorder{},
		inviteeEmail: "invitee-" + uuid.NewString()[:8] + "@example.com"}
	// testkit's client, not the deployed one: a list that reads its whole scope takes longer than the
	// deployed attempt timeout at the larger sizes, on a busy machine even more so, and its answer would
	// be a 503 that shows nothing of what it costs.
	client := testkit.Client(tb, testkit.Endpoint(tb), s.rec.Register)
	cfg := config.Config{TokenTTL: config.DefaultTokenTTL, InvitationTTL: scaleTTL, OutboxDir: tb.TempDir(),
		InvitationURL: config.DefaultInvitationURL}
	handlers := map[string]http.Handler{}
	for id, h := range wiring.Handlers(dynamo.New(client, db.Table), testkit.Log(tb), cfg, time.Now) {
		handlers[id] = h
	}
	s.gw = testkit.Gateway(tb, handlers)
	users := map[string]domain.User{}
	for _, who := range []struct {
		name string
		u    testkit.NewUser
		tok  *string
	}{
		{"staff", testkit.NewUser{Staff: true}, &s.staff},
		{"admin", testkit.NewUser{FirstName: domain.Ptr("Ada")}, &s.admin},
		{"member", testkit.NewUser{FirstName: domain.Ptr("Mel")}, &s.member},
		{"invitee", testkit.NewUser{Email: s.inviteeEmail}, &s.invitee},
	} {
		users[who.name] = db.User(tb, who.u)
		*who.tok = db.Token(tb, users[who.name], 24*time.Hour)
	}
	s.load(tb, s.data(users["admin"].ID, users["member"].ID))
	return s
}

// data is the size's fixture (SPEC §7), counted as it is built.
func (s *scaleWorld) data(admin, member string) fixture.File {
	acme, globex, initech := uuid.NewString(), uuid.NewString(), uuid.NewString()
	s.object = uuid.NewString()
	adminOfAcme := uuid.NewString()
	memberOf := map[string]string{acme: uuid.NewString(), globex: uuid.NewString(), initech: uuid.NewString()}
	f := fixture.File{
		Organizations: []fixture.Organization{{ID: acme, Name: "Acme " + acme[:8]},
			{ID: globex, Name: "Globex " + globex[:8]}, {ID: initech, Name: "Initech " + initech[:8]}},
		Members: []fixture.Member{{ID: adminOfAcme, OrganizationID: acme, UserID: admin, Role: domain.Ptr(2)}},
	}
	for org, id := range memberOf {
		f.Members = append(f.Members, fixture.Member{ID: id, OrganizationID: org, UserID: member, Role: domain.Ptr(0)})
	}
	past := time.Now().Add(-24 * time.Hour).UTC().Format(time.RFC3339)
	// Invitations are created a second apart, as the comments are, the newest an hour ago: lists order
	// by creation time, and a deep page finds its place by it.
	invited := time.Now().Add(-time.Hour - time.Duration(s.n+others)*time.Second).UTC()
	invite := func(org, inviter, email string, status int, expired bool) {
		inv := fixture.Invitation{ID: uuid.NewString(), OrganizationID: org, InviterMemberID: inviter, Email: email,
			FirstName: domain.Ptr("Guest"), Status: domain.Ptr(status),
			CreatedAt: domain.Ptr(invited.Add(time.Duration(len(f.Invitations)) * time.Second).Format(time.RFC3339))}
		if expired {
			inv.ExpiryDate = &past
		}
		f.Invitations = append(f.Invitations, inv)
	}
	for i := range s.n - others {
		status := 2
		switch {
		case i == 0:
			status = 0
		case i%10 == 0:
			status = 4
		default:
			s.cancelled++
		}
		invite(acme, adminOfAcme, s.inviteeEmail, status, false)
	}
	for i := range others {
		invite(acme, adminOfAcme, fmt.Sprintf("other-%d-%s", i, s.inviteeEmail), 0, i%2 == 1)
	}
	for i := range others / 2 {
		invite(globex, memberOf[globex], fmt.Sprintf("globex-%d-%s", i, s.inviteeEmail), 0, false)
		invite(initech, memberOf[initech], fmt.Sprintf("initech-%d-%s", i, s.inviteeEmail), 0, false)
	}
	s.acme, s.organizations, s.addressed = s.n, s.n+others, s.n-others
	base := time.Now().Add(-time.Hour - time.Duration(s.n)*time.Second).UTC()
	for i := range s.n {
		c := fixture.Comment{ID: uuid.NewString(), OrganizationID: acme, CommenterID: admin, ContentType: "report",
			ObjectID:  s.object,
			Text:      fmt.Sprintf("Comment %d on the quarterly report.", i),
			CreatedAt: domain.Ptr(base.Add(time.Duration(i) * time.Second).Format(time.RFC3339))}
		if i%2 == 1 {
			c.CommenterID = member
		}
		if i%10 != 0 {
			c.Tag = domain.Ptr("t")
			s.tagged++
		}
		f.Comments = append(f.Comments, c)
	}
	return f
}

// load writes f as `make seed` does: the file's JSON, parsed, loaded with the loader's bulk client
// (dynamo.NewLocalBulkClient), with a line of progress every so often for the large sizes.
func (s *scaleWorld) load(tb testing.TB, f fixture.File) {
	tb.Helper()
	raw, err := json.Marshal(f)
	if err != nil {
		tb.Fatal(err)
	}
	file, err := fixture.Parse(bytes.NewReader(raw))
	if err != nil {
		tb.Fatalf("parse fixture: %v", err)
	}
	client := testkit.BulkClient(tb, testkit.Endpoint(tb))
	var written atomic.Int64
	done := make(chan struct{})
	go func() {
		t := time.NewTicker(15 * time.Second)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				fmt.Printf("N=%d: loaded %d of %d entries\n", s.n, written.Load(), file.Entries())
			}
		}
	}()
	start := time.Now()
	_, err = fixture.LoadReporting(context.Background(), dynamo.New(client, s.db.Table), file, time.Now(), scaleTTL,
		func(n int) { written.Add(int64(n)) })
	close(done)
	if err != nil {
		tb.Fatalf("load fixture: %v", err)
	}
	took := time.Since(start)
	fmt.Printf("N=%d: loaded %d entries in %s (%.0f/s)\n", s.n, file.Entries(), took.Round(time.Millisecond),
		float64(file.Entries())/took.Seconds())
}

// scaleList is one list `make scale` measures: a request, and the count its answer must carry.
type scaleList struct {
	name, chart, label, series string
	held                       bool // page 1 or page=last: SPEC §11's goals hold
	token, path                string
	count                      int
}

// scope is one list of SPEC §11 at this size: what it lists, for whom, with which query.
type scope struct {
	what, short, chart, token, query string
	count                            int
}

// scopes are the lists `make scale` measures: comments by object and by tag, invitations in each
// scope and filter.
func (s *scaleWorld) scopes() []scope {
	comments := "content_type=report&object_id=" + s.object
	return []scope{
		{"comments", "comments", "comments", s.member, comments, s.n},
		{"comments by tag", "comments by tag", "comments", s.member, comments + "&tag=t", s.tagged},
		{"invitations of one organization (its administrator)", "administrator", "invitations", s.admin, "", s.acme},
		{"invitations of a member of 3 organizations", "member of 3", "invitations", s.member, "", s.organizations},
		{"invitations to one address (the invitee)", "invitee", "invitations", s.invitee, "", s.addressed},
		{"invitations, staff", "staff", "invitations", s.staff, "", s.organizations},
		{"invitations, staff, status=2", "staff, status=2", "invitations", s.staff, "status=2", s.cancelled},
		{"invitations, staff, email", "staff, email", "invitations", s.staff, "email=" + url.QueryEscape(s.inviteeEmail),
			s.addressed},
	}
}

// path is the scope's list with more query parameters.
func (c scope) path(more string) string {
	path := "/api/v1/organization-invitations/"
	if c.chart == "comments" {
		path = "/api/v1/comments/"
	}
	query := c.query
	if query != "" && more != "" {
		query += "&"
	}
	if query += more; query != "" {
		path += "?" + query
	}
	return path
}

// lists are the scopes' pages: page 1 and page=last, whose costs SPEC §11 holds flat, and the middle
// page of 20 by the page number a client would write.
func (s *scaleWorld) lists() []scaleList {
	var ls []scaleList
	for _, c := range s.scopes() {
		pages := max((c.count+19)/20, 1)
		for _, page := range []struct {
			name, query string
			held        bool
		}{{"page 1", "", true}, {"middle page", fmt.Sprintf("page=%d", pages/2+1), false}, {"page=last", "page=last", true}} {
			ls = append(ls, scaleList{name: c.what + ", " + page.name, chart: c.chart, label: c.short + ", " + page.name,
				series: c.short, held: page.held, token: c.token, path: c.path(page.query), count: c.count})
		}
	}
	return ls
}
