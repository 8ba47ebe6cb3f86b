package faultproxy_test

import (
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/reportingplatform/api/infra/faultproxy"
	"github.com/reportingplatform/api/infra/routes"
	"github.com/reportingplatform/api/infra/testkit"
	"github.com/reportingplatform/api/shared/domain"
)

// slowStore is SPEC §9's slow store: every DynamoDB call waits 100–700 ms before DynamoDB does it,
// whether or not its caller is still waiting (a request queued inside a slow service).
var slowStore = faultproxy.Fault{Mode: faultproxy.Queued, Delay: 100 * time.Millisecond, MaxDelay: 700 * time.Millisecond}

// answer is one request sent under the slow store and what it got.
type answer struct {
	what   string // the kind of request, for the report
	mark   string // what the request would write, to find it in the table
	keyed  bool
	status int
	body   string
}

// open tells the 503 that says the change may have been saved: DynamoDB answered none of its copies.
func (a answer) open() bool {
	return a.status == http.StatusServiceUnavailable && strings.Contains(a.body, "may have been saved")
}

// TestASlowStoreAnswersEveryCreateAsWritten sends, with every DynamoDB call 100–700 ms slow, creates of
// each kind in parallel (with and without an Idempotency-Key), parallel creates of one user and
// parallel wrong logins, as clients would (SPEC §9, "Writes whose answer is lost"). Then it compares
// every answer with the table: a 2xx if and only if written (a 503 means nothing was written and
// nothing will be; only a 503 that says so may hide a write), exactly one 201 when the user exists (or
// none and a create left open), and the owner's right password accepted when fewer than ten passwords
// were checked. Creates at once by one inviter meet on its rate window and its organization's counts
// and retry; on a busy machine some then run out of budget (503, or open), which is allowed here: the
// share that succeeds is held on requests sent one after another
// (TestASlowStoreServesNineteenRequestsOfTwenty).
func TestASlowStoreAnswersEveryCreateAsWritten(t *testing.T) {
	demo := newDemo(t)
	a := demo.api(t)
	grace := a.tokenOf(t, "grace@example.com")
	a.proxy.Set(slowStore)

	var (
		mu      sync.Mutex
		answers []answer
		wg      sync.WaitGroup
	)
	send := func(what, mark string, keyed bool, req testkit.Request) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if keyed {
				req.Header = map[string]string{"Idempotency-Key": fmt.Sprintf("slow-%d", fresh.Add(1))}
			}
			resp := testkit.Do(testkit.InGoroutine(t), a.gw, req)
			mu.Lock()
			defer mu.Unlock()
			answers = append(answers, answer{what: what, mark: mark, keyed: keyed, status: resp.Status, body: string(resp.Body)})
		}()
	}
	for i := range 16 {
		keyed := i%2 == 0
		mark := fmt.Sprintf("slow-comment-%d", fresh.Add(1))
		send("comment", mark, keyed, testkit.Request{Method: "POST", Path: "/api/v1/comments/", Token: a.staff,
			Body: fmt.Sprintf(`{"content_type": "report", "object_id": "%s", "text": "%s"}`, demoReport, mark)})
		mark = fmt.Sprintf("slow-invitee-%d@example.com", fresh.Add(1))
		send("invitation", mark, keyed, testkit.Request{Method: "POST", Path: "/api/v1/organization-invitations/",
			Token: grace, Body: fmt.Sprintf(`{"organization_id": "%s", "email": "%s"}`, routes.DemoOrganization, mark)})
	}
	one := fmt.Sprintf("slow-user-%d@example.com", fresh.Add(1))
	for i := range 8 {
		send("user", one, i%2 == 0, testkit.Request{Method: "POST", Path: "/api/v1/users/", Token: a.staff,
			Body: fmt.Sprintf(`{"email": "%s", "password": "Vq8#mLp2zR", "confirm_password": "Vq8#mLp2zR"}`, one)})
	}
	for range 8 {
		send("wrong login", "", false, testkit.Request{Method: "POST", Path: "/api/v1/auth/login",
			Body: `{"username": "edsger@example.com", "password": "not her password"}`})
	}
	wg.Wait()
	a.proxy.Clear()

	comments := a.db.Items(t, "COMMENT#")
	invitees := a.db.Items(t, "INVITATION#")
	written := func(ans answer) bool {
		switch ans.what {
		case "comment":
			for _, it := range comments {
				if it["text"] == ans.mark {
					return true
				}
			}
		case "invitation":
			for _, it := range invitees {
				if it["email"] == ans.mark {
					return true
				}
			}
		}
		return false
	}
	tally := map[string]map[int]int{}
	var checked, userCreated, userOpen, open int
	for _, ans := range answers {
		if tally[ans.what] == nil {
			tally[ans.what] = map[int]int{}
		}
		tally[ans.what][ans.status]++
		if ans.open() {
			open++
		}
		switch ans.what {
		case "comment", "invitation":
			switch w := written(ans); {
			case ans.status == http.StatusCreated && !w:
				t.Errorf("%s %s answered 201 and is not in the table", ans.what, ans.mark)
			case ans.status != http.StatusCreated && w && !ans.open():
				t.Errorf("%s %s (keyed %v) answered %d %s and was written", ans.what, ans.mark, ans.keyed, ans.status, ans.body)
			case ans.status != http.StatusCreated && ans.status != http.StatusServiceUnavailable:
				t.Errorf("%s %s: %d %s, want 201 or 503", ans.what, ans.mark, ans.status, ans.body)
			}
		case "user":
			if ans.status == http.StatusCreated {
				userCreated++
			} else if ans.open() {
				userOpen++
			} else if ans.status != http.StatusBadRequest && ans.status != http.StatusServiceUnavailable {
				t.Errorf("a create of one user: %d %s, want 201, 400 (taken) or 503", ans.status, ans.body)
			}
		case "wrong login":
			switch ans.status {
			case http.StatusBadRequest:
				checked++
			case http.StatusTooManyRequests, http.StatusServiceUnavailable:
			default:
				t.Errorf("a wrong login: %d %s", ans.status, ans.body)
			}
		}
	}
	t.Logf("answers by kind and status: %v; outcomes left open: %d", tally, open)
	_, err := a.db.UserByEmail(t, one)
	// A create whose outcome was left open may be the one that wrote the user.
	if exists := err == nil; userCreated > 1 || (userCreated == 1) != exists && !(exists && userOpen > 0) {
		t.Errorf("the user exists: %v; creates answered 201: %d, left open: %d; want exactly one 201 if and only "+
			"if it exists, or none and one left open", exists, userCreated, userOpen)
	}
	// Ten places per window: eight wrong passwords leave the owner room, checked or pending.
	if checked < domain.LoginFailuresPerEmail {
		if resp := testkit.Do(t, a.gw, testkit.Request{Method: "POST", Path: "/api/v1/auth/login",
			Body: `{"username": "edsger@example.com", "password": "demo-edsger-2026"}`}); resp.Status != http.StatusCreated {
			t.Errorf("the owner after %d wrong passwords checked: %d %s, want 201", checked, resp.Status, resp.Body)
		}
	}
}

