package invitations_test

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/reportingplatform/api/infra/testkit"
	"github.com/reportingplatform/api/shared/domain"
)

// walkPage is a list page as a walk reads it.
type walkPage struct {
	Count    int
	Next     *string
	Previous *string
	Results  []struct{ ID string }
}

// walkStep reads the page at path (a link, or the first request) as c.
func (w *world) walkStep(t *testing.T, c Caller, path string) walkPage {
	t.Helper()
	resp := testkit.Do(t, w.gw, testkit.Request{Method: "GET", Path: strings.TrimPrefix(path, "http://127.0.0.1:3000"),
		Token: c.Token})
	var p walkPage
	if err := json.Unmarshal(resp.Body, &p); err != nil || resp.Status != 200 {
		t.Fatalf("GET %s: %d %s", path, resp.Status, resp.Body)
	}
	return p
}

// walkPath is the first request of a walk of c's list with q, by pages of size: page 1, or the last page
// to walk back from.
func walkPath(q ListQuery, size int, backward bool) string {
	v := q.Values()
	v.Set("page_size", fmt.Sprint(size))
	if backward {
		v.Set("page", "last")
	}
	return listPath + "?" + v.Encode()
}

// walkScopes are the lists a walk is tried on: every kind of source (staff's everyone's, one
// organization's, several organizations' with the caller's own address less those organizations'), an
// address, and the status filters that expiries not recorded yet change.
func walkScopes(d *Dataset) []walkScope {
	return []walkScope{
		{d.Staff, ListQuery{Status: -1}},
		{d.Admin, ListQuery{Status: -1}},
		{d.Multi, ListQuery{Status: -1}},
		{d.Dual, ListQuery{Status: -1}},
		{d.Staff, ListQuery{Email: strings.ToUpper(d.Shared[1]), Status: -1}},
		{d.Staff, ListQuery{Status: 0}},
		{d.Staff, ListQuery{Status: 3}},
		{d.Dual, ListQuery{Status: 0}},
	}
}

// TestAWalkCostsItsPages: walking a list by its next links from page 1 to the end costs its pages, not
// the sum of their offsets (SPEC §11). The walk shows the model's list, each invitation once, in
// order, every page counting the whole list; its pages cost the same at any depth (linearWalk); and at
// ten times the invitations it costs about ten times the read units and index entries (see
// linearGrowth), where reading every page's offset would cost fifty times. The lists of everyone
// (staff's), of an administrator, of a member of three organizations and of a member invited elsewhere
// are walked at 2,000 and 20,000 invitations by pages of 100 (and at 2,000 by pages of 20); the lists
// of an address and of a status at 200 and 2,000 by pages of 20. Where those are walked the expiries
// are recorded first, as the schedule does: those it has not recorded yet are SPEC §11's one
// allowance, read whole by a list of pending or expired ones, and would grow with the table; the
// unfiltered lists do not read them.
func TestAWalkCostsItsPages(t *testing.T) {
	unfiltered := func(s walkScope) bool { return s.q == ListQuery{Status: -1} }
	d200, d2000, d20000 := loadWalkData(t, 200, true), loadWalkData(t, 2000, true), loadWalkData(t, 20000, false)
	for _, c := range []struct {
		small, large walkData
		size         int
		which        func(walkScope) bool
	}{
		{d2000, d20000, 100, unfiltered},
		{d200, d2000, 20, func(s walkScope) bool { return !unfiltered(s) }},
	} {
		var compared []string
		for i, s := range walkScopes(c.small.d) {
			if !c.which(s) {
				continue
			}
			sm, lg := c.small.walk(t, i, c.size), c.large.walk(t, i, c.size)
			if c.size == 100 {
				c.small.walk(t, i, 20) // by pages of 20 too: each once, in order
			}
			size := float64(lg.count) / float64(sm.count)
			t.Logf("%-28.28s %5d: %4d in %3d pages, %6.1f units, %6d entries; %5d: %5d in %3d pages, %7.1f units, "+
				"%6d entries: ×%.2f invitations, ×%.2f units, ×%.2f entries", sm.list, len(c.small.d.Invitations),
				sm.count, len(sm.pages), sm.units(), sm.entries(), len(c.large.d.Invitations), lg.count, len(lg.pages),
				lg.units(), lg.entries(), size, lg.units()/sm.units(), float64(lg.entries())/float64(sm.entries()))
			for _, w := range []walkCost{sm, lg} {
				if msg := linearWalk(w); msg != "" {
					t.Errorf("%s at %d by %d: %s", w.list, w.n, c.size, msg)
				}
				streams, topUps := w.streams()
				t.Logf("%-28.28s %5d: %d streams, %.2f entries per invitation shown, pages %v of %d read on",
					w.list, w.n, streams, float64(w.entries())/float64(max(1, w.count)), topUps, len(w.pages))
				if c.size != 100 {
					continue
				}
				if msg := aboutWhatItShows(w, c.size); msg != "" {
					t.Errorf("%s at %d by %d: %s", w.list, w.n, c.size, msg)
				}
			}
			if len(sm.pages) < 2 {
				continue // one page: nothing walked
			}
			compared = append(compared, strings.TrimSpace(sm.list))
			for what, r := range map[string]float64{
				"read units":    lg.units() / sm.units(),
				"index entries": float64(lg.entries()) / float64(sm.entries()),
			} {
				most := 1.4
				if what == "index entries" && c.size != 100 {
					most = 4
				}
				if msg := linearGrowth(r, size, most); msg != "" {
					t.Errorf("%s by %d: ×%.2f the invitations cost ×%.2f the %s: %s", sm.list, c.size, size, r, what, msg)
				}
			}
		}
		if c.size == 100 {
			for _, want := range []string{"staff", "member of three", "member and invitee"} {
				if !slices.Contains(compared, want) {
					t.Errorf("%s was not compared (only %v): the data is too thin", want, compared)
				}
			}
		} else if len(compared) < 3 {
			t.Errorf("compared %v: the data is too thin", compared)
		}
	}
}

