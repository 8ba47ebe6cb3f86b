package invitations_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/reportingplatform/api/infra/testkit"
)

// TestListMatchesTheModel: at a few thousand invitations, every caller's list, under every filter and
// their combinations, on first, middle and last pages of several sizes, is exactly what SPEC §3's GET
// rule, §10's filters and order and §6's pagination make of the data loaded: count, links, and each
// result's id, status and fields, in order. Then the clock passes the expiry of a quarter of the
// pending invitations, and every list is compared again, before and after the expiries function
// recorded them; and again after the API changed, deleted and created invitations and made the
// invitee a member by acceptance.
func TestListMatchesTheModel(t *testing.T) {
	w := newWorld(t)
	began := time.Now()
	d := LoadDataset(t, w.db, w.now, modelSize)
	t.Logf("loaded %d invitations in %v", len(d.Invitations), time.Since(began).Round(time.Millisecond))
	d.holdsEveryCase(t, w.now)
	t.Run("at the load's clock", func(t *testing.T) { w.compareLists(t, d, 0, every) })
	expiring := 0
	for _, inv := range d.Invitations {
		if inv.StatusAt(w.now) == 0 && inv.StatusAt(d.ExpiringBy) == 3 {
			expiring++
		}
	}
	w.now = d.ExpiringBy
	// The lists whose count and contents the clock changes; the others show the statuses too, as the
	// unfiltered lists do.
	byStatus := func(q ListQuery) bool { return q.Status >= 0 || q.Organization == "" && q.Email == "" }
	t.Run(fmt.Sprintf("a day later, %d more expired", expiring), func(t *testing.T) { w.compareLists(t, d, 1, byStatus) })
	// The scheduled run records those expiries: the lists read them from the counts instead of the
	// unrecorded entries, and show exactly the same.
	recorded, err := w.db.Store.RecordExpiries(t.Context(), w.now)
	if err != nil || recorded < expiring {
		t.Fatalf("RecordExpiries = %d, %v; want at least the %d that expired", recorded, err, expiring)
	}
	t.Run(fmt.Sprintf("after the expiries run recorded %d", recorded),
		func(t *testing.T) { w.compareLists(t, d, 3, byStatus) })
	w.writeThroughAPI(t, d)
	t.Run("after writes through the API", func(t *testing.T) { w.compareLists(t, d, 2, every) })
}

// compareLists compares the lists of every caller under every filter that keep keeps with the model
// at the world's clock, several at once. Each list is asked one way of pageVariants, in turn (round
// moves the turn on), so that every way is asked of every caller; the unfiltered lists of the
// administrator and the invitee every way.
func (w *world) compareLists(t *testing.T, d *Dataset, round int, keep func(ListQuery) bool) {
	began, n := time.Now(), atomic.Int64{}
	t.Cleanup(func() { t.Logf("%d lists compared in %v", n.Load(), time.Since(began).Round(time.Millisecond)) })
	for ci, c := range d.Callers() {
		for i, q := range d.queries(c) {
			if !keep(q) {
				continue
			}
			t.Run(c.Name+" "+q.Values().Encode(), func(t *testing.T) {
				t.Parallel()
				count := len(d.List(c, q, w.now))
				pages := []pageAsked{pageVariants[(i+5*ci+7*round)%len(pageVariants)].of(count)}
				if round == 0 && i == 0 && (c.User.ID == d.Admin.User.ID || c.User.ID == d.Invitee.User.ID) {
					pages = everyPageVariant(count)
				}
				for _, p := range pages {
					w.compareList(t, d, c, q, p)
					n.Add(1)
				}
			})
		}
	}
}

// every keeps every filter.
func every(ListQuery) bool { return true }

// holdsEveryCase fails unless d has what the comparison is for: every status as read at now, pending
// invitations past expiry and some expiring before ExpiringBy, invitations created at one instant,
// and addresses invited by several organizations, among them the invitee's and that of a member
// invited both by organizations they belong to and by others.
func (d *Dataset) holdsEveryCase(t *testing.T, now time.Time) {
	t.Helper()
	statuses, created := map[int]bool{}, map[time.Time]int{}
	expired, expiring := false, false
	orgsOf := map[string]map[string]bool{}
	for _, inv := range d.Invitations {
		statuses[inv.StatusAt(now)] = true
		created[inv.Created]++
		expired = expired || inv.Status == 0 && inv.StatusAt(now) == 3
		expiring = expiring || inv.StatusAt(now) == 0 && inv.StatusAt(d.ExpiringBy) == 3
		key := strings.ToLower(inv.Email)
		if orgsOf[key] == nil {
			orgsOf[key] = map[string]bool{}
		}
		orgsOf[key][inv.Organization] = true
	}
	ties := false
	for _, n := range created {
		ties = ties || n > 1
	}
	dual := orgsOf[strings.ToLower(d.Dual.User.Email)]
	dualIn, dualOut := false, false
	for org := range dual {
		member := slices.Contains(d.Dual.Organizations, org)
		dualIn, dualOut = dualIn || member, dualOut || !member
	}
	if len(statuses) != 5 || !expired || !expiring || !ties || !dualIn || !dualOut ||
		len(orgsOf[strings.ToLower(d.Invitee.User.Email)]) < 2 || len(orgsOf[strings.ToLower(d.Shared[1])]) < 2 {
		t.Fatalf("the data lacks a case: statuses %v, expired %v, expiring %v, ties %v, member's address in and "+
			"out %v %v, invitee's organizations %d, shared address's %d",
			statuses, expired, expiring, ties, dualIn, dualOut, len(orgsOf[strings.ToLower(d.Invitee.User.Email)]),
			len(orgsOf[strings.ToLower(d.Shared[1])]))
	}
}

