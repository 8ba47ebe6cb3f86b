package invitations_test

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/reportingplatform/api/shared/domain"
	"github.com/reportingplatform/api/shared/dynamo"
)

// A numbered page deep in an invitation list (SPEC §11: a page number a client builds itself answers
// within the request budget) starts where the counts by creation time say: it reads the month items of
// the month holding its first entry, then each of its list's streams from the end of the ten minutes
// holding it, so at most those ten minutes' entries and the page per stream, whatever its depth; and it
// is exactly the offset page of the model, for every kind of list, after every kind of write.

// deepFrom is how deep a page is before it is placed by the counts by time in TestDeepPagesMatchTheModel
// (1,000 in the deployed store): low enough that the middle pages of every list of a 2,000-invitation
// table are, without loading tens of thousands of invitations per list.
const deepFrom = 10

// deepReads is what the calls recorded since the last Reset read: how many BatchGetItems read month
// items, and the index entries their Queries could read (the sum of their Limits; -1 when one had none).
func (w *world) deepReads() (monthReads, entries int) {
	for _, in := range w.db.Calls.Inputs() {
		switch in := in.(type) {
		case *dynamodb.QueryInput:
			if in.Limit == nil || entries < 0 {
				entries = -1
				continue
			}
			entries += int(*in.Limit)
		case *dynamodb.BatchGetItemInput:
			if readsMonths(in) {
				monthReads++
			}
		}
	}
	return monthReads, entries
}

// readsMonths reports whether a BatchGetItem reads a month item of the counts by time.
func readsMonths(in *dynamodb.BatchGetItemInput) bool {
	for _, ka := range in.RequestItems {
		for _, k := range ka.Keys {
			if sk, ok := k["SK"].(*types.AttributeValueMemberS); ok && strings.HasPrefix(sk.Value, "MONTH#") {
				return true
			}
		}
	}
	return false
}

// TestDeepPagesMatchTheModel: with invitations created over more than a month (so a month's end lies
// inside every list), the deep numbered pages of every caller's list under every filter and their
// combinations equal the model's offset pages, links followed too: while pending invitations have
// expired unrecorded (status 0 and 3 correct for them), then after the expiries function recorded
// them, the API created, deleted and changed invitations (status, address, organization, acceptance)
// and the loader replaced some. Every deep page was placed by the counts by time: one read of month
// items each.
func TestDeepPagesMatchTheModel(t *testing.T) {
	w := newWorldOver(t, func(s *dynamo.Store) domain.InvitationStore { return s.WithDeepInvitationPages(deepFrom) })
	d := LoadDatasetOver(t, w.db, w.now, modelSize, 16*time.Hour)
	months := map[string]bool{}
	for _, inv := range d.Invitations {
		months[inv.Created.Format("2006-01")] = true
	}
	if len(months) < 2 {
		t.Fatalf("the invitations were created in %d month(s): no month's end to cross", len(months))
	}
	w.now = d.ExpiringBy
	t.Run("with expiries not recorded", func(t *testing.T) { w.compareDeepPages(t, d, 0) })
	recorded, err := w.db.Store.RecordExpiries(t.Context(), w.now)
	if err != nil || recorded == 0 {
		t.Fatalf("RecordExpiries = %d, %v", recorded, err)
	}
	w.writeThroughAPI(t, d)
	w.replaceThroughLoader(t, d)
	t.Run("after expiries recorded, writes through the API and a replace by the loader",
		func(t *testing.T) { w.compareDeepPages(t, d, 1) })
}