// walkScope is a list a walk is tried on: its caller and filters.
type walkScope struct {
	c Caller
	q ListQuery
}

// walkData is a Dataset loaded once for the walks of several lists.
type walkData struct {
	w *world
	d *Dataset
}

// loadWalkData loads a Dataset of n invitations, recording its expiries when record is set: the lists
// of a status need them recorded, the unfiltered lists read the same either way.
func loadWalkData(t *testing.T, n int, record bool) walkData {
	t.Helper()
	w := newWorld(t)
	d := LoadDataset(t, w.db, w.now, n)
	if !record {
		return walkData{w, d}
	}
	for { // a run records a bounded number: as many runs as it takes
		recorded, err := w.db.Store.RecordExpiries(t.Context(), w.now)
		if err != nil {
			t.Fatal(err)
		}
		if recorded == 0 {
			break
		}
	}
	for i := range d.Invitations {
		if d.Invitations[i].StatusAt(w.now) == 3 {
			d.Invitations[i].Status = 3
		}
	}
	return walkData{w, d}
}

// walkCost is what a walk by next read, page by page.
type walkCost struct {
	list     string
	n, count int // invitations in the table, in the list
	pages    []pageCost
}

type pageCost struct {
	units   float64
	entries int
	queries int // Queries: one per stream, more when a stream was read on (a top-up)
}

func (c walkCost) units() float64 {
	total := 0.0
	for _, p := range c.pages {
		total += p.units
	}
	return total
}

// streams is how many streams a page of the walk reads (the fewest Queries a page made), and topUps the
// pages reached by a link (2 on) on which one was read on (more Queries).
func (c walkCost) streams() (streams int, topUps []int) {
	streams = c.pages[0].queries
	for _, p := range c.pages {
		streams = min(streams, p.queries)
	}
	for i, p := range c.pages[1:] {
		if p.queries > streams {
			topUps = append(topUps, i+2)
		}
	}
	return streams, topUps
}

func (c walkCost) entries() int {
	total := 0
	for _, p := range c.pages {
		total += p.entries
	}
	return total
}

