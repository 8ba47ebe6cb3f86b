package comments_test

import (
	"net/url"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/reportingplatform/api/infra/fixture"
	"github.com/reportingplatform/api/infra/testkit"
	"github.com/reportingplatform/api/shared/domain"
)

// Walking a list (SPEC §6, §11): following next (or previous) from one end to the other reads each
// index entry about once, and returns every comment present throughout the walk exactly once, even
// while comments are added and deleted.

// walk follows the link named dir ("next" or "previous") from the page at path until a page has none,
// as role, calling between (when set) after each page; it returns the pages in the order reached.
func (e *env) walk(t *testing.T, role, path, dir string, between func(page int)) []testkit.Response {
	t.Helper()
	var pages []testkit.Response
	resp := e.do(t, "GET", path, role, "")
	for i := 1; ; i++ {
		if resp.Status != 200 {
			t.Fatalf("page %d of the walk: %d %s", i, resp.Status, resp.Body)
		}
		pages = append(pages, resp)
		if between != nil {
			between(i)
		}
		link, _ := resp.Object(t)[dir].(string)
		if link == "" {
			return pages
		}
		if i > 5000 {
			t.Fatalf("the walk does not end")
		}
		resp = e.do(t, "GET", requestURI(t, link), role, "")
	}
}

// destroy deletes comment id as its commenter: 204, no body.
func (e *env) destroy(t testing.TB, id string) {
	t.Helper()
	if resp := e.do(t, "DELETE", itemPath(id), "alice", ""); resp.Status != 204 || len(resp.Body) != 0 {
		t.Fatalf("DELETE %s: %d %s", id, resp.Status, resp.Body)
	}
}

func requestURI(t testing.TB, link string) string {
	t.Helper()
	u, err := url.Parse(link)
	if err != nil {
		t.Fatal(err)
	}
	return u.RequestURI()
}

func createdAt(t testing.TB, c fixture.Comment) time.Time {
	t.Helper()
	at, err := time.Parse(time.RFC3339Nano, *c.CreatedAt)
	if err != nil {
		t.Fatal(err)
	}
	return at
}

func commentIDs(comments []fixture.Comment) []string {
	out := make([]string, len(comments))
	for i, c := range comments {
		out[i] = c.ID
	}
	return out
}

// TestWalkByNextCostsItsPages: a walk by next from page 1 to the end returns every comment once, in
// order, each page equal to the page of that number (SPEC §6's offset page: count, order, contents,
// links) while nothing changes; and it reads each index entry about once (a page's entries and one
// more), so that, by pages of 100, the walk of 20,000 comments costs about 10 times the walk of 2,000,
// in the index entries DynamoDB scanned and in the read units it billed (see linearWalk), where
// reading each page's offset would cost about 100 times. The walk of 2,000 is also made by pages of 20.
func TestWalkByNextCostsItsPages(t *testing.T) {
	e, cost := setupCosted(t)
	small, big := e.thread("report"), e.thread("report")
	for range 2000 {
		small.add("", "")
	}
	for range 20000 {
		big.add("", "")
	}
	e.load(t, fixture.File{Comments: append(small.comments, big.comments...)})

	walk := func(th *thread, size int) reads {
		var spent reads
		var seen []string
		get := func(path string) testkit.Response {
			cost.reset()
			resp := e.do(t, "GET", path, "alice", "")
			c := cost.snapshot()
			spent.queryUnits += c.queryUnits
			spent.batchUnits += c.batchUnits
			spent.scanned += c.scanned
			spent.queries += c.queries
			spent.batchItems += c.batchItems
			return resp
		}
		pageSize := "page_size=" + strconv.Itoa(size)
		resp := get(listPath("report", th.objectID, pageSize))
		for n := 1; ; n++ {
			if resp.Status != 200 {
				t.Fatalf("page %d: %d %s", n, resp.Status, resp.Body)
			}
			numbered := e.do(t, "GET", listPath("report", th.objectID, pageSize, "page="+strconv.Itoa(n)), "alice", "")
			masked(t, resp).Expect(t, 200, string(masked(t, numbered).Body))
			seen = append(seen, idsOf(t, resp.Body)...)
			link, _ := resp.Object(t)["next"].(string)
			if link == "" {
				break
			}
			resp = get(requestURI(t, link))
		}
		if !slices.Equal(seen, commentIDs(th.comments)) {
			t.Fatalf("the walk of %d comments returned %d, not each once in order", len(th.comments), len(seen))
		}
		pages := (len(th.comments) + size - 1) / size
		if spent.queries != pages || spent.scanned > len(th.comments)+pages {
			t.Fatalf("the walk's %d pages made %d Queries scanning %d index entries; want one each, "+
				"at most a page and one entry", pages, spent.queries, spent.scanned)
		}
		t.Logf("%d comments by %d: %+v", len(th.comments), size, spent)
		return spent
	}
	walk(small, 20)
	short, long := walk(small, 100), walk(big, 100)
	for what, r := range map[string]float64{
		"index entries": float64(long.scanned) / float64(short.scanned),
		"read units":    (long.queryUnits + long.batchUnits) / (short.queryUnits + short.batchUnits),
	} {
		if !linearWalk(r) {
			t.Errorf("the walk of 20,000 comments cost %.2f times the walk of 2,000 in %s, want 10 ± 10%%", r, what)
		}
	}
}

