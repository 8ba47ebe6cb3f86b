package invitations_test

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/google/uuid"
	"github.com/reportingplatform/api/infra/testkit"
	"github.com/reportingplatform/api/shared/domain"
)

// createBody invites a fresh address into org.
func createBody(org ref) string {
	return fmt.Sprintf(`{"organization_id": %q, "email": "rate-%s@example.com"}`, org.ID, uuid.NewString()[:8])
}

// throttled is the 429 of SPEC §9 for a wait of n seconds: its body and its Retry-After.
func throttled(t testing.TB, resp testkit.Response, n int) {
	t.Helper()
	resp.Expect(t, 429, fmt.Sprintf(`{"detail": "Request was throttled. Expected available in %d seconds."}`, n))
	if got := resp.Header.Get("Retry-After"); got != fmt.Sprint(n) {
		t.Fatalf("Retry-After %q, want %d", got, n)
	}
}

// idList is a JSON list of n ids made by id.
func idList(n int, id func() string) string {
	quoted := make([]string, n)
	for i := range quoted {
		quoted[i] = fmt.Sprintf("%q", id())
	}
	return "[" + strings.Join(quoted, ", ") + "]"
}

// onlyBatchGet asserts that the calls since the last Reset were one BatchGetItem, and returns how many
// keys it read.
func (w *world) onlyBatchGet(t *testing.T) int {
	t.Helper()
	ops, inputs := w.db.Calls.Ops(), w.db.Calls.Inputs()
	if len(ops) != 1 || ops[0] != "BatchGetItem" {
		t.Fatalf("calls %v, want one BatchGetItem and nothing else", ops)
	}
	keys := 0
	for _, req := range inputs[0].(*dynamodb.BatchGetItemInput).RequestItems {
		keys += len(req.Keys)
	}
	return keys
}

// TestInvitationRate: SPEC §9, a user creates at most 100 invitations an hour; the next gets 429 with
// Retry-After until the window that started with the first ends, whatever its body, and writes and
// sends nothing. Refused creates do not count. Through 100 real creates: the count is the create's own
// transaction, so nothing short of them fills a window the way the API does.
func TestInvitationRate(t *testing.T) {
	w := newWorld(t)
	admin := w.token(t, w.admin)
	start := w.now
	// Refused creates (a pending invitation, a malformed body, an organization not administered) use
	// nothing up.
	pending := fmt.Sprintf(`{"organization_id": %q, "email": %q}`, w.acme.ID, w.invitee.Email)
	w.invitation(t, spec{})
	for range 3 {
		w.post(t, admin, pending).Expect(t, 400,
			`{"email": ["This email already has a pending invitation to this organization."]}`)
		w.post(t, admin, `{}`).Expect(t, 400,
			`{"organization_id": ["This field is required."], "email": ["This field is required."]}`)
		w.post(t, admin, createBody(w.globex)).Expect(t, 400,
			`{"organization_id": ["Invalid pk \"`+w.globex.ID+`\" - object does not exist."]}`)
	}
	for i := range domain.InvitationsPerWindow {
		if i == domain.InvitationsPerWindow/2 {
			w.now = start.Add(10 * time.Minute) // the window runs from the first create
		}
		if resp := w.post(t, admin, createBody(w.acme)); resp.Status != 201 {
			t.Fatalf("create %d: %d %s", i+1, resp.Status, resp.Body)
		}
	}
	before, mails := w.invitationCount(t), len(w.mail.all())
	w.db.Calls.Reset()
	throttled(t, w.post(t, admin, createBody(w.acme)), 50*60)
	// DRF throttles before it reads the body: a body with errors waits too.
	throttled(t, w.post(t, admin, `{"email": "x"}`), 50*60)
	if ops := w.db.Calls.Ops(); len(ops) != 2 || ops[0] != "BatchGetItem" || ops[1] != "BatchGetItem" {
		t.Fatalf("refused at once, yet made %v", ops)
	}
	w.now = start.Add(time.Hour - 1500*time.Millisecond)
	throttled(t, w.post(t, admin, createBody(w.acme)), 2) // whole seconds, rounded up
	if after := w.invitationCount(t); after != before || len(w.mail.all()) != mails {
		t.Fatalf("throttled creates wrote %d invitations and sent %d mails", after-before, len(w.mail.all())-mails)
	}
	// The limit is the user's: another administrator creates meanwhile.
	if resp := w.post(t, w.token(t, w.globexAdmin), createBody(w.globex)); resp.Status != 201 {
		t.Fatalf("another user: %d %s", resp.Status, resp.Body)
	}
	// Once the window ends a new one starts with the next create.
	w.now = start.Add(time.Hour)
	for i := range 2 {
		if resp := w.post(t, admin, createBody(w.acme)); resp.Status != 201 {
			t.Fatalf("create %d of the next window: %d %s", i+1, resp.Status, resp.Body)
		}
	}
}