// walk walks the list of walkScopes(wd.d)[i] by pages of size from page 1 by next links, checking
// that it shows the model's list, and returns what each page read.
func (wd walkData) walk(t *testing.T, i, size int) walkCost {
	t.Helper()
	s, w := walkScopes(wd.d)[i], wd.w
	want := []string{}
	for _, inv := range wd.d.List(s.c, s.q, w.now) {
		want = append(want, inv.ID)
	}
	got := []string{}
	c := walkCost{list: s.c.Name + " " + s.q.Values().Encode(), n: len(wd.d.Invitations), count: len(want)}
	for path := walkPath(s.q, size, false); path != ""; {
		w.db.Calls.Reset()
		p := w.walkStep(t, s.c, path)
		c.pages = append(c.pages, pageCost{units: w.db.Calls.ReadUnits(), entries: w.db.Calls.Scanned(),
			queries: w.db.Calls.Count("Query")})
		if p.Count != len(want) {
			t.Fatalf("%s at %d by %d, page %d: count %d, want %d", c.list, c.n, size, len(c.pages), p.Count, len(want))
		}
		for _, r := range p.Results {
			got = append(got, r.ID)
		}
		path = ""
		if p.Next != nil {
			path = *p.Next
		}
	}
	if !slices.Equal(got, want) {
		t.Fatalf("%s at %d by %d: the walk shows %d invitations, the list is %d (first difference at %d)",
			c.list, c.n, size, len(got), len(want), firstDifference(got, want))
	}
	if pages := max(1, (len(want)+size-1)/size); len(c.pages) != pages {
		t.Fatalf("%s at %d by %d: %d pages, want %d", c.list, c.n, size, len(c.pages), pages)
	}
	return c
}

// linearWalk is why a walk's pages do not cost the same at any depth ("" when they do): the full pages
// of the last quarter of a walk of eight pages and more may read no more than 10% over those of its first
// quarter, in index entries and in read units. A page reads a bounded number of entries from each of
// the list's streams from the place its continuation names, so later pages read the same or less (as
// streams run out); a page that read its offset would read three to seven times as much at the end.
func linearWalk(c walkCost) string {
	full := c.pages[:len(c.pages)-1] // the last page may be short
	if len(full) < 8 {
		return ""
	}
	q := len(full) / 4
	var early, late pageCost
	for _, p := range full[:q] {
		early.units, early.entries = early.units+p.units, early.entries+p.entries
	}
	for _, p := range full[len(full)-q:] {
		late.units, late.entries = late.units+p.units, late.entries+p.entries
	}
	if late.units > 1.1*early.units || float64(late.entries) > 1.1*float64(early.entries) {
		return fmt.Sprintf("its last %d pages read %d entries, %.1f units; its first %d, %d entries, %.1f units",
			q, late.entries, late.units, q, early.entries, early.units)
	}
	return ""
}

// linearGrowth is why a walk of a list size times as long that cost r times as much is not linear (""
// when it is): r may be 0.8 to most times size. A page of a walk reads from its continuation's place
// about the entries of each stream its list merges (each status of each organization and address it
// shows: 5 for everyone's list, 20 for a member of three organizations) that the page before held, and
// a margin (aboutWhatItShows), the counts, and its invitations; so its cost is bounded whatever the
// list's length, and linearWalk holds it the same at every depth. In read units (mostly the page's
// invitations) and in index entries by pages of 100, most is 1.4: the walks' first pages, which read
// a page from every stream, weigh a little more in the shorter walk, and the margins do not depend on
// the list's length. By pages of 20 over 200 and 2,000 invitations, most is 4 in index entries: the
// shorter walks are two or three pages, so their first page's read of a page from every stream (of
// which the shorter lists hold less) is most of what they read. Below 0.8 the walk would skip what it
// must read; reading every page's offset would cost about fifty times as much (×10 the pages, each ×5
// on average).
func linearGrowth(r, size, most float64) string {
	if r < 0.8*size || r > most*size {
		return fmt.Sprintf("want %.1f to %.1f times %.2f", 0.8, most, size)
	}
	return ""
}