// compareDeepPages compares, for every caller and filter, a deep page of the list (in the middle and
// a third of the way in, at a page size chosen in turn) with the model, and checks that each such
// page read the counts by time once.
func (w *world) compareDeepPages(t *testing.T, d *Dataset, round int) {
	w.db.Calls.Reset()
	deep := 0
	t.Run("pages", func(t *testing.T) {
		for ci, c := range d.Callers() {
			for i, q := range d.queries(c) {
				count := len(d.List(c, q, w.now))
				size := []int{20, 7, 100}[(i+ci+round)%3]
				pages := max(1, (count+size-1)/size)
				var asked []pageAsked
				for _, number := range []int{(pages + 1) / 2, pages/3 + 1} {
					offset := (number - 1) * size
					if min(offset+size, count-offset) > deepFrom && !slices.ContainsFunc(asked,
						func(p pageAsked) bool { return p.page == strconv.Itoa(number) }) {
						asked = append(asked, pageAsked{page: strconv.Itoa(number), size: strconv.Itoa(size)})
					}
				}
				deep += len(asked)
				t.Run(fmt.Sprintf("%s %s", c.Name, q.Values().Encode()), func(t *testing.T) {
					t.Parallel()
					for _, p := range asked {
						w.compareList(t, d, c, q, p)
					}
				})
			}
		}
	})
	monthReads, _ := w.deepReads()
	t.Logf("%d deep pages, %d reads of month items", deep, monthReads)
	if deep < 60 || monthReads != deep {
		t.Errorf("%d deep pages read month items %d times: want once each, of at least 60", deep, monthReads)
	}
}

// replaceThroughLoader reloads every 50th invitation through the fixture loader (SPEC §7: an entry with
// an id that exists is replaced), and the model with it: a pending one cancelled, a cancelled one moved
// to a shared address of the next organization; the others as they are. Every 100th is given a
// created_at a month earlier; the others keep theirs.
func (w *world) replaceThroughLoader(t *testing.T, d *Dataset) {
	t.Helper()
	var invs []any
	for i := 0; i < len(d.Invitations); i += 50 {
		m := &d.Invitations[i]
		m.Status = m.StatusAt(w.now)
		switch m.Status {
		case 0:
			m.Status = 2
		case 2:
			m.Email = d.Shared[3]
			m.Organization = d.Organizations[(slices.Index(d.Organizations, m.Organization)+1)%len(d.Organizations)]
		}
		inv := map[string]any{
			"id": m.ID, "organization_id": m.Organization, "email": m.Email, "role": m.Role, "status": m.Status,
			"inviter_member_id": d.Inviters[slices.Index(d.Organizations, m.Organization)],
			"expiry_date":       m.Expiry.Format(time.RFC3339Nano),
		}
		if i%100 == 0 {
			// Its created_at given: it moves in every list it is in, to the month before.
			m.Created = domain.Stamp(m.Created.Add(-31*24*time.Hour - 7*time.Minute))
			inv["created_at"] = m.Created.Format(time.RFC3339Nano)
		}
		invs = append(invs, inv)
	}
	w.db.Load(t, map[string]any{"invitations": invs}, w.now, ttl)
}

