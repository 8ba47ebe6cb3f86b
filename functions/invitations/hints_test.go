package invitations_test

import (
	"encoding/base64"
	"fmt"
	"maps"
	"net/http/httptest"
	"net/url"
	"slices"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/reportingplatform/api/infra/testkit"
	"github.com/reportingplatform/api/shared/domain"
	"github.com/reportingplatform/api/shared/httpapi"
)

// TestATopUpKeepsAContinuationExact: a page reached by a link reads from each stream (an organization's
// or address's invitations of one status) about what the pages before held of it. When the mix changes
// sharply between pages (a status the page before held nothing of fills the next one), the stream read
// short is read on, one sequential call more, and the page is still exactly the list's next entries;
// a page whose mix is as predicted costs three calls. Invitations are deleted, created inside the next
// page's range and revoked (moved to another stream) between the pages. The walk back by previous
// links (pages read backwards) is as exact.
func TestATopUpKeepsAContinuationExact(t *testing.T) {
	w := newWorld(t)
	staff := Caller{Token: w.token(t, w.staff)}
	// One instant, ties by id: the list's order is the ids' the test chooses, in steps of ten so that
	// an invitation created between pages can fall inside one.
	id := func(k int) string { return fmt.Sprintf("00000000-0000-4000-8000-%012d", k) }
	status := map[string]int{}
	load := func(status0 int, ks ...int) {
		t.Helper()
		var invs []any
		for _, k := range ks {
			invs = append(invs, map[string]any{"id": id(k), "organization_id": w.acme.ID,
				"inviter_member_id": w.adminMember, "email": fmt.Sprintf("i%d@example.com", k), "status": status0,
				"expiry_date": w.now.Add(ttl).Format(time.RFC3339Nano)})
			status[id(k)] = status0
		}
		w.load(t, map[string]any{"invitations": invs})
	}
	block := func(from int) []int {
		var ks []int
		for k := from; k < from+100; k += 10 {
			ks = append(ks, k)
		}
		return ks
	}
	load(1, block(100)...) // page 1: accepted ones only
	load(0, block(200)...) // page 2: pending ones only
	load(0, block(300)[:8]...)
	load(4, block(400)...) // page 4: revoked ones only, none on page 3
	load(2, block(500)...) // page 5: declined ones only, one on page 3; the list's end
	change := func(page int) {
		t.Helper()
		del := func(k int) {
			if resp := testkit.Do(t, w.gw, testkit.Request{Method: "DELETE", Path: listPath + id(k) + "/",
				Token: staff.Token}); resp.Status != 204 {
				t.Fatalf("delete %d: %d %s", k, resp.Status, resp.Body)
			}
			delete(status, id(k))
		}
		switch page {
		case 1: // inside page 2: one deleted, two created, one revoked (to another stream)
			del(230)
			load(0, 245, 255)
			if resp := testkit.Do(t, w.gw, testkit.Request{Method: "PATCH", Path: listPath + id(270) + "/",
				Token: staff.Token, Body: `{"status": 4}`}); resp.Status != 200 {
				t.Fatalf("revoke: %d %s", resp.Status, resp.Body)
			}
			status[id(270)] = 4
		case 2: // one shown deleted, one created inside page 3 of a stream pages 1 and 2 held nothing of
			del(100)
			load(2, 305)
		}
	}
	list := func() []string {
		return slices.Sorted(maps.Keys(status))
	}
	var (
		shown []string
		last  walkPage
	)
	// Page 3's mix is page 2's (pending ones, and the declined one the model did not see coming fits in
	// what every stream reads beyond its share).
	wantCalls := []int{3, 4, 3, 4, 4}
	path := listPath + "?page_size=10"
	for page := 1; path != ""; page++ {
		w.db.Calls.Reset()
		w.db.Calls.SimulateLatency(testkit.BudgetLatency)
		p := w.walkStep(t, staff, path)
		w.db.Calls.SimulateLatency(0)
		all := list()
		from := 0
		if len(shown) > 0 {
			from = slices.Index(all, shown[len(shown)-1]) + 1
		}
		want := all[from:min(from+10, len(all))]
		var got []string
		for _, r := range p.Results {
			got = append(got, r.ID)
		}
		if p.Count != len(all) || !slices.Equal(got, want) {
			t.Fatalf("page %d: count %d, %v; want %d, %v", page, p.Count, got, len(all), want)
		}
		if page > len(wantCalls) {
			t.Fatalf("page %d: the walk goes on", page)
		}
		if n := w.db.Calls.Sequential(); n != wantCalls[page-1] {
			t.Errorf("page %d: %d sequential calls (%v), want %d", page, n, w.db.Calls, wantCalls[page-1])
		}
		if page > 1 {
			if u, err := url.Parse(path); err != nil || u.Query().Get("cursor") == "" {
				t.Fatalf("page %d was not reached by a continuation: %s", page, path)
			}
		}
		shown = append(shown, got...)
		change(page)
		path, last = "", p
		if p.Next != nil {
			path = *p.Next
		}
	}
	if len(shown) != 50 {
		t.Fatalf("the walk showed %d invitations, want the 50 present throughout or created ahead of it", len(shown))
	}

	// Back by previous from the last page, nothing changing: each page is the ten before the one
	// after it. The hints average the pages walked, so they still hold enough of the revoked and
	// pending ones of the pages just walked; the accepted ones, four pages back, read on.
	all := list()
	before := last.Results[0].ID
	var calls []int
	for page := 4; last.Previous != nil; page-- {
		w.db.Calls.Reset()
		w.db.Calls.SimulateLatency(testkit.BudgetLatency)
		last = w.walkStep(t, staff, *last.Previous)
		w.db.Calls.SimulateLatency(0)
		calls = append(calls, w.db.Calls.Sequential())
		to := slices.Index(all, before)
		want := all[max(0, to-10):to]
		var got []string
		for _, r := range last.Results {
			got = append(got, r.ID)
		}
		if !slices.Equal(got, want) {
			t.Fatalf("back to page %d: %v; want %v", page, got, want)
		}
		before = got[0]
	}
	if !slices.Equal(calls, []int{3, 3, 3, 4}) {
		t.Errorf("back to pages 4 to 1: %v sequential calls, want 3, 3, 3 and 4 (the accepted ones)", calls)
	}
}

