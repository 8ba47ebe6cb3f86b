package invitations_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/google/uuid"
	"github.com/reportingplatform/api/infra/testkit"
	"github.com/reportingplatform/api/shared/domain"
)

func TestListInvitations(t *testing.T) { testListInvitations(t, newWorld(t)) }

func testListInvitations(t *testing.T, w *world) {
	// The loader stamps every invitation with the world's clock: equal created_at, so ties by id decide.
	toInvitee := w.invitation(t, spec{})                                        // Acme, to the invitee
	accepted := w.invitation(t, spec{email: "a-" + w.invitee.Email, status: 1}) // Acme
	expired := w.invitation(t, spec{email: "e@example.com", expiry: w.now})     // Acme, pending past expiry
	globex := w.invitation(t, spec{org: w.globex, email: w.invitee.Email})      // Globex, to the invitee
	globexOther := w.invitation(t, spec{org: w.globex, email: "g@example.com"}) // Globex
	newest := func(ids ...string) []string { return slices.Sorted(slices.Values(ids)) }
	all := newest(toInvitee, accepted, expired, globex, globexOther)
	ids := func(t *testing.T, resp testkit.Response) []string {
		t.Helper()
		got, _ := pageIDs(t, resp)
		return got
	}
	for _, tc := range []struct {
		name   string
		caller domain.User
		query  string
		want   []string
	}{
		{"staff see all", w.staff, "", all},
		{"an administrator sees the organization's and their own", w.admin, "", newest(toInvitee, accepted, expired)},
		{"a member sees the organization's", w.member, "", newest(toInvitee, accepted, expired)},
		{"the invitee sees theirs", w.invitee, "", newest(toInvitee, globex)},
		{"an outsider sees none", w.outsider, "", []string{}},
		{"filter organization", w.staff, "?organization=" + w.globex.ID, newest(globex, globexOther)},
		{"filter organization the caller is not in", w.member, "?organization=" + w.globex.ID, []string{}},
		{"filter status pending", w.staff, "?status=0", newest(toInvitee, globex, globexOther)},
		{"filter status expired", w.staff, "?status=3", []string{expired}},
		{"filter email, any case", w.staff, "?email=" + upper(w.invitee.Email), newest(toInvitee, globex)},
		{"filters together", w.invitee, "?organization=" + w.acme.ID + "&status=0&email=" + w.invitee.Email,
			[]string{toInvitee}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp := testkit.Do(t, w.gw, testkit.Request{Method: "GET", Path: listPath + tc.query, Token: w.token(t, tc.caller)})
			if got := ids(t, resp); fmt.Sprint(got) != fmt.Sprint(tc.want) {
				t.Fatalf("ids %v, want %v", got, tc.want)
			}
			if n := int(resp.Object(t)["count"].(float64)); n != len(tc.want) {
				t.Fatalf("count %d", n)
			}
		})
	}
	t.Run("results in the read shape", func(t *testing.T) {
		resp := testkit.Do(t, w.gw,
			testkit.Request{Method: "GET", Path: listPath + "?organization=" + w.acme.ID + "&status=3",
				Token: w.token(t, w.admin)})
		resp.Expect(t, 200, `{"count": 1, "next": null, "previous": null, "results": [`+w.before(t, expired).JSON(t)+`]}`)
	})
	t.Run("pages", func(t *testing.T) {
		resp := testkit.Do(t, w.gw,
			testkit.Request{Method: "GET", Path: listPath + "?page_size=2&page=2", Token: w.token(t, w.staff)})
		if got := ids(t, resp); fmt.Sprint(got) != fmt.Sprint(all[2:4]) {
			t.Fatalf("page 2: %v, want %v", got, all[2:4])
		}
		// DRF's links, each with the continuation of the page it links to.
		o := resp.Object(t)
		next, _ := o["next"].(string)
		previous, _ := o["previous"].(string)
		drf := withoutCursors(t, modelPage{Next: &next, Previous: &previous})
		if *drf.Next != "http://127.0.0.1:3000/api/v1/organization-invitations/?page=3&page_size=2" ||
			*drf.Previous != "http://127.0.0.1:3000/api/v1/organization-invitations/?page_size=2" ||
			!strings.Contains(next, "cursor=") || !strings.Contains(previous, "cursor=") {
			t.Fatalf("links %v %v", o["next"], o["previous"])
		}
		testkit.Do(t, w.gw,
			testkit.Request{Method: "GET", Path: listPath + "?page=4&page_size=2", Token: w.token(t, w.staff)}).
			Expect(t, 404, `{"detail": "Invalid page."}`)
	})
	t.Run("bad filters", func(t *testing.T) {
		testkit.Do(t, w.gw,
			testkit.Request{Method: "GET", Path: listPath + "?organization=x&status=7", Token: w.token(t, w.staff)}).
			Expect(t, 400,
				`{"organization": ["Enter a valid UUID."], "status": ["Select a valid choice. 7 is not one of the `+
					`available choices."]}`)
	})
	t.Run("authentication first", func(t *testing.T) {
		testkit.Do(t, w.gw, testkit.Request{Method: "GET", Path: listPath + "?status=7"}).
			Expect(t, 401, `{"detail": "Authentication credentials were not provided."}`)
	})
}

