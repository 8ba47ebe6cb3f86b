package comments_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/reportingplatform/api/infra/fixture"
	"github.com/reportingplatform/api/infra/testkit"
	"github.com/reportingplatform/api/shared/domain"
)

// A page deep in a list, by a page number the client wrote (SPEC §11), starts where the counts by
// creation time say: it reads the index entries of one ten-minute bucket at most besides its own,
// whatever its depth, and holds exactly the offset page's comments, after creates, deletes, moves and
// tag changes, and for comments written before those counts were kept (then read from the nearer end).

// rangeSpacing puts 20 comments in each ten minutes: a bucket holds 20 entries.
const (
	rangeSpacing = 30 * time.Second
	bucketSize   = 20
)

// rangeList is an object whose comments span two months, and what its lists should show.
type rangeList struct {
	e        *env
	cost     *readCost
	objectID string
	comments []fixture.Comment // in creation order
}

func newRangeList(t *testing.T) *rangeList {
	e, cost := setupCosted(t)
	l := &rangeList{e: e, cost: cost, objectID: uuid.NewString()}
	// The list crosses a month's end at entry 1300, in its middle.
	base := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC).Add(-1300 * rangeSpacing)
	for i := range 2600 {
		tag := "t"
		if i%10 == 9 {
			tag = "u"
		}
		l.comments = append(l.comments, fixture.Comment{
			ID: uuid.NewString(), OrganizationID: e.orgA, CommenterID: e.users["alice"].ID,
			ContentType: "report", ObjectID: l.objectID, Text: fmt.Sprintf("comment %d", i), Tag: &tag,
			CreatedAt: domain.Ptr(base.Add(time.Duration(i) * rangeSpacing).Format(time.RFC3339Nano)),
		})
	}
	e.load(t, fixture.File{Comments: l.comments})
	return l
}

// want is the page's ids as the offset page has them: the comments (with the tag) in order.
func (l *rangeList) want(tag string, desc bool, page, size int) []string {
	comments := l.comments
	if tag != "" {
		comments = taggedWith(comments, tag)
	}
	ids := commentIDs(comments)
	if desc {
		slices.Reverse(ids)
	}
	from := (page - 1) * size
	return ids[from:min(len(ids), from+size)]
}

// check asks for the page and compares it with the offset page; it returns what the request read.
func (l *rangeList) check(t *testing.T, tag string, desc bool, page, size int) reads {
	t.Helper()
	extra := []string{fmt.Sprintf("page=%d", page), fmt.Sprintf("page_size=%d", size)}
	if tag != "" {
		extra = append(extra, "tag="+tag)
	}
	if desc {
		extra = append(extra, "ordering=-created_at")
	}
	l.cost.reset()
	resp := l.e.do(t, "GET", listPath("report", l.objectID, extra...), "alice", "")
	if resp.Status != 200 {
		t.Fatalf("%v: %d %s", extra, resp.Status, resp.Body)
	}
	got := l.cost.snapshot()
	var ids []string
	for _, r := range resp.Object(t)["results"].([]any) {
		ids = append(ids, r.(map[string]any)["id"].(string))
	}
	if want := l.want(tag, desc, page, size); !slices.Equal(ids, want) {
		t.Fatalf("%v: %d results %v,\nwant %d %v", extra, len(ids), ids, len(want), want)
	}
	return got
}

// byBuckets checks the page and that it was found by the counts by time: the month's counts, one
// Query reading no more than a bucket's entries and the page's, the page.
func (l *rangeList) byBuckets(t *testing.T, tag string, desc bool, page, size int) {
	t.Helper()
	r := l.check(t, tag, desc, page, size)
	t.Logf("tag %q desc %v page %d of size %d: %+v", tag, desc, page, size, r)
	if r.queries != 1 || r.batches != 2+pageBatches(tag, size) || r.scanned == 0 || r.scanned > bucketSize+size ||
		!readThePage(r, tag, size) {
		t.Fatalf("page %d read %+v: want 1 Query of at most %d entries and %d BatchGetItems, and the page",
			page, r, bucketSize+size, 2+pageBatches(tag, size))
	}
}