// TestACursorWithoutHintsReadsAsBefore: a link made before lists carried hints (a continuation of the
// position alone, as a comment list's) still leads to the page after its position, read as it was
// then: a page and two entries from every stream. The same link with hints reads less and shows the
// same page. Hints altered in a link fail its signature: the page of its number, read by its number.
func TestACursorWithoutHintsReadsAsBefore(t *testing.T) {
	w := newWorld(t)
	d := LoadDataset(t, w.db, w.now, 300)
	want := d.List(d.Staff, ListQuery{Status: -1}, w.now)
	first := w.walkStep(t, d.Staff, listPath+"?page_size=20")
	if first.Next == nil || len(first.Results) != 20 {
		t.Fatalf("page 1: %d results, next %v", len(first.Results), first.Next)
	}
	key, err := w.db.Store.StoredContinuationKey(t.Context())
	if err != nil || key == nil {
		t.Fatalf("continuation key: %v %v", key, err)
	}
	// The link page 1 had before hints: its last result's position, signed for page 2.
	last := want[19]
	r := httptest.NewRequest("GET", listPath+"?page_size=20", nil)
	page, err := httpapi.Pagination.Read(r.URL.Query()).Resolve(len(want))
	if err != nil {
		t.Fatal(err)
	}
	position := domain.InvitationPosition{CreatedAt: last.Created, ID: last.ID}.String()
	plainNext, _ := page.Signed(key, []string{position}).Links(r)
	plain, err := url.Parse(*plainNext)
	if err != nil {
		t.Fatal(err)
	}
	hinted, err := url.Parse(*first.Next)
	if err != nil {
		t.Fatal(err)
	}
	if plain.Query().Get("cursor") == hinted.Query().Get("cursor") {
		t.Fatalf("page 1's link carries no hints: %s", *first.Next)
	}
	altered := hinted.Query()
	raw, err := base64.RawURLEncoding.DecodeString(altered.Get("cursor"))
	if err != nil {
		t.Fatal(err)
	}
	raw[4]++ // the first hint (version, flags, page, count of hints)
	altered.Set("cursor", base64.RawURLEncoding.EncodeToString(raw))
	for _, tc := range []struct {
		name, path string
		limits     func(limits []int32) bool // the five streams' Queries'
	}{
		// A page and two entries, its position's own and one to know whether more follow.
		{"without hints", plain.RequestURI(), func(ls []int32) bool { return !slices.ContainsFunc(ls, differs(22)) }},
		// Each stream its share of 20 and a margin, at most the above: 21 and 22 for the pending ones.
		{"with hints", hinted.RequestURI(), func(ls []int32) bool {
			sum := int32(0)
			for _, l := range ls {
				sum += l
			}
			return slices.Max(ls) <= 22 && sum < 5*22-20
		}},
		// Page 2 by its number: two pages from every stream.
		{"hints altered", hinted.Path + "?" + altered.Encode(), func(ls []int32) bool {
			return !slices.ContainsFunc(ls, differs(40))
		}},
	} {
		w.db.Calls.Reset()
		p := w.walkStep(t, d.Staff, tc.path)
		var got []string
		for _, r := range p.Results {
			got = append(got, r.ID)
		}
		var wantIDs []string
		for _, inv := range want[20:40] {
			wantIDs = append(wantIDs, inv.ID)
		}
		if p.Count != len(want) || !slices.Equal(got, wantIDs) {
			t.Fatalf("%s: count %d, %v; want %d, %v", tc.name, p.Count, got, len(want), wantIDs)
		}
		var limits []int32
		for _, in := range w.db.Calls.Inputs() {
			if q, ok := in.(*dynamodb.QueryInput); ok && q.Limit != nil {
				limits = append(limits, *q.Limit)
			}
		}
		if len(limits) != 5 || !tc.limits(limits) {
			t.Errorf("%s: the streams' Queries were limited to %v", tc.name, limits)
		}
	}
}

func differs(n int32) func(int32) bool { return func(l int32) bool { return l != n } }