// TestASlowStoreServesNineteenRequestsOfTwenty sends, one after another, creates and reads of every
// kind with every DynamoDB call 100–700 ms slow: at least 95% succeed as usual (SPEC §9, "DynamoDB slow
// or hung"). A store that does not answer at all gets its 503 within 6 s
// (TestEveryOperationSurvivesEveryStoreFault, under hang). A request during which a call outlasted its
// attempt timeout (the proxy's Abandoned) met a store slower than SPEC §9's, made so by a busy machine
// (the proxy waits 700 ms at the most, half the attempt timeout): it is left out of the count, and
// another is sent.
func TestASlowStoreServesNineteenRequestsOfTwenty(t *testing.T) {
	demo := newDemo(t)
	a := demo.api(t)
	a.proxy.Set(slowStore)
	defer a.proxy.Clear()
	kinds := []string{"POST /api/v1/comments/", "GET /api/v1/comments/", "GET /api/v1/comments/{id}/",
		"POST /api/v1/organization-invitations/", "GET /api/v1/organization-invitations/",
		"GET /api/v1/organization-invitations/{id}/", "POST /api/v1/auth/login", "PATCH /api/v1/comments/{id}/"}
	const want = 24 // requests counted
	var sent, ok, left int
	for sent < want && left < 2*want {
		for _, name := range kinds {
			op := byRoute[name]
			op.name = name
			if name == "POST /api/v1/organization-invitations/" {
				// Without the route's own first create, which fails the test when it gets a 503.
				op.request = func(t *testing.T, a *api, n int64) testkit.Request { return newInvitation(t, a, n) }
			}
			switch passed, counts := a.expectQuietly(t, op); {
			case !counts:
				left++
			case passed:
				sent++
				ok++
			default:
				sent++
			}
		}
	}
	t.Logf("%d of %d requests succeeded on a store 100–700 ms slow a call (%d left out: a call outlasted its "+
		"attempt timeout)", ok, sent, left)
	if sent < want {
		t.Fatalf("only %d requests of %d counted: on the rest the machine made calls slower than the attempt "+
			"timeout", sent, sent+left)
	}
	if ok*100 < 95*sent {
		t.Errorf("%d of %d requests succeeded on a slow store; want at least 95%%", ok, sent)
	}
}

// expectQuietly sends a request of op and reports whether it got op's usual status, logging (not
// failing) what it got otherwise: a share of failures is what the caller judges. counts is false for
// a failure during which a call outlasted its attempt timeout.
func (a *api) expectQuietly(t *testing.T, op operation) (passed, counts bool) {
	t.Helper()
	abandoned := a.proxy.Abandoned()
	resp, elapsed := a.send(t, op, op.request(t, a, fresh.Add(1)))
	if resp.Status != op.status {
		given := a.proxy.Abandoned() - abandoned
		t.Logf("%s on a slow store: %d %s after %v (%d call(s) outlasted the attempt timeout)", op.name, resp.Status,
			resp.Body, elapsed.Round(time.Millisecond), given)
		return false, given == 0
	}
	return true, true
}