// TestADeepInvitationPageReadsOneBucket: in staff's list of 2,600 invitations, one fixture per ten
// minutes, a numbered page more than 1,000 entries from both ends reads the month items once and, per
// stream (stored status), at most the busiest ten minutes' entries and its page, at every depth; it is
// the model's page. Where the counts by time do not add up to the counts (a table written before they
// were kept: a count item without them, or a month item short of its month), the same page is read
// from the list's nearer end.
func TestADeepInvitationPageReadsOneBucket(t *testing.T) {
	w := newWorld(t)
	d := LoadDatasetOver(t, w.db, w.now, 2600, 10*time.Minute)
	busiest := 0
	byCreated := map[time.Time]int{}
	for _, inv := range d.Invitations {
		byCreated[inv.Created]++
		busiest = max(busiest, byCreated[inv.Created])
	}
	const streams = 5 // staff's list: everyone's, one stream per stored status
	count := len(d.Invitations)
	all := d.List(d.Staff, ListQuery{Status: -1}, w.now)
	ask := func(t *testing.T, page, size int) (monthReads, entries int, units float64) {
		t.Helper()
		p := pageAsked{page: strconv.Itoa(page), size: strconv.Itoa(size)}
		query := ListQuery{Status: -1}.Values()
		query.Set("page", p.page)
		query.Set("page_size", p.size)
		w.db.Calls.Reset()
		got := w.modelPageAt(t, d.Staff, listPath+"?"+query.Encode())
		monthReads, entries = w.deepReads()
		units = w.db.Calls.ReadUnits()
		if diff := pageDiff(withoutCursors(t, got), d.expectedPage(all, query, p, w.now)); diff != "" {
			t.Fatalf("page %d of %d: %s", page, size, diff)
		}
		t.Logf("page %d of %d (entries %d-%d of %d): %d calls %v, %d reads of month items, %d index entries "+
			"at most, %.1f read units", page, size, (page-1)*size, page*size-1, count, len(w.db.Calls.Ops()),
			w.db.Calls, monthReads, entries, units)
		return monthReads, entries, units
	}
	var units []float64
	for _, tc := range []struct{ page, size int }{{56, 20}, {75, 20}, {12, 100}, {14, 100}, {1101, 1}, {1500, 1}} {
		t.Run(fmt.Sprintf("page %d of %d", tc.page, tc.size), func(t *testing.T) {
			monthReads, entries, u := ask(t, tc.page, tc.size)
			if limit := streams * (busiest + tc.size); monthReads != 1 || entries < 0 || entries > limit {
				t.Fatalf("%d reads of month items, %d index entries: want 1 and at most %d", monthReads, entries, limit)
			}
			if tc.size == 20 {
				units = append(units, u)
			}
		})
	}
	if len(units) == 2 && (units[1] > 1.5*units[0]+1 || units[0] > 1.5*units[1]+1) {
		t.Errorf("pages at entries 1,100 and 1,480 read %.1f and %.1f units: not independent of depth", units[0], units[1])
	}
	// What reading from the nearer end reads: each stream's entries up to the page from that end (a
	// Query continued past 1 MB counts its Limit again, so this is a least bound).
	stored := map[int]int{}
	for _, inv := range d.Invitations {
		stored[inv.Status]++
	}
	nearerEnd := func(page, size int) int {
		from := (page - 1) * size
		n := 0
		for _, c := range stored {
			n += min(from+size, count-from, c)
		}
		return n
	}
	t.Run("a month item short of its month", func(t *testing.T) {
		month, slot := monthOfEntry(all, 55*20)
		w.forgetCounts(t, "INVITATIONCOUNT#ALL#", "MONTH#"+month+"#", "S#"+slot)
		monthReads, entries, _ := ask(t, 56, 20)
		if monthReads != 1 || entries < nearerEnd(56, 20) {
			t.Fatalf("%d reads of month items, %d index entries: want 1, then %d from the nearer end", monthReads,
				entries, nearerEnd(56, 20))
		}
	})
	t.Run("count items without counts by month", func(t *testing.T) {
		w.forgetCounts(t, "INVITATIONCOUNT#ALL#", "COUNT", "M#")
		for _, tc := range []struct{ page, size int }{{56, 20}, {75, 20}, {12, 100}} {
			monthReads, entries, _ := ask(t, tc.page, tc.size)
			if want := nearerEnd(tc.page, tc.size); monthReads != 0 || entries < want {
				t.Fatalf("page %d of %d: %d reads of month items, %d index entries: want none, then %d from the "+
					"nearer end", tc.page, tc.size, monthReads, entries, want)
			}
		}
	})
}

// monthOfEntry is the month and ten minutes (without the month: "27T15:3") of the creation of the entry
// at offset in list.
func monthOfEntry(list []ModelInvitation, offset int) (month, slot string) {
	created := domain.FormatTime(list[offset].Created)
	return created[:len("2006-01")], created[len("2006-01-"):len("2006-01-02T15:0")]
}

// forgetCounts removes the attributes beginning with attrPrefix from the items whose partition key
// begins with pkPrefix and sort key with skPrefix, as if the writes that made them had not counted by
// time.
func (w *world) forgetCounts(t *testing.T, pkPrefix, skPrefix, attrPrefix string) {
	t.Helper()
	removed := 0
	for _, item := range w.db.Items(t, pkPrefix) {
		pk, sk := item["PK"].(string), item["SK"].(string)
		if !strings.HasPrefix(sk, skPrefix) {
			continue
		}
		for attr := range item {
			if !strings.HasPrefix(attr, attrPrefix) {
				continue
			}
			w.db.RemoveAttribute(t, pk, sk, attr)
			removed++
		}
	}
	if removed == 0 {
		t.Fatalf("no %s… attribute on %s…/%s… items to remove", attrPrefix, pkPrefix, skPrefix)
	}
}