// TestInvitationRateUnderConcurrency: creates sent at once count as if sent one after another (SPEC §9).
// 95 at once all succeed; then 110 at once: exactly 5 more succeed and the others get 429, nothing
// more is written and each e-mail goes out once.
func TestInvitationRateUnderConcurrency(t *testing.T) {
	w := newWorld(t)
	admin := w.token(t, w.admin)
	burst := func(n int) map[int]int {
		statuses := make([]int, n)
		var wg sync.WaitGroup
		for i := range statuses {
			wg.Go(func() {
				t := testkit.InGoroutine(t)
				resp := testkit.Do(t, w.gw, testkit.Request{Method: "POST", Path: listPath, Token: admin, Body: createBody(w.acme)})
				statuses[i] = resp.Status
				switch resp.Status {
				case 201:
				case 429:
					throttled(t, resp, 3600)
				default:
					t.Errorf("%d %s", resp.Status, resp.Body)
				}
			})
		}
		wg.Wait()
		count := map[int]int{}
		for _, s := range statuses {
			count[s]++
		}
		return count
	}
	if got := burst(95); got[201] != 95 {
		t.Fatalf("95 at once within the limit: %v", got)
	}
	if got := burst(110); got[201] != 5 || got[429] != 105 {
		t.Fatalf("110 at once with 5 left: %v, want 5 × 201 and 105 × 429", got)
	}
	if n, mails := w.invitationCount(t), len(w.mail.all()); n != 100 || mails != 100 {
		t.Fatalf("%d invitations, %d mails; want 100 of each", n, mails)
	}
}

// TestCreateBeforeAuthentication: SPEC §9, a create with a forged token (a known user's id with a
// wrong secret, or an unknown id) and the largest body it accepts (100 portfolio ids, for an address
// with invitations) reads one BatchGetItem of a handful of keys, writes nothing and gets DRF's 401;
// so does a body over the bound, which is refused only once the caller is known.
func TestCreateBeforeAuthentication(t *testing.T) {
	w := newWorld(t)
	w.invitation(t, spec{})
	w.invitation(t, spec{org: w.globex})
	forged := func(userID string) string {
		tok, _, err := domain.NewTokenString(userID)
		if err != nil {
			t.Fatal(err)
		}
		return tok
	}
	for _, caller := range []struct{ name, token string }{
		{"a known user's id with a wrong secret", forged(w.admin.ID)},
		{"an unknown id", forged(uuid.NewString())},
	} {
		for _, tc := range []struct{ n, keys int }{{domain.MaxPortfolioIDs, 6}, {5000, 3}} {
			n := tc.n
			t.Run(fmt.Sprintf("%s, %d portfolios", caller.name, n), func(t *testing.T) {
				body := fmt.Sprintf(`{"organization_id": %q, "email": %q, "accessible_portfolio_ids": %s}`, w.acme.ID,
					w.invitee.Email, idList(n, uuid.NewString))
				w.db.Calls.Reset()
				resp := w.post(t, caller.token, body)
				resp.Expect(t, 401, `{"detail": "Invalid token."}`)
				if resp.Header.Get("WWW-Authenticate") != `Bearer realm="api"` {
					t.Fatalf("WWW-Authenticate %q", resp.Header.Get("WWW-Authenticate"))
				}
				keys := w.onlyBatchGet(t)
				// The token, its user, the quota and, for a body without errors, the organization, the
				// address's account and its pending claim.
				if keys != tc.keys {
					t.Fatalf("read %d keys before authentication, want %d", keys, tc.keys)
				}
			})
		}
	}
	if n := w.invitationCount(t); n != 2 || len(w.mail.all()) != 0 {
		t.Fatalf("%d invitations, %d mails", n, len(w.mail.all()))
	}
}

// TestPortfolioListBound: SPEC §9, accessible_portfolio_ids holds at most 100 ids; more is DRF's 400,
// decided on the body alone: a create reads only the session (with the quota), a PATCH only what its
// permission needs (the session with the invitation), neither any portfolio.
func TestPortfolioListBound(t *testing.T) {
	w := newWorld(t)
	id := w.invitation(t, spec{portfolios: []ref{w.zeta}})
	before := w.before(t, id)
	// The same id again and again: duplicates count, as DRF counts them.
	list := func(n int) string { return idList(n, func() string { return w.alpha.ID }) }
	const over = `{"accessible_portfolio_ids": ["Ensure this field has no more than 100 elements."]}`
	admin := w.token(t, w.admin)
	for _, tc := range []struct {
		name string
		send func(body string) testkit.Response
		body string
		keys int
	}{
		{"create", func(b string) testkit.Response { return w.post(t, admin, b) },
			fmt.Sprintf(`{"organization_id": %q, "email": "n@example.com", "accessible_portfolio_ids": %s}`, w.acme.ID,
				list(101)), 3},
		{"patch", func(b string) testkit.Response { return w.patch(t, admin, id, b) },
			fmt.Sprintf(`{"accessible_portfolio_ids": %s}`, list(101)), 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w.db.Calls.Reset()
			tc.send(tc.body).Expect(t, 400, over)
			if keys := w.onlyBatchGet(t); keys != tc.keys {
				t.Fatalf("read %d keys, want %d", keys, tc.keys)
			}
		})
	}
	// 100 is within the bound: the ids are then judged one by one.
	w.patch(t, admin, id, fmt.Sprintf(`{"accessible_portfolio_ids": %s}`, list(100))).Expect(t, 200, func() string {
		s := w.saved(before)
		s.withPortfolios(w.alpha)
		return s.JSON(t)
	}())
	w.post(t, admin,
		fmt.Sprintf(`{"organization_id": %q, "email": "n@example.com", "accessible_portfolio_ids": %s}`, w.acme.ID,
			strings.Replace(list(100), w.alpha.ID, w.beta.ID, 1))).
		Expect(t, 400, `{"accessible_portfolio_ids": ["Invalid pk \"`+w.beta.ID+`\" - object does not exist."]}`)
	if n := w.invitationCount(t); n != 1 {
		t.Fatalf("%d invitations", n)
	}
}