// linearWalk tells whether a walk of ten times the comments, by pages of one size, cost r times the
// shorter walk: 10 within 10%. Every page costs the same whatever the depth (its continuation's Query
// reads the page's entries and one more, its BatchGetItem the page's comments and commenters, each
// billed rounded up to half a unit), so the cost grows with the pages; what does not is the walk's
// ends (page 1 reads no continuation), less than a page's cost in the 20 pages of 2,000 comments:
// under 5%. Reading each page's offset would cost about 100 times.
func linearWalk(r float64) bool { return r >= 9 && r <= 11 }

// mutations changes the thread's object between the pages of a walk: the comments deleted through the
// API and the comments added (some through the API, which makes them the newest, some by the loader
// with older creation times and times between the others'). What a walk must return exactly once is
// what was there at the start and never deleted; what it returns besides may only be what was added.
type mutations struct {
	e       *env
	th      *thread
	deleted map[string]bool
	added   map[string]bool
}

func newMutations(e *env, th *thread) *mutations {
	return &mutations{e: e, th: th, deleted: map[string]bool{}, added: map[string]bool{}}
}

func (m *mutations) remove(t *testing.T, c fixture.Comment) {
	t.Helper()
	if m.deleted[c.ID] {
		return
	}
	m.e.destroy(t, c.ID)
	m.deleted[c.ID] = true
}

// post adds a comment through the API: the newest.
func (m *mutations) post(t *testing.T) {
	t.Helper()
	resp := m.e.do(t, "POST", "/api/v1/comments/", "alice",
		`{"content_type": "report", "object_id": "`+m.th.objectID+`", "text": "added while walking"}`)
	if resp.Status != 201 {
		t.Fatalf("%d %s", resp.Status, resp.Body)
	}
	m.added[resp.Object(t)["id"].(string)] = true
}

// load adds a comment created at (loader only: the API makes new comments the newest).
func (m *mutations) load(t *testing.T, at time.Time) {
	t.Helper()
	c := fixture.Comment{ID: uuid.NewString(), OrganizationID: m.th.org, CommenterID: m.e.users["alice"].ID,
		ContentType: m.th.contentType, ObjectID: m.th.objectID, Text: "loaded while walking",
		CreatedAt: domain.Ptr(at.Format(time.RFC3339Nano))}
	m.e.load(t, fixture.File{Comments: []fixture.Comment{c}})
	m.added[c.ID] = true
}

// check holds a walk's comments (in list order) to the rule: each comment present throughout exactly
// once, none twice, nothing that was never there.
func (m *mutations) check(t *testing.T, got []string) {
	t.Helper()
	seen := map[string]int{}
	for _, id := range got {
		seen[id]++
	}
	for id, n := range seen {
		if n > 1 {
			t.Errorf("comment %s returned %d times", id, n)
		}
	}
	original := map[string]bool{}
	for _, c := range m.th.comments {
		original[c.ID] = true
		if !m.deleted[c.ID] && seen[c.ID] != 1 {
			t.Errorf("comment %s, present throughout the walk, returned %d times", c.ID, seen[c.ID])
		}
	}
	for id := range seen {
		if !original[id] && !m.added[id] {
			t.Errorf("comment %s returned, which was never on the object", id)
		}
	}
}