// TestStaffListReadsOnlyItsPage: staff's list, filtered or not, counts everyone's invitations from the
// counts and orders them from the index entries, and reads the items of its page alone (page 2 of 5 out
// of 12 reads 5 items, not 12).
func TestStaffListReadsOnlyItsPage(t *testing.T) {
	w := newWorld(t)
	var all []string
	for i := range 12 {
		all = append(all, w.invitation(t, spec{email: fmt.Sprintf("p%d@example.com", i)}))
	}
	slices.Sort(all) // the loader stamps them with the world's clock: equal created_at, ties by id
	staff := w.token(t, w.staff)
	for _, tc := range []struct {
		query string
		want  []string
		count int
		read  int
	}{
		{"?page=2&page_size=5", all[5:10], 12, 5},
		{"?page=3&page_size=5", all[10:], 12, 2},
		{"?status=0&page=2&page_size=5", all[5:10], 12, 5},
	} {
		t.Run(tc.query, func(t *testing.T) {
			w.db.Calls.Reset()
			got, count := pageIDs(t,
				testkit.Do(t, w.gw, testkit.Request{Method: "GET", Path: listPath + tc.query, Token: staff}))
			if count != tc.count || !slices.Equal(got, tc.want) {
				t.Fatalf("count %d, ids %v; want %d, %v", count, got, tc.count, tc.want)
			}
			if n := invitationItemsRead(w.db.Calls.Inputs()); n != tc.read {
				t.Fatalf("read %d invitation items (%v), want %d", n, w.db.Calls, tc.read)
			}
		})
	}
}

// pageIDs reads a 200 list page: its results' ids, in order (empty, not nil, for none), and its count.
func pageIDs(t *testing.T, resp testkit.Response) ([]string, int) {
	t.Helper()
	var page struct {
		Count   int
		Results []struct{ ID string }
	}
	if err := json.Unmarshal(resp.Body, &page); err != nil || resp.Status != 200 {
		t.Fatalf("%d %s", resp.Status, resp.Body)
	}
	ids := []string{}
	for _, r := range page.Results {
		ids = append(ids, r.ID)
	}
	return ids, page.Count
}

// invitationItemsRead counts the invitation keys that BatchGetItem calls asked for.
func invitationItemsRead(inputs []any) int {
	n := 0
	for _, in := range inputs {
		if b, ok := in.(*dynamodb.BatchGetItemInput); ok {
			for _, req := range b.RequestItems {
				for _, k := range req.Keys {
					if pk, ok := k["PK"].(*types.AttributeValueMemberS); ok && strings.HasPrefix(pk.Value, "INVITATION#") {
						n++
					}
				}
			}
		}
	}
	return n
}

// TestListFollowsTheSession: the scope is the one the session says, read after it. A member who listed
// leaves the organization; the next list shows none of its invitations, and a new membership shows at
// once, in the list's usual three round trips.
func TestListFollowsTheSession(t *testing.T) {
	w := newWorld(t)
	acme := w.invitation(t, spec{email: "x@example.com"})
	globex := w.invitation(t, spec{org: w.globex, email: "y@example.com"})
	u := w.db.User(t, testkit.NewUser{})
	member := uuid.NewString()
	w.load(t,
		map[string]any{"members": []any{map[string]any{"id": member, "organization_id": w.acme.ID, "user_id": u.ID,
			"role": 0}}})
	list := func() []string {
		t.Helper()
		ids, _ := pageIDs(t, testkit.Do(t, w.gw, testkit.Request{Method: "GET", Path: listPath, Token: w.token(t, u)}))
		return ids
	}
	if got := list(); fmt.Sprint(got) != fmt.Sprint([]string{acme}) {
		t.Fatalf("as a member of Acme: %v", got)
	}
	// The loader moves the membership to Globex (same member id).
	w.load(t,
		map[string]any{"members": []any{map[string]any{"id": member, "organization_id": w.globex.ID,
			"user_id": u.ID, "role": 0}}})
	w.db.Calls.Reset()
	w.db.Calls.SimulateLatency(testkit.BudgetLatency)
	if got := list(); fmt.Sprint(got) != fmt.Sprint([]string{globex}) {
		t.Fatalf("after moving to Globex: %v", got)
	}
	if n := w.db.Calls.Sequential(); n != 3 {
		t.Fatalf("%d sequential calls (%v), want 3: the session, the counts beside the entries, the page", n, w.db.Calls)
	}
}