// aboutWhatItShows is why walk c by pages of size reads more index entries than about what it shows
// ("" when it does not). A continuation page reads from each of its k streams what the pages before
// held of it, h, and a margin of about 3√(h+1)+4 (the store's predictedEntries, the position's own
// entry included): over the streams, at most size + 4k + 3√(k(size+k)) entries for size shown, since
// the h add up to about size (Cauchy–Schwarz bounds the sum of their roots): 1.9 per invitation shown
// for everyone's list, 3.3 for a member of three organizations, where a page of every stream read 5
// and 20. A quarter over that covers what the shares count but the list does not show (invitations of
// their organizations to a member's own address), the walk's first page, which reads a page from
// every stream, and the pages read on. Those are rare, a stream's share of a page varying less than
// its margin but by chance: at most two and one page in fifty (about one in a hundred pages expected
// at worst; one or two of the walks' 400 pages read on, run after run).
func aboutWhatItShows(c walkCost, size int) string {
	k, topUps := c.streams()
	perPage := float64(size+4*k) + 3*math.Sqrt(float64(k*(size+k)))
	bound := 1.25 * perPage / float64(size)
	if per := float64(c.entries()) / float64(max(1, c.count)); per > bound {
		return fmt.Sprintf("%d streams: %.2f entries read per invitation shown, want at most %.2f", k, per, bound)
	}
	if len(topUps) > 2+len(c.pages)/50 {
		return fmt.Sprintf("pages %v of %d read a stream on, want at most two and one in fifty", topUps, len(c.pages))
	}
	return ""
}

func firstDifference(a, b []string) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// TestAWalkSeesEveryInvitationPresentThroughout: while a client walks a list by its links (next from page
// 1, previous from the last page), invitations are created, deleted and change status between its
// pages, ahead of the walk and behind it. The walk shows every invitation that was in the list from its
// first page to its last exactly once, nothing twice, nothing that never was in the list; every page but
// the walk's last (and the last page it starts from) is full, and counts the list as it is then. An
// unfiltered list keeps an invitation whose status changed; a list filtered by status loses one that
// left the status.
func TestAWalkSeesEveryInvitationPresentThroughout(t *testing.T) {
	for i := range walkScopes(&Dataset{Shared: make([]string, 2)}) {
		// A table of its own for each list: the changes of one walk do not thin out the next one's.
		w := newWorld(t)
		d := LoadDataset(t, w.db, w.now, 300)
		s, staff, size := walkScopes(d)[i], d.Staff, 7
		if s.q.Email != "" {
			size = 2
		}
		for _, backward := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s %s backward=%v", s.c.Name, s.q.Values().Encode(), backward), func(t *testing.T) {
				ids := func() map[string]bool {
					out := map[string]bool{}
					for _, inv := range d.List(s.c, s.q, w.now) {
						out[inv.ID] = true
					}
					return out
				}
				throughout, ever := ids(), ids()
				seen := map[string]int{}
				var pages []walkPage
				for path := walkPath(s.q, size, backward); path != ""; {
					p := w.walkStep(t, s.c, path)
					if want := len(d.List(s.c, s.q, w.now)); p.Count != want {
						t.Fatalf("page %d counts %d, the list holds %d", len(pages)+1, p.Count, want)
					}
					pages = append(pages, p)
					for _, r := range p.Results {
						seen[r.ID]++
					}
					w.changeAround(t, d, staff, s.c, s.q, seen, backward, len(pages))
					now := ids()
					for id := range throughout {
						if !now[id] {
							delete(throughout, id)
						}
					}
					maps.Copy(ever, now)
					path = ""
					if backward && p.Previous != nil {
						path = *p.Previous
					} else if !backward && p.Next != nil {
						path = *p.Next
					}
				}
				for i, p := range pages {
					if n := len(p.Results); n != size && i != len(pages)-1 && !(backward && i == 0) {
						t.Errorf("page %d of %d shows %d, want %d", i+1, len(pages), n, size)
					}
				}
				for id, n := range seen {
					if n != 1 || !ever[id] {
						t.Errorf("%s shown %d times; ever in the list: %v", id, n, ever[id])
					}
				}
				for id := range throughout {
					if seen[id] != 1 {
						t.Errorf("%s, in the list throughout, shown %d times", id, seen[id])
					}
				}
				if len(pages) < 3 || len(throughout) < 2*size {
					t.Fatalf("%d pages, %d invitations throughout: too little walked", len(pages), len(throughout))
				}
			})
		}
	}
}