// modelSize is how many invitations TestListMatchesTheModel loads.
const modelSize = 2000

// queries are the filters c lists with: none; an organization of theirs and one not; each status; their
// own address as typed, in capitals, and another; and those combined.
func (d *Dataset) queries(c Caller) []ListQuery {
	mine, other := d.Organizations[2], d.Organizations[5]
	if len(c.Organizations) > 0 {
		mine = c.Organizations[len(c.Organizations)-1]
	}
	own, shared := c.User.Email, d.Shared[1]
	loud := strings.ToUpper(own)
	qs := []ListQuery{{Status: -1}, {Organization: mine, Status: -1}, {Organization: other, Status: -1}}
	for s := range 5 {
		qs = append(qs, ListQuery{Status: s})
	}
	return append(qs,
		ListQuery{Email: own, Status: -1}, ListQuery{Email: loud, Status: -1},
		ListQuery{Email: strings.ToUpper(shared), Status: -1},
		ListQuery{Organization: mine, Status: 0}, ListQuery{Organization: other, Status: 3},
		ListQuery{Organization: mine, Email: loud, Status: -1}, ListQuery{Organization: other, Email: shared, Status: -1},
		ListQuery{Email: shared, Status: 3}, ListQuery{Email: loud, Status: 0},
		ListQuery{Organization: mine, Status: 0, Email: loud}, ListQuery{Organization: other, Status: 3, Email: shared},
	)
}

// pageAsked is a page and page_size as sent; "" is not sent.
type pageAsked struct{ page, size string }

// pageVariant is a page of a list asked for one way: first, middle or last page (the last as "last"
// or by its number), at a page_size (0: none sent, the default 20).
type pageVariant struct {
	which string // "first", "middle", "last", "last by number"
	size  int
}

// pageVariants are every way the test asks for a page. Each list is asked one of them, in turn, so
// that every way is asked of every caller.
var pageVariants = func() []pageVariant {
	var out []pageVariant
	for _, size := range []int{0, 1, 7, 100} {
		for _, which := range []string{"first", "middle", "last", "last by number"} {
			out = append(out, pageVariant{which, size})
		}
	}
	return out
}()

// of is the page and page_size to send for v of a list of count.
func (v pageVariant) of(count int) pageAsked {
	size, p := v.size, pageAsked{}
	if size == 0 {
		size = 20
	} else {
		p.size = strconv.Itoa(size)
	}
	pages := max(1, (count+size-1)/size)
	switch v.which {
	case "middle":
		p.page = strconv.Itoa((pages + 1) / 2)
	case "last":
		p.page = "last"
	case "last by number":
		p.page = strconv.Itoa(pages)
	}
	return p
}

// everyPageVariant is every way of asking for a page of a list of count.
func everyPageVariant(count int) []pageAsked {
	var out []pageAsked
	for _, v := range pageVariants {
		out = append(out, v.of(count))
	}
	return out
}

// resultFields are the fields of a listed invitation the model knows.
type resultFields struct {
	ID           string   `json:"id"`
	Status       int      `json:"status"`
	Email        string   `json:"email"`
	Role         int      `json:"role"`
	ExpiryDate   string   `json:"expiry_date"`
	Organization orgShape `json:"organization"`
}

type modelPage struct {
	Count    int            `json:"count"`
	Next     *string        `json:"next"`
	Previous *string        `json:"previous"`
	Results  []resultFields `json:"results"`
}

// expectedPage is DRF's page p of all (SPEC §6): page_size absent 20, at most 100; "last" the last page;
// links this request's URL with page replaced (dropped for page 1), parameters sorted by name.
func (d *Dataset) expectedPage(all []ModelInvitation, query url.Values, p pageAsked, now time.Time) modelPage {
	size := 20
	if p.size != "" {
		size, _ = strconv.Atoi(p.size)
		size = min(size, 100)
	}
	pages := max(1, (len(all)+size-1)/size)
	number := 1
	switch p.page {
	case "last":
		number = pages
	case "":
	default:
		number, _ = strconv.Atoi(p.page)
	}
	link := func(n int) *string {
		q := url.Values{}
		for k, v := range query {
			q[k] = v
		}
		q.Del("page")
		if n > 1 {
			q.Set("page", strconv.Itoa(n))
		}
		s := "http://127.0.0.1:3000" + listPath + "?" + q.Encode()
		if len(q) == 0 {
			s = "http://127.0.0.1:3000" + listPath
		}
		return &s
	}
	out := modelPage{Count: len(all), Results: []resultFields{}}
	if number < pages {
		out.Next = link(number + 1)
	}
	if number > 1 {
		out.Previous = link(number - 1)
	}
	for _, inv := range all[(number-1)*size : min(len(all), number*size)] {
		out.Results = append(out.Results, d.fields(inv, now))
	}
	return out
}