// TestWalkSurvivesChanges: comments deleted (already shown, on the page about to be read, and ahead)
// and added (newest through the API, older and in between by the loader) between the pages of a walk:
// by next from page 1, and by previous from page=last, in both orderings, each comment present
// throughout comes exactly once and none twice, and the pages keep the list's order.
func TestWalkSurvivesChanges(t *testing.T) {
	for _, tc := range []struct {
		name      string
		start     []string
		dir       string
		ascending bool // the order in which the walk meets the comments
	}{
		{"by next from page 1", []string{"page_size=5"}, "next", true},
		{"by next, newest first", []string{"page_size=5", "ordering=-created_at"}, "next", false},
		{"by previous from page=last", []string{"page_size=5", "page=last"}, "previous", false},
		{"by previous from page=last, newest first", []string{"page_size=5", "page=last", "ordering=-created_at"},
			"previous", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := setup(t)
			th := e.thread("report")
			for range 60 {
				th.add("", "")
			}
			th.load(t)
			m := newMutations(e, th)
			// met is the comments in the order the walk meets them.
			met := slices.Clone(th.comments)
			if !tc.ascending {
				slices.Reverse(met)
			}
			var walked []string
			pages := e.walk(t, "alice", listPath("report", th.objectID, tc.start...), tc.dir, func(page int) {
				at := min(5*page, len(met)) // about as many comments as the walk has met
				switch page % 4 {
				case 1: // the last shown, the next to show, and one far ahead
					m.remove(t, met[at-1])
					if at < len(met) {
						m.remove(t, met[at])
					}
					if at+12 < len(met) {
						m.remove(t, met[at+12])
					}
				case 2:
					m.post(t)
					m.load(t, th.base.Add(-time.Hour))
				case 3: // next to a comment the walk has not met yet, and to one it has
					if at+3 < len(met) {
						m.load(t, createdAt(t, met[at+3]).Add(time.Millisecond))
					}
					m.load(t, createdAt(t, met[at-2]).Add(time.Millisecond))
				}
			})
			if tc.dir == "previous" {
				slices.Reverse(pages)
			}
			for _, p := range pages {
				walked = append(walked, idsOf(t, p.Body)...)
			}
			m.check(t, walked)
			// The list's order holds across pages: what was there from the start comes in th's order.
			var kept []string
			order := commentIDs(th.comments)
			if tc.start[len(tc.start)-1] == "ordering=-created_at" {
				slices.Reverse(order)
			}
			for _, id := range walked {
				if slices.Contains(order, id) {
					kept = append(kept, id)
				}
			}
			var want []string
			for _, id := range order {
				if slices.Contains(kept, id) {
					want = append(want, id)
				}
			}
			if !slices.Equal(kept, want) {
				t.Fatalf("the walk's comments are out of the list's order:\n  %v\nwant\n  %v", kept, want)
			}
			if len(m.deleted) == 0 || len(m.added) == 0 {
				t.Fatalf("the walk of %d pages changed nothing", len(pages))
			}
			t.Logf("%d pages, %d comments; %d deleted, %d added while walking", len(pages), len(walked),
				len(m.deleted), len(m.added))
		})
	}
}