// changeAround changes the table between two pages of a walk of c's list with q, seen the invitations
// shown so far: it deletes one invitation the walk has not reached and one it has shown, moves one
// pending invitation ahead of it and one behind it to revoked, and creates one, each through the API or
// the loader; the model follows.
func (w *world) changeAround(t *testing.T, d *Dataset, staff, c Caller, q ListQuery, seen map[string]int,
	backward bool, page int) {
	t.Helper()
	list := d.List(c, q, w.now)
	if backward {
		slices.Reverse(list)
	}
	var ahead, behind []int // indexes into d.Invitations
	for _, inv := range list {
		i := slices.IndexFunc(d.Invitations, func(m ModelInvitation) bool { return m.ID == inv.ID })
		if seen[inv.ID] > 0 {
			behind = append(behind, i)
		} else {
			ahead = append(ahead, i)
		}
	}
	pendingOf := func(is []int) int {
		for _, i := range is {
			if d.Invitations[i].StatusAt(w.now) == 0 {
				return i
			}
		}
		return -1
	}
	var revoke, remove []int
	if len(ahead) > 3 {
		revoke = append(revoke, pendingOf(ahead[2:]))
		remove = append(remove, ahead[3])
	}
	if len(behind) > 0 {
		revoke = append(revoke, pendingOf(behind))
		if page%2 == 0 {
			remove = append(remove, behind[len(behind)/2])
		}
	}
	for _, i := range revoke {
		if i < 0 || slices.Contains(remove, i) {
			continue
		}
		id := d.Invitations[i].ID
		if resp := testkit.Do(t, w.gw, testkit.Request{Method: "PATCH", Path: listPath + id + "/", Token: staff.Token,
			Body: `{"status": 4}`}); resp.Status != 200 {
			t.Fatalf("revoke %s: %d %s", id, resp.Status, resp.Body)
		}
		d.Invitations[i].Status = 4
	}
	slices.Sort(remove)
	for _, i := range slices.Backward(remove) {
		id := d.Invitations[i].ID
		if resp := testkit.Do(t, w.gw, testkit.Request{Method: "DELETE", Path: listPath + id + "/",
			Token: staff.Token}); resp.Status != 204 || len(resp.Body) != 0 {
			t.Fatalf("delete %s: %d %s", id, resp.Status, resp.Body)
		}
		d.Invitations = slices.Delete(d.Invitations, i, i+1)
	}
	// A new invitation, to an address the list shows, from an organization it shows.
	inv := ModelInvitation{ID: uuid.NewString(), Organization: d.Organizations[2], Email: d.Dual.User.Email,
		Created: w.now, Expiry: w.now.Add(ttl)}
	if q.Status > 0 {
		inv.Status = q.Status
	}
	if q.Email != "" {
		inv.Email = q.Email
	}
	w.load(t, map[string]any{"invitations": []any{map[string]any{
		"id": inv.ID, "organization_id": inv.Organization, "inviter_member_id": d.Inviters[2],
		"email": inv.Email, "status": inv.Status, "expiry_date": domain.FormatTime(inv.Expiry),
	}}})
	d.Invitations = append(d.Invitations, inv)
}

// TestAListCostsThreeRoundTrips: every kind of list (one organization's, several organizations' with the
// caller's own address, staff's, an address's, a status's with expiries not recorded yet), on page 1,
// the last page, a middle page and a page reached by a link's continuation (next from page 1, previous
// from the last page), costs three sequential DynamoDB calls: the session, the count beside the index
// entries that place the page, the page's invitations (SPEC §11).
func TestAListCostsThreeRoundTrips(t *testing.T) {
	w := newWorld(t)
	d := LoadDataset(t, w.db, w.now, 300)
	for _, s := range walkScopes(d) {
		count := len(d.List(s.c, s.q, w.now))
		v := s.q.Values()
		v.Set("page_size", "7")
		at := func(page string) string {
			q := maps.Clone(v)
			if page != "" {
				q.Set("page", page)
			}
			return listPath + "?" + q.Encode()
		}
		first, last := w.walkStep(t, s.c, at("")), w.walkStep(t, s.c, at("last"))
		if first.Next == nil || last.Previous == nil {
			t.Fatalf("%s %s: %d invitations, one page: no link to follow", s.c.Name, v.Encode(), count)
		}
		for name, path := range map[string]string{
			"page 1": at(""), "page=last": at("last"), "a middle page": at(fmt.Sprint((count/7 + 2) / 2)),
			"next of page 1": *first.Next, "previous of the last page": *last.Previous,
		} {
			w.db.Calls.Reset()
			w.db.Calls.SimulateLatency(testkit.BudgetLatency)
			p := w.walkStep(t, s.c, path)
			w.db.Calls.SimulateLatency(0)
			if len(p.Results) == 0 || p.Count != count {
				t.Fatalf("%s %s, %s: %d results, count %d of %d", s.c.Name, v.Encode(), name, len(p.Results), p.Count,
					count)
			}
			if n := w.db.Calls.Sequential(); n != 3 {
				t.Errorf("%s %s, %s: %d sequential calls (%v), want 3", s.c.Name, v.Encode(), name, n, w.db.Calls)
			}
		}
	}
}

