package invitations_test

import (
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/reportingplatform/api/infra/testkit"
)

// TestAFirstPageCostsTheSameAtAnySize: every list's first page and last page, for every kind of caller and
// filter, costs the same round trips and read units (within 10%) at 200 and at 2,000 invitations in the table
// (SPEC §11), when it shows as many results: its count comes from count items, its entries from Queries with
// a Limit, its items are its page's. DynamoDB reports the read units each call consumed, by the size of what
// it read, so the measure is deterministic.
func TestAFirstPageCostsTheSameAtAnySize(t *testing.T) {
	type cost struct {
		sequential     int
		units          float64
		count, results int
	}
	lists := []string{"", "?status=0", "?status=2", "?status=3", "?email=%s", "?organization=%s",
		"?organization=%s&status=1"}
	callers := []string{"staff", "administrator", "invitee"}
	measure := func(n int) map[string]cost {
		w := newWorld(t)
		w.manyInvitations(t, n)
		// The schedule's run records the expiries; those after it are read as entries, a handful.
		if _, err := w.db.Store.RecordExpiries(t.Context(), w.now); err != nil {
			t.Fatal(err)
		}
		out := map[string]cost{}
		tokens := map[string]string{"staff": w.token(t, w.staff), "administrator": w.token(t, w.admin),
			"invitee": w.token(t, w.invitee)}
		for _, who := range callers {
			for _, list := range lists {
				query := list
				switch list {
				case "?email=%s":
					query = fmt.Sprintf(list, w.invitee.Email)
				case "?organization=%s", "?organization=%s&status=1":
					query = fmt.Sprintf(list, w.acme.ID)
				}
				for _, page := range []string{"page=1", "page=last"} {
					path := listPath + query + "&" + page
					if query == "" {
						path = listPath + "?" + page
					}
					w.db.Calls.Reset()
					w.db.Calls.SimulateLatency(testkit.BudgetLatency)
					resp := testkit.Do(t, w.gw, testkit.Request{Method: "GET", Path: path, Token: tokens[who]})
					ids, count := pageIDs(t, resp)
					if count > 0 && len(ids) == 0 {
						t.Fatalf("%s %s: count %d and no results", who, path, count)
					}
					out[who+" "+list+" "+page] = cost{w.db.Calls.Sequential(), w.db.Calls.ReadUnits(), count, len(ids)}
				}
			}
		}
		return out
	}
	small, large := measure(200), measure(2000)
	compared := 0
	for name, s := range small {
		l := large[name]
		t.Logf("%-48s 200: %d calls, %5.1f units, %2d of %4d; 2,000: %d calls, %5.1f units, %2d of %4d",
			name, s.sequential, s.units, s.results, s.count, l.sequential, l.units, l.results, l.count)
		if s.count > 0 && l.count != 10*s.count {
			t.Errorf("%s: count %d at 2,000, %d at 200", name, l.count, s.count)
		}
		if s.results != l.results {
			continue // a last page shorter at one size: its items differ
		}
		compared++
		if s.sequential != l.sequential || math.Abs(s.units-l.units) > 0.1*math.Max(s.units, l.units) {
			t.Errorf("%s: %d round trips and %.1f read units at 200, %d and %.1f at 2,000", name,
				s.sequential, s.units, l.sequential, l.units)
		}
	}
	if compared < len(small)*3/4 {
		t.Errorf("compared %d of %d pages: the data leaves too many last pages of different lengths", compared, len(small))
	}
}

// manyInvitations loads n (a multiple of 200) invitations into Acme in one load, alike in size, a fifth
// of each status: one in ten to the invitee (cancelled, so that one address has many), the others to
// addresses of their own, and one pending in twenty past its expiry.
func (w *world) manyInvitations(t *testing.T, n int) {
	t.Helper()
	invs := make([]any, 0, n)
	for i := range n {
		status, email := []int{0, 1, 2, 2, 4, 0, 1, 3, 4, 3}[i%10], fmt.Sprintf("p%06d@example.com", i)
		if i%10 == 3 {
			email = w.invitee.Email
		}
		expiry := w.now.Add(ttl)
		if status == 0 && i%100 == 0 {
			expiry = w.now.Add(-time.Hour)
		}
		invs = append(invs, map[string]any{
			"id": uuid.NewString(), "organization_id": w.acme.ID, "inviter_member_id": w.adminMember,
			"email": email, "status": status, "expiry_date": expiry.Format(time.RFC3339Nano),
		})
	}
	w.load(t, map[string]any{"invitations": invs})
}