// compareList sends c's list with q and page p and compares its whole body with the model's page, its
// links but their continuations with DRF's; then follows each link, continuation and all, and compares
// the page it reads with the model's page of that number (SPEC §11: nothing changed, so a page read from
// a position is the page read by number).
func (w *world) compareList(t *testing.T, d *Dataset, c Caller, q ListQuery, p pageAsked) {
	t.Helper()
	query := q.Values()
	if p.page != "" {
		query.Set("page", p.page)
	}
	if p.size != "" {
		query.Set("page_size", p.size)
	}
	path := listPath
	if len(query) > 0 {
		path += "?" + query.Encode()
	}
	all := d.List(c, q, w.now)
	got := w.modelPageAt(t, c, path)
	want := d.expectedPage(all, query, p, w.now)
	if diff := pageDiff(withoutCursors(t, got), want); diff != "" {
		t.Errorf("%s: GET %s: %s", c.Name, path, diff)
	}
	number := 1
	switch p.page {
	case "last":
		number = max(1, (len(all)+pageSizeOf(p)-1)/pageSizeOf(p))
	case "":
	default:
		number, _ = strconv.Atoi(p.page)
	}
	for _, l := range []struct {
		link *string
		to   int
	}{{got.Next, number + 1}, {got.Previous, number - 1}} {
		if l.link == nil {
			continue
		}
		if !strings.Contains(*l.link, "cursor=") {
			t.Errorf("%s: GET %s: link %s carries no continuation", c.Name, path, *l.link)
		}
		followed := w.modelPageAt(t, c, strings.TrimPrefix(*l.link, "http://127.0.0.1:3000"))
		asked := pageAsked{size: p.size}
		if l.to > 1 {
			asked.page = strconv.Itoa(l.to)
		}
		q := url.Values{}
		for k, v := range query {
			q[k] = v
		}
		q.Del("page")
		if l.to > 1 {
			q.Set("page", strconv.Itoa(l.to))
		}
		if diff := pageDiff(withoutCursors(t, followed), d.expectedPage(all, q, asked, w.now)); diff != "" {
			t.Errorf("%s: GET %s, then %s: %s", c.Name, path, *l.link, diff)
		}
	}
}

// modelPageAt sends c's GET of path and reads its 200 page, which has exactly DRF's four keys.
func (w *world) modelPageAt(t *testing.T, c Caller, path string) modelPage {
	t.Helper()
	resp := testkit.Do(t, w.gw, testkit.Request{Method: "GET", Path: path, Token: c.Token})
	if resp.Status != 200 {
		t.Fatalf("%s: GET %s: %d %s", c.Name, path, resp.Status, resp.Body)
	}
	var got modelPage
	var keys map[string]json.RawMessage
	if err := errors.Join(json.Unmarshal(resp.Body, &got), json.Unmarshal(resp.Body, &keys)); err != nil ||
		len(keys) != 4 {
		t.Fatalf("%s: GET %s: %v: not the page's four keys: %s", c.Name, path, err, resp.Body)
	}
	return got
}

// pageSizeOf is the page size p asks for, as the API reads it.
func pageSizeOf(p pageAsked) int {
	if p.size == "" {
		return 20
	}
	n, _ := strconv.Atoi(p.size)
	return min(n, 100)
}

// withoutCursors is p with its links' continuations taken out: DRF's links.
func withoutCursors(t *testing.T, p modelPage) modelPage {
	t.Helper()
	strip := func(link *string) *string {
		if link == nil {
			return nil
		}
		u, err := url.Parse(*link)
		if err != nil {
			t.Fatalf("link %s: %v", *link, err)
		}
		q := u.Query()
		q.Del("cursor")
		u.RawQuery = q.Encode()
		s := u.String()
		return &s
	}
	p.Next, p.Previous = strip(p.Next), strip(p.Previous)
	return p
}

// pageDiff says where got differs from want, "" when it does not.
func pageDiff(got, want modelPage) string {
	str := func(s *string) string {
		if s == nil {
			return "null"
		}
		return *s
	}
	switch {
	case got.Count != want.Count:
		return fmt.Sprintf("count %d, want %d", got.Count, want.Count)
	case str(got.Next) != str(want.Next):
		return fmt.Sprintf("next %s, want %s", str(got.Next), str(want.Next))
	case str(got.Previous) != str(want.Previous):
		return fmt.Sprintf("previous %s, want %s", str(got.Previous), str(want.Previous))
	case len(got.Results) != len(want.Results):
		return fmt.Sprintf("%d results, want %d", len(got.Results), len(want.Results))
	}
	for i := range got.Results {
		if got.Results[i] != want.Results[i] {
			return fmt.Sprintf("result %d: %+v, want %+v", i, got.Results[i], want.Results[i])
		}
	}
	return ""
}