// TestContinuationsOfInvitationLists: a link's page starts at its position whatever became of the
// invitation there. Deleted, or gone from a list filtered by status: the page is what follows its place.
// Everything after it deleted: an empty page (200) whose previous link reads back from the same place,
// that place included. A link sent by another caller: the page is the caller's own list from that
// place. An altered cursor: the page of the number asked for.
func TestContinuationsOfInvitationLists(t *testing.T) {
	w := newWorld(t)
	var acme, globex []string
	for i := range 12 {
		acme = append(acme, w.invitation(t, spec{email: fmt.Sprintf("a%d@example.com", i)}))
		globex = append(globex, w.invitation(t, spec{org: w.globex, email: fmt.Sprintf("g%d@example.com", i)}))
	}
	slices.Sort(acme) // one instant: ties by id
	slices.Sort(globex)
	staff, member := Caller{Token: w.token(t, w.staff)}, Caller{Token: w.token(t, w.member)}
	ids := func(p walkPage) []string {
		out := []string{}
		for _, r := range p.Results {
			out = append(out, r.ID)
		}
		return out
	}
	expect := func(name string, p walkPage, count int, want []string) {
		t.Helper()
		if p.Count != count || !slices.Equal(ids(p), want) {
			t.Fatalf("%s: count %d, %v; want %d, %v", name, p.Count, ids(p), count, want)
		}
	}
	orgList := listPath + "?organization=" + w.acme.ID + "&page_size=4"
	del := func(id string) {
		t.Helper()
		if resp := testkit.Do(t, w.gw, testkit.Request{Method: "DELETE", Path: listPath + id + "/",
			Token: staff.Token}); resp.Status != 204 {
			t.Fatalf("delete: %d %s", resp.Status, resp.Body)
		}
	}

	// The last invitation shown, the position of next, is deleted.
	first := w.walkStep(t, staff, orgList)
	expect("page 1", first, 12, acme[:4])
	del(acme[3])
	expect("after the position's invitation was deleted", w.walkStep(t, staff, *first.Next), 11, acme[4:8])

	// In a list of pending ones, the position's invitation is revoked, and so is the next one.
	pending := w.walkStep(t, staff, orgList+"&status=0&page=2")
	expect("pending, page 2", pending, 11, acme[5:9])
	for _, id := range acme[8:10] {
		if resp := testkit.Do(t, w.gw, testkit.Request{Method: "PATCH", Path: listPath + id + "/", Token: staff.Token,
			Body: `{"status": 4}`}); resp.Status != 200 {
			t.Fatalf("revoke: %d %s", resp.Status, resp.Body)
		}
	}
	last := w.walkStep(t, staff, *pending.Next)
	expect("pending, after the position's invitation was revoked", last, 9, acme[10:12])
	if last.Next != nil {
		t.Fatalf("the end of the list links on: %s", *last.Next)
	}

	// Everything after page 2 deleted: page 3 is empty, and its previous link reads page 2 again.
	second := w.walkStep(t, staff, *first.Next)
	for _, id := range acme[8:12] {
		del(id)
	}
	empty := w.walkStep(t, staff, *second.Next)
	expect("after what followed was deleted", empty, 7, []string{})
	if empty.Next != nil || empty.Previous == nil {
		t.Fatalf("the empty page links %v, %v: want no next and a previous", empty.Next, empty.Previous)
	}
	expect("back from the empty page", w.walkStep(t, staff, *empty.Previous), 7, acme[4:8])

	// Staff's link to everyone's next page, followed by a member of Acme: Acme's from the same place.
	everyone := w.walkStep(t, staff, listPath+"?page_size=4")
	mine := slices.Concat(acme[:3], acme[4:8])
	all := slices.Sorted(slices.Values(slices.Concat(mine, globex)))
	expect("everyone's page 1", everyone, 19, all[:4])
	var after []string
	for _, id := range mine {
		if id > all[3] {
			after = append(after, id)
		}
	}
	expect("staff's link, followed by a member", w.walkStep(t, member, *everyone.Next), 7, after[:min(4, len(after))])

	// An altered cursor is no continuation: the page of its number.
	u, err := url.Parse(*everyone.Next)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	cursor := []byte(q.Get("cursor"))
	cursor[len(cursor)/2] ^= 1
	q.Set("cursor", string(cursor))
	u.RawQuery = q.Encode()
	expect("an altered cursor", w.walkStep(t, staff, u.String()), 19, all[4:8])
}