// TestContinuationsThatDoNotCheckOut: a link's page is read from the link's position, whether or not
// the comment there still exists; a continuation that is forged, altered, another list's, or sent with
// another page number than its own is ignored, and the page is the page of that number (SPEC §6's).
// With the first comment deleted the two differ by one, which tells them apart.
func TestContinuationsThatDoNotCheckOut(t *testing.T) {
	e := setup(t)
	th := e.thread("report")
	for i := range 80 {
		th.add([]string{"t", "u"}[i%2], "")
	}
	other := e.thread("report")
	for range 30 {
		other.add("t", "")
	}
	e.load(t, fixture.File{Comments: append(th.comments, other.comments...)})
	oid := th.objectID
	nextOf := func(path string) string {
		t.Helper()
		return requestURI(t, *next(t, e.do(t, "GET", path, "alice", "")))
	}
	cursorOf := func(link string) string {
		u, _ := url.Parse(link)
		return u.Query().Get("cursor")
	}
	withCursor := func(path, cursor string) string {
		u, _ := url.Parse(path)
		q := u.Query()
		q.Set("cursor", cursor)
		u.RawQuery = q.Encode()
		return u.RequestURI()
	}
	link := nextOf(listPath("report", oid))
	tagged := nextOf(listPath("report", oid, "tag=t", "ordering=-created_at", "page_size=10"))
	foreign := nextOf(listPath("report", other.objectID))
	// The first comment, and the last one page 1 showed: page 2 by number moves by one, the link's
	// page does not, though its position is gone.
	tags := taggedWith(th.comments, "t")
	slices.Reverse(tags)
	deleted := []string{th.comments[0].ID, th.comments[19].ID, tags[0].ID, tags[9].ID}
	for _, id := range deleted {
		e.destroy(t, id)
	}
	remaining := slices.DeleteFunc(slices.Clone(th.comments), func(c fixture.Comment) bool {
		return slices.Contains(deleted, c.ID)
	})
	byNumber := commentIDs(remaining[20:40])
	altered := []byte(cursorOf(link))
	altered[len(altered)/2] ^= 'A' ^ 'B'
	if altered[len(altered)/2] == cursorOf(link)[len(altered)/2] {
		altered[len(altered)/2] = 'Z'
	}
	for _, tc := range []struct {
		name, path string
		want       []string
	}{
		{"the link, its position deleted", link, commentIDs(th.comments[20:40])},
		{"by tag, newest first, its position deleted", tagged, commentIDs(tags[10:20])},
		{"no cursor", listPath("report", oid, "page=2"), byNumber},
		{"forged", withCursor(link, "bm90IGEgY29udGludWF0aW9u"), byNumber},
		{"altered", withCursor(link, string(altered)), byNumber},
		{"another object's", withCursor(listPath("report", oid, "page=2"), cursorOf(foreign)), byNumber},
		{"the tag filter's", withCursor(listPath("report", oid, "page=2"), cursorOf(tagged)), byNumber},
		{"its page number edited", withCursor(listPath("report", oid, "page=3"), cursorOf(link)),
			commentIDs(remaining[40:60])},
		{"with page=last", withCursor(listPath("report", oid, "page=last"), cursorOf(link)), commentIDs(remaining[60:])},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp := e.do(t, "GET", tc.path, "alice", "")
			if resp.Status != 200 {
				t.Fatalf("%d %s", resp.Status, resp.Body)
			}
			if got := idsOf(t, resp.Body); !slices.Equal(got, tc.want) {
				t.Fatalf("results %v\nwant %v", got, tc.want)
			}
		})
	}
	// Another organization's member following the link sees the object's list as empty, as on page 1;
	// so does a link whose page lies past everything that is left: 200, never 404.
	t.Run("someone who may not read the object", func(t *testing.T) {
		e.do(t, "GET", link, "bob", "").Expect(t, 200, list(0, nil, nil))
	})
	t.Run("everything past the position deleted", func(t *testing.T) {
		last := nextOf(listPath("report", oid, "page=3"))
		for _, c := range remaining[60:] {
			e.destroy(t, c.ID)
		}
		resp := masked(t, e.do(t, "GET", last, "alice", ""))
		resp.Expect(t, 200, list(len(remaining)-len(remaining[60:]), nil, str("http://127.0.0.1:3000/api/v1/comments/?content_type=report&cursor=C&object_id="+
			oid+"&page=3")))
		back := e.do(t, "GET", requestURI(t, *previous(t, e.do(t, "GET", last, "alice", ""))), "alice", "")
		if got := idsOf(t, back.Body); !slices.Equal(got, commentIDs(remaining[40:60])) {
			t.Fatalf("back from the empty page: %v\nwant %v", got, commentIDs(remaining[40:60]))
		}
	})
}