// byKey reports whether a page of tag reads its comments by key: "u", one comment in ten, is rarer
// than a tag whose page reads the range of GSI6 it spans may be; "t", nine in ten, is not.
func byKey(tag string) bool { return tag == "u" }

// pageBatches is the BatchGetItems of a page's comments, 100 keys a call, when they are read by key;
// its commenters are the caller, whom the session read.
func pageBatches(tag string, size int) int {
	if !byKey(tag) {
		return 0
	}
	return (size + 99) / 100
}

// readThePage reports whether r read a page of size in one Query of GSI6 of at most the entries it
// spans (its own without a tag, with "t" at most twice as many), or a page of "u" by key alone.
func readThePage(r reads, tag string, size int) bool {
	if byKey(tag) {
		return r.pageQueries == 0
	}
	spans := 1
	if tag != "" {
		spans = 2
	}
	return r.pageQueries == 1 && r.pageEntries > 0 && r.pageEntries <= spans*size
}

// rangePage is a page of a rangeList's list.
type rangePage struct {
	name       string
	tag        string
	desc       bool
	page, size int
}

func TestADeepPageReadsOneBucket(t *testing.T) {
	l := newRangeList(t)
	n := len(l.comments)
	for _, tc := range []rangePage{
		{"the middle page", "", false, n / 2 / 20, 20},
		{"the middle page, newest first", "", true, n/2/20 + 1, 20},
		{"a page in the first month", "", false, 551, 2},           // entries 1100-1101
		{"a page across the months' end", "", false, 186, 7},       // entries 1295-1301
		{"a page of 100 across buckets", "", false, 13, 100},       // entries 1200-1299
		{"a page across buckets, newest first", "", true, 66, 17},  // entries 1494-1478
		{"a deep tagged page", "t", false, 60, 20},                 // of 2,340
		{"a deep tagged page, newest first", "t", true, 49, 23},    // of 2,340
		{"the page 1,001 entries from the end", "", true, 1002, 1}, // the least depth that uses buckets
	} {
		t.Run(tc.name, func(t *testing.T) { l.byBuckets(t, tc.tag, tc.desc, tc.page, tc.size) })
	}
	t.Run("a page nearer an end than 1,000 entries reads from that end", func(t *testing.T) {
		r := l.check(t, "", true, 50, 20)
		if r.queries != 1 || r.batches != 1 || r.scanned != 1000 || !readThePage(r, "", 20) {
			t.Fatalf("read %+v: want 1 Query of 1,000 entries, no counts by time", r)
		}
		r = l.check(t, "u", false, 13, 20) // the tag "u" has 260: every page is near an end
		if r.queries != 1 || r.batches != 1+pageBatches("u", 20) || r.scanned != 260-12*20 || !readThePage(r, "u", 20) {
			t.Fatalf("read %+v: want 1 Query from the end", r)
		}
	})

	// Writes through the API keep the counts by time with the counters: creates (now), deletes, moves
	// to another object, tag changes.
	other := uuid.NewString()
	var kept []fixture.Comment
	for i, c := range l.comments {
		var resp testkit.Response
		switch {
		case i%97 == 5:
			resp = l.e.do(t, "DELETE", itemPath(c.ID), "alice", "")
		case i%89 == 7:
			resp = l.e.do(t, "PATCH", itemPath(c.ID), "alice", `{"object_id": "`+other+`"}`)
		case i%83 == 11:
			resp = l.e.do(t, "PATCH", itemPath(c.ID), "alice", `{"tag": "v"}`)
			c.Tag = domain.Ptr("v")
			kept = append(kept, c)
		default:
			kept = append(kept, c)
			continue
		}
		if resp.Status != 200 && resp.Status != 204 {
			t.Fatalf("write %d: %d %s", i, resp.Status, resp.Body)
		}
	}
	for range 30 {
		resp := l.e.do(t, "POST", "/api/v1/comments/", "alice",
			`{"content_type": "report", "object_id": "`+l.objectID+`", "text": "new", "tag": "t"}`)
		if resp.Status != 201 {
			t.Fatalf("create: %d %s", resp.Status, resp.Body)
		}
		var created fixture.Comment
		created.ID, created.Tag = resp.Object(t)["id"].(string), domain.Ptr("t")
		kept = append(kept, created)
	}
	// The creates share one instant (the handler's clock): the index orders them by id.
	slices.SortStableFunc(kept[len(kept)-30:], func(a, b fixture.Comment) int { return strings.Compare(a.ID, b.ID) })
	// The loader replacing comments (another tag) keeps them too.
	for i := 1000; i < 1100; i++ {
		kept[i].Tag = domain.Ptr("t")
		if i%2 == 0 {
			kept[i].Tag = domain.Ptr("w")
		}
	}
	l.e.load(t, fixture.File{Comments: kept[1000:1100]})
	l.comments = kept
	n = len(kept)
	for _, tc := range []rangePage{
		{"after writes: the middle page", "", false, n / 2 / 20, 20},
		{"after writes: the middle page, newest first", "", true, n / 2 / 20, 20},
		{"after writes: a deep tagged page", "t", false, 55, 20},
		{"after writes: a deep tagged page, newest first", "t", true, 60, 20},
	} {
		t.Run(tc.name, func(t *testing.T) { l.byBuckets(t, tc.tag, tc.desc, tc.page, tc.size) })
	}
	t.Run("after writes: the new comments' page", func(t *testing.T) {
		l.check(t, "", false, n/30, 30)
	})

	// The fallback: counts by time that do not account for every comment, as a table written before
	// they were kept has them, give the same pages, read from the list's nearer end.
	nearerEnd := func(tag string, page, size int) int {
		count := len(l.want(tag, false, 1, 1<<20))
		from := (page - 1) * size
		return min(from+size, count-from)
	}
	t.Run("a month item that does not account for its month", func(t *testing.T) {
		l.forget(t, "MONTH#2026-11", "S#01T00:0") // the ten minutes after the months' end
		r := l.check(t, "", false, 70, 20)        // entries 1380-1399
		if r.queries != 1 || r.batches != 2 || r.scanned != nearerEnd("", 70, 20) || !readThePage(r, "", 20) {
			t.Fatalf("read %+v: want 1 Query from the nearer end, after the month's counts", r)
		}
	})
	t.Run("counters without counts by month", func(t *testing.T) {
		l.forget(t, "COUNT", "M#")
		for _, tc := range []struct {
			tag        string
			desc       bool
			page, size int
		}{{"", false, n / 2 / 20, 20}, {"t", true, 60, 20}, {"", true, 15, 100}} {
			r := l.check(t, tc.tag, tc.desc, tc.page, tc.size)
			if r.queries != 1 || r.batches != 1+pageBatches(tc.tag, tc.size) ||
				r.scanned != nearerEnd(tc.tag, tc.page, tc.size) || !readThePage(r, tc.tag, tc.size) {
				t.Fatalf("%+v read %+v: want 1 Query from the nearer end", tc, r)
			}
		}
	})
}

// forget removes the attributes beginning with attrPrefix from the object's items whose sort key
// begins with skPrefix, as if the writes that made them had not counted by time.
func (l *rangeList) forget(t *testing.T, skPrefix, attrPrefix string) {
	t.Helper()
	for _, item := range l.e.db.Items(t, "OBJECT#") {
		pk, sk := item["PK"].(string), item["SK"].(string)
		if !strings.Contains(pk, l.objectID) || !strings.HasPrefix(sk, skPrefix) {
			continue
		}
		for attr := range item {
			if !strings.HasPrefix(attr, attrPrefix) {
				continue
			}
			l.e.db.RemoveAttribute(t, pk, sk, attr)
		}
	}
}