// TestAMemberOfManyOrganizationsCountsFirst: the unfiltered list of a member of ten organizations has 55
// streams (an organization's or their own address's invitations of one status), more than are read
// before the count says which hold anything: it counts first and Queries only those, a round trip
// more, on every kind of page, and shows the same pages.
func TestAMemberOfManyOrganizationsCountsFirst(t *testing.T) {
	w := newWorld(t)
	u := w.db.User(t, testkit.NewUser{})
	var orgs, members []any
	for i := range 10 {
		id := uuid.NewString()
		orgs = append(orgs, map[string]any{"id": id, "name": fmt.Sprintf("Org %d", i)})
		members = append(members, map[string]any{"id": uuid.NewString(), "organization_id": id, "user_id": u.ID,
			"role": 2})
	}
	w.load(t, map[string]any{"organizations": orgs, "members": members})
	var invs []any
	var want []string
	for i := range 9 {
		id := uuid.NewString()
		want = append(want, id)
		invs = append(invs, map[string]any{"id": id, "organization_id": orgs[i%3].(map[string]any)["id"],
			"inviter_member_id": members[i%3].(map[string]any)["id"], "email": fmt.Sprintf("m%d@example.com", i), "status": i % 2})
	}
	w.load(t, map[string]any{"invitations": invs})
	own := w.invitation(t, spec{org: w.globex, email: u.Email}) // to their own address from elsewhere
	want = slices.Sorted(slices.Values(append(want, own)))
	c := Caller{Token: w.token(t, u)}
	first := w.walkStep(t, c, listPath+"?page_size=4")
	last := w.walkStep(t, c, listPath+"?page_size=4&page=last")
	for _, tc := range []struct {
		name, path string
		want       []string
	}{
		{"page 1", listPath + "?page_size=4", want[:4]},
		{"page 2", listPath + "?page_size=4&page=2", want[4:8]},
		{"page=last", listPath + "?page_size=4&page=last", want[8:]},
		{"next of page 1", *first.Next, want[4:8]},
		{"previous of the last page", *last.Previous, want[4:8]},
	} {
		w.db.Calls.Reset()
		w.db.Calls.SimulateLatency(testkit.BudgetLatency)
		p := w.walkStep(t, c, tc.path)
		w.db.Calls.SimulateLatency(0)
		got := []string{}
		for _, r := range p.Results {
			got = append(got, r.ID)
		}
		if p.Count != len(want) || !slices.Equal(got, tc.want) {
			t.Fatalf("%s: count %d, %v; want %d, %v", tc.name, p.Count, got, len(want), tc.want)
		}
		queries := w.db.Calls.Count("Query")
		// Three organizations hold pending and accepted invitations, the address one pending.
		if n := w.db.Calls.Sequential(); n != 4 || queries > 7 {
			t.Errorf("%s: %d sequential calls, %d Queries (%v); want 4, at most 7", tc.name, n, queries, w.db.Calls)
		}
	}
}
