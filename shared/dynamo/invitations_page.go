package dynamo

import (
	"context"
	"errors"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/reportingplatform/api/shared/domain"
)

// An invitation list (SPEC §10, §11) is counted from count items and paged by merging Queries of
// index partitions, one per source and stored status, each ordered by creation time: a page costs the
// entries before it (from the nearer end; from its ten minutes when it is deep, bucketStreams) and its
// own items, whatever the size of the list.

// CountInvitations reads the count items of list's sources in one BatchGetItem and, for a list
// filtered by status 0 or 3, beside it the pending invitations past their expiry (GSI5).
func (s *Store) CountInvitations(ctx context.Context, list domain.InvitationList,
	now time.Time) (domain.InvitationCount, error) {
	c, _, err := s.countInvitations(ctx, list, now)
	return c, err
}

// countInvitations is CountInvitations, with the count items it read (their counts by time place a deep
// page).
func (s *Store) countInvitations(ctx context.Context, list domain.InvitationList,
	now time.Time) (domain.InvitationCount, map[key]map[string]types.AttributeValue, error) {
	var keys []key
	for _, src := range list.Sources {
		keys = append(keys, sourceCountKeys(src.OrganizationID, src.Email)...)
		for _, org := range src.Except {
			keys = append(keys, sourceCountKeys(org, src.Email)...)
		}
	}
	var (
		items             map[key]map[string]types.AttributeValue
		expired           []domain.InvitationEntry
		errCounts, errExp error
	)
	expiries := list.Status != nil && (*list.Status == domain.StatusPending || *list.Status == domain.StatusExpired)
	inParallel(2, func(i int) {
		if i == 0 {
			items, errCounts = s.batchGet(ctx, "read invitation counts", keys)
		} else if expiries {
			expired, errExp = s.unrecordedExpiries(ctx, now, 0)
		}
	})
	if err := errors.Join(errCounts, errExp); err != nil {
		return domain.InvitationCount{}, nil, err
	}
	c := domain.InvitationCount{List: list}
	for _, src := range list.Sources {
		listed, err := sumCounts(items, sourceCountKeys(src.OrganizationID, src.Email))
		if err != nil {
			return domain.InvitationCount{}, nil, err
		}
		var hidden domain.StatusCounts
		for _, org := range src.Except {
			h, err := sumCounts(items, sourceCountKeys(org, src.Email))
			if err != nil {
				return domain.InvitationCount{}, nil, err
			}
			for st := range h {
				hidden[st] += h[st]
				listed[st] -= h[st]
			}
		}
		c.Listed, c.Hidden = append(c.Listed, listed), append(c.Hidden, hidden)
		if list.Status == nil {
			c.Total += listed.Sum()
		}
	}
	if list.Status != nil {
		for _, listed := range c.Listed {
			c.Total += listed[*list.Status]
		}
	}
	for _, e := range expired {
		if inSources(list.Sources, e) {
			c.Expired = append(c.Expired, e)
		}
	}
	switch {
	case list.Status == nil:
	case *list.Status == domain.StatusPending:
		c.Total -= len(c.Expired)
	case *list.Status == domain.StatusExpired:
		c.Total += len(c.Expired)
	}
	c.Total = max(c.Total, 0)
	return c, items, nil
}

// inSources reports whether one of sources holds e.
func inSources(sources []domain.InvitationSource, e domain.InvitationEntry) bool {
	for _, src := range sources {
		if (src.OrganizationID == "" || src.OrganizationID == e.OrganizationID) &&
			(src.Email == "" || domain.EmailKey(src.Email) == domain.EmailKey(e.Email)) &&
			!slices.Contains(src.Except, e.OrganizationID) {
			return true
		}
	}
	return false
}

// unrecordedExpiries reads, keys only, the pending invitations whose expiry has passed at now (at most
// limit, oldest expiry first; 0: all): those the scheduled expiries function has not recorded yet.
func (s *Store) unrecordedExpiries(ctx context.Context, now time.Time, limit int) ([]domain.InvitationEntry, error) {
	k := pendingIndexKey(now, "")
	q := partitionQuery{index: indexGSI5, pkAttr: attrGSI5PK, skAttr: attrGSI5SK, partition: k.PK,
		before: pendingBefore(now), limit: limit}
	var out []domain.InvitationEntry
	_, err := s.queryPartition(ctx, q, func(item map[string]types.AttributeValue) error {
		created, errCreated := domain.ParseTime(stringAttr(item, "created_at"))
		expiry, _, errExpiry := parseSortKey(stringAttr(item, attrGSI5SK))
		if err := errors.Join(errCreated, errExpiry); err != nil {
			return fail("decode pending invitation entry", err)
		}
		out = append(out, domain.InvitationEntry{
			ID: idAfter(stringAttr(item, attrPK), "INVITATION#"), OrganizationID: stringAttr(item, "org_id"),
			Email: stringAttr(item, "email"), CreatedAt: created, ExpiryDate: expiry,
		})
		return nil
	})
	return out, err
}

// speculativeEntries is the most entries of a list a numbered page reads from its start beside the
// count, before the count says which end of the list is nearer: page 50 at the default size, page 10
// at the largest. A deeper page waits for its count and reads from the nearer end: one call more, and
// at most half the list's entries instead of all of them.
const speculativeEntries = 1000

// hiddenAllowance is how many entries more than it needs a stream reads beside the count when it may
// hold entries its list does not show (its source's Except organizations'; the expiries not recorded
// yet, in a list of pending ones), whose number only the count says: so the read rarely falls short,
// and is topped up when it does.
const hiddenAllowance = 20

// speculativeStreams is the most streams a list reads beside its count, before the count says which
// are empty: an unfiltered list of a member of nine organizations with their own address. A list of
// more waits for its count and reads only the streams that hold something, one call more, rather than
// a Query per organization and status whatever they hold.
const speculativeStreams = 50

// ListInvitations reads the count of list and, in parallel with it, the index entries of every source
// and stored status the list shows that place the page at names; merges them; and reads the page's
// invitations in one BatchGetItem. A stream that fell short of what the page needs (more hidden
// entries than hiddenAllowance; on a continuation with hints, more entries than they predicted) is
// read on from where it stopped, after the count; the page's hints go back with it for its links. A
// numbered page deeper than speculativeEntries, and a list of more than speculativeStreams streams,
// count first; a numbered page as deep from both ends is placed by the counts by time (bucketStreams).
func (s *Store) ListInvitations(ctx context.Context, list domain.InvitationList, at domain.InvitationPageAt,
	now time.Time) (domain.InvitationListPage, error) {
	if at.Size <= 0 {
		return domain.InvitationListPage{}, errors.New("invitation list: page size must be positive")
	}
	var (
		c       domain.InvitationCount
		streams []*stream
		err     error
	)
	w := window{InvitationPageAt: at}
	numbered := at.From == nil && !at.Last
	many := len(list.Sources)*len(listStatuses(list)) > speculativeStreams
	switch {
	case numbered && (many || at.Number < 1 || at.Number > s.deepInvitationEntries()/at.Size):
		var counted map[key]map[string]types.AttributeValue
		if c, counted, err = s.countInvitations(ctx, list, now); err != nil {
			return domain.InvitationListPage{}, err
		}
		pages := max(1, (c.Total+at.Size-1)/at.Size)
		if at.Number < 1 || at.Number > pages {
			return domain.InvitationListPage{Count: c.Total}, nil
		}
		w.offset = (at.Number - 1) * at.Size
		w.n = min(at.Size, c.Total-w.offset)
		w.backward = c.Total-w.offset < w.offset+w.n
		var bucketed bool
		if streams, bucketed, err = s.bucketStreams(ctx, c, counted, &w); err != nil {
			return domain.InvitationListPage{}, err
		}
		if !bucketed {
			streams = nearerEndStreams(c, w)
		}
		err = s.readStreams(ctx, streams, nil)
	case many:
		if c, err = s.CountInvitations(ctx, list, now); err != nil {
			return domain.InvitationListPage{}, err
		}
		streams = windowStreams(list, at, &c)
		err = s.readStreams(ctx, streams, nil)
	default:
		streams = windowStreams(list, at, nil)
		err = s.readStreams(ctx, streams, func() (err error) {
			c, err = s.CountInvitations(ctx, list, now)
			return err
		})
	}
	if err != nil {
		return domain.InvitationListPage{}, err
	}
	dropped, added := expiredUnrecorded(c, at)
	if w.bucketed {
		// The streams were read from the end of a ten minutes: the page is counted from there.
		added = slices.DeleteFunc(added, func(e domain.InvitationEntry) bool { return domain.FormatTime(e.CreatedAt) >= w.below })
	}
	if err := s.topUp(ctx, streams, dropped, w, added); err != nil {
		return domain.InvitationListPage{}, err
	}
	var entries []domain.InvitationEntry
	for _, st := range streams {
		entries = append(entries, st.entries...)
	}
	entries = slices.DeleteFunc(append(entries, added...),
		func(e domain.InvitationEntry) bool { return dropped[e.ID] })
	slices.SortFunc(entries, newestEntryFirst)
	entries = slices.CompactFunc(entries, func(a, b domain.InvitationEntry) bool { return a.ID == b.ID })
	shown, more := w.pick(entries, c.Total)
	ids := make([]string, 0, len(shown))
	for _, e := range shown {
		ids = append(ids, e.ID)
	}
	invs, err := s.InvitationsByID(ctx, ids)
	if err != nil {
		return domain.InvitationListPage{}, err
	}
	return domain.InvitationListPage{Count: c.Total, Invitations: invs, More: more,
		Hints: composition(list, at, streams, shown)}, nil
}

// window is the page a list read is for, with what the count settled for a numbered page read after it:
// its offset and length, and whether its entries were read from the oldest end.
type window struct {
	domain.InvitationPageAt
	offset, n int
	backward  bool
	// bucketed: the entries were read from the end of a ten minutes (bucketStreams), the sort keys'
	// times below below; the page is their entries from skip on.
	bucketed bool
	skip     int
	below    string
}

// pick is the page's entries among the merged entries the streams read (in the list's order), and, for
// a window from a position, whether more lie beyond them.
func (w window) pick(entries []domain.InvitationEntry, total int) ([]domain.InvitationEntry, bool) {
	tail := func(n int) []domain.InvitationEntry { return entries[max(0, len(entries)-n):] }
	switch {
	case w.From != nil && w.Backward:
		return tail(w.Size), len(entries) > w.Size
	case w.From != nil:
		return entries[:min(w.Size, len(entries))], len(entries) > w.Size
	case w.Last:
		pages := max(1, (total+w.Size-1)/w.Size)
		return tail(max(0, total-(pages-1)*w.Size)), false
	case w.bucketed:
		from := min(w.skip, len(entries))
		return entries[from:min(from+w.n, len(entries))], false
	case w.backward:
		// The entries read are the list's last total-offset: the page is their first n.
		from := max(0, len(entries)-(total-w.offset))
		return entries[from:min(from+w.n, len(entries))], false
	default:
		offset := (w.Number - 1) * w.Size
		n := max(0, min(w.Size, total-offset))
		return entries[min(offset, len(entries)):min(offset+n, len(entries))], false
	}
}

// expiredUnrecorded is what the pending invitations past their expiry that no write recorded change in
// c's list: a list of pending ones leaves them out (dropped, by id), a list of expired ones shows them
// (added), those of a window from a position only beyond it.
func expiredUnrecorded(c domain.InvitationCount, at domain.InvitationPageAt) (map[string]bool,
	[]domain.InvitationEntry) {
	dropped := map[string]bool{}
	var added []domain.InvitationEntry
	switch {
	case c.List.Status == nil:
	case *c.List.Status == domain.StatusPending:
		for _, e := range c.Expired {
			dropped[e.ID] = true
		}
	case *c.List.Status == domain.StatusExpired:
		for _, e := range c.Expired {
			if at.From == nil || beyond(e, *at.From, at.Backward) || (at.Included && e.ID == at.From.ID) {
				added = append(added, e)
			}
		}
	}
	return dropped, added
}

// beyond reports whether e lies strictly after pos in a list's order (backward: strictly before it).
func beyond(e domain.InvitationEntry, pos domain.InvitationPosition, backward bool) bool {
	c := newestEntryFirst(e, domain.InvitationEntry{ID: pos.ID, CreatedAt: pos.CreatedAt})
	if backward {
		return c < 0
	}
	return c > 0
}

// stream is the Query of one source's invitations of one stored status, the organizations whose
// entries it reads but the list does not show, how many entries the list shows the page needs from it,
// and what it read so far.
type stream struct {
	// slot is its place among the list's streams, each source's statuses in turn (listStatuses): where
	// its hint is in a continuation's hints.
	slot     int
	q        partitionQuery
	except   []string
	from     *domain.InvitationPosition // its entries lie beyond it (the window's position)
	included bool                       // and its entry at it too
	need     int
	// hinted: its limit is what the continuation's hint predicts the page takes from it, which may fall
	// short; it is read on while its last entry read lies before the page's end (topUp).
	hinted  bool
	entries []domain.InvitationEntry
	// seen is every entry read, those the list does not show too: where the stream got to, and what a
	// page's composition counts.
	seen  []domain.InvitationEntry
	rest  map[string]types.AttributeValue // where it goes on; nil once read to its end
	ended bool
}

// windowStreams are the streams of every source and stored status list may show, bounded as at names:
// each reads the entries at's page needs from it and, when it may hold entries the list leaves out,
// hiddenAllowance more. With the list's count c (nil: read beside it), only the streams that hold
// something, each with exactly the entries it leaves out.
func windowStreams(list domain.InvitationList, at domain.InvitationPageAt, c *domain.InvitationCount) []*stream {
	var out []*stream
	statuses := listStatuses(list)
	hints := at.Hints
	if len(hints) != len(list.Sources)*len(statuses) {
		hints = nil // another list's (the caller's organizations changed): today's read
	}
	for i, src := range list.Sources {
		for j, status := range statuses {
			if c != nil && c.Listed[i][status] <= 0 {
				continue
			}
			st := &stream{slot: i*len(statuses) + j, q: sourceQuery(src, status), except: src.Except}
			switch {
			case at.From != nil:
				// A position's own entry is the bound of the range, read and left out.
				st.from, st.included, st.need = at.From, at.Included, at.Size+1
				bound := invitationPositionKey(st.q.prefix, at.From.CreatedAt, at.From.ID)
				if at.Backward {
					st.q.low = bound
				} else {
					st.q.high, st.q.descending = bound, true
				}
				st.q.limit = st.need + 1
				st.hinted = hints != nil
			case at.Last:
				st.need = at.Size
				st.q.limit = st.need
			default:
				st.need, st.q.descending = at.Number*at.Size, true
				st.q.limit = st.need
			}
			pendingOnly := status == domain.StatusPending && list.Status != nil
			switch {
			case c != nil && pendingOnly:
				st.q.limit += c.Hidden[i][status] + len(c.Expired)
			case c != nil:
				st.q.limit += c.Hidden[i][status]
			case len(src.Except) > 0 || pendingOnly:
				st.q.limit += hiddenAllowance
			}
			if st.hinted {
				// The hint counts every entry the page's range held, hidden ones too; the position's own
				// entry is read and left out.
				st.q.limit = min(st.q.limit, predictedEntries(hints[st.slot])+1)
			}
			out = append(out, st)
		}
	}
	return out
}

// listStatuses are the stored statuses whose streams list reads.
func listStatuses(list domain.InvitationList) []domain.InvitationStatus {
	if list.Status != nil {
		return []domain.InvitationStatus{*list.Status}
	}
	return []domain.InvitationStatus{0, 1, 2, 3, 4}
}

// nearerEndStreams are the streams that read numbered page w of the counted list from the end w says,
// each exactly the entries up to the page plus those the list leaves out; a stream with nothing to
// show is not read.
func nearerEndStreams(c domain.InvitationCount, w window) []*stream {
	want := w.offset + w.n
	if w.backward {
		want = c.Total - w.offset
	}
	var out []*stream
	statuses := listStatuses(c.List)
	for i, src := range c.List.Sources {
		for j, status := range statuses {
			count := c.Listed[i][status]
			if count <= 0 {
				continue
			}
			st := &stream{slot: i*len(statuses) + j, q: sourceQuery(src, status), except: src.Except,
				need: min(want, count)}
			st.q.descending = !w.backward
			st.q.limit = st.need + c.Hidden[i][status]
			if status == domain.StatusPending && c.List.Status != nil {
				st.q.limit += len(c.Expired)
			}
			out = append(out, st)
		}
	}
	return out
}

// readStreams reads every stream once, up to its limit, in parallel, and beside them alongside (nil:
// nothing).
func (s *Store) readStreams(ctx context.Context, streams []*stream, alongside func() error) error {
	errs := make([]error, len(streams)+1)
	inParallel(len(streams)+1, func(i int) {
		switch {
		case i < len(streams):
			errs[i] = s.readStream(ctx, streams[i])
		case alongside != nil:
			errs[i] = alongside()
		}
	})
	return errors.Join(errs...)
}

// topUp reads on, in parallel, every stream that stopped before the entries the page needs from it
// (those dropped not counting), until each has them or is read to its end. A stream read by a hint
// needs what lies up to the page's end: it is short while the last entry it read lies before the first
// entry past the page among those merged (or, fewer merged than the page holds, until its end), since
// an entry it has not read could still belong on the page.
func (s *Store) topUp(ctx context.Context, streams []*stream, dropped map[string]bool, w window,
	added []domain.InvitationEntry) error {
	for {
		end, whole := pageEnd(streams, dropped, w, added)
		var short []*stream
		for _, st := range streams {
			v := st.shown(dropped)
			if st.hinted && !st.ended && (!whole || len(st.seen) == 0 || readBefore(st.seen[len(st.seen)-1], end, w.Backward)) {
				st.q.start, st.q.limit = st.rest, max(1, st.need-v)+hiddenAllowance
				short = append(short, st)
			} else if !st.hinted && !st.ended && v < st.need {
				st.q.start, st.q.limit = st.rest, st.need-v+hiddenAllowance
				short = append(short, st)
			}
		}
		if len(short) == 0 {
			return nil
		}
		if err := s.readStreams(ctx, short, nil); err != nil {
			return err
		}
	}
}

// pageEnd is the entry just past a continuation's page in its reading order among those streams read
// (and the expiries not recorded added), whole false when they hold no entry past the page.
func pageEnd(streams []*stream, dropped map[string]bool, w window,
	added []domain.InvitationEntry) (domain.InvitationEntry, bool) {
	merged := slices.Clone(added)
	for _, st := range streams {
		for _, e := range st.entries {
			if !dropped[e.ID] {
				merged = append(merged, e)
			}
		}
	}
	slices.SortFunc(merged, func(a, b domain.InvitationEntry) int {
		if w.Backward {
			return newestEntryFirst(b, a)
		}
		return newestEntryFirst(a, b)
	})
	merged = slices.CompactFunc(merged, func(a, b domain.InvitationEntry) bool { return a.ID == b.ID })
	if len(merged) <= w.Size {
		return domain.InvitationEntry{}, false
	}
	return merged[w.Size], true
}

// readBefore reports whether e comes strictly before end in a list read forwards (backward: after it).
func readBefore(e, end domain.InvitationEntry, backward bool) bool {
	c := newestEntryFirst(e, end)
	if backward {
		return c > 0
	}
	return c < 0
}

// hintScale is the hints' unit: a quarter of an entry, so that their average over the pages walked
// (composition) follows a share that moves by less than an entry a page, rounding aside.
const hintScale = 4

// predictedEntries is how many entries a stream is read for on a continuation whose hint says the pages
// before held hint/hintScale of the stream's entries per page. The next page holds about as many, but
// in a mix of streams drawn at random (the data sets', make scale's world) a stream's share of a page
// varies like a binomial count, by about the square root of h, and the hint, an average of the pages
// before (composition), errs by a third of that variance again: three square roots and three entries
// more leave one of twenty streams short about once in a hundred pages or less (a top-up, a round trip
// more), where a page reads about twice what it shows. A stream the pages before held nothing of still
// reads six entries: a page's composition can miss a small one.
func predictedEntries(hint int) int {
	h := float64(hint) / hintScale
	return int(math.Ceil(h+3*math.Sqrt(h+1))) + 3
}

// composition is the hints of the links of the page that shows shown, read by streams: per stream of
// list (each source and status, in order), how many of its entries, shown or not, lie in the page's
// range (in hintScale units); with at's hints, the mean of the two: a stream's share follows a mix that
// holds steady with half the noise of one page, and one that changes within a page or two. A page that
// shows less than a full page has none: it is the list's end, whose few entries say little of the mix
// of the pages before it.
func composition(list domain.InvitationList, at domain.InvitationPageAt, streams []*stream,
	shown []domain.InvitationEntry) []int {
	if len(shown) < at.Size {
		return nil
	}
	first, last := shown[0], shown[len(shown)-1]
	hints := make([]int, len(list.Sources)*len(listStatuses(list)))
	for _, st := range streams {
		for _, e := range st.seen {
			if newestEntryFirst(first, e) <= 0 && newestEntryFirst(e, last) <= 0 {
				hints[st.slot] += hintScale
			}
		}
	}
	if len(at.Hints) == len(hints) {
		for k := range hints {
			hints[k] = (hints[k] + at.Hints[k] + 1) / 2
		}
	}
	return hints
}

// shown is how many of the entries st read its list shows.
func (st *stream) shown(dropped map[string]bool) int {
	n := 0
	for _, e := range st.entries {
		if !dropped[e.ID] {
			n++
		}
	}
	return n
}

// readStream reads st's Query on from where it stopped, but the entries of its except organizations
// and its position's own.
func (s *Store) readStream(ctx context.Context, st *stream) error {
	rest, err := s.queryPartition(ctx, st.q, func(item map[string]types.AttributeValue) error {
		org := stringAttr(item, "org_id")
		created, err := invitationCreated(stringAttr(item, st.q.skAttr))
		if err != nil {
			return fail("decode invitation index entry", err)
		}
		e := domain.InvitationEntry{ID: idAfter(stringAttr(item, attrPK), "INVITATION#"), OrganizationID: org,
			CreatedAt: created}
		st.seen = append(st.seen, e)
		if slices.Contains(st.except, org) {
			return nil
		}
		if st.from == nil || beyond(e, *st.from, !st.q.descending) || (st.included && e.ID == st.from.ID) {
			st.entries = append(st.entries, e)
		}
		return nil
	})
	st.rest, st.ended = rest, rest == nil
	return err
}

// sourceQuery is the Query of src's invitations with stored status st.
func sourceQuery(src domain.InvitationSource, st domain.InvitationStatus) partitionQuery {
	switch {
	case src.OrganizationID != "" && src.Email != "":
		return partitionQuery{index: indexGSI2, pkAttr: attrGSI2PK, skAttr: attrGSI2SK,
			partition: inviteePartition(src.Email), prefix: src.OrganizationID + "#" + statusPrefix(st)}
	case src.OrganizationID != "":
		return partitionQuery{index: indexGSI3, pkAttr: attrGSI3PK, skAttr: attrGSI3SK,
			partition: orgInvitationsPartition(src.OrganizationID), prefix: statusPrefix(st)}
	case src.Email != "":
		return partitionQuery{index: indexGSI4, pkAttr: attrGSI2PK, skAttr: attrGSI3SK,
			partition: inviteePartition(src.Email), prefix: statusPrefix(st)}
	default:
		return partitionQuery{index: indexGSI1, pkAttr: attrGSI1PK, skAttr: attrGSI1SK,
			partition: allInvitationsPartition, prefix: statusPrefix(st)}
	}
}

// newestEntryFirst orders as lists do: creation time, newest first, ties by id.
func newestEntryFirst(a, b domain.InvitationEntry) int {
	if c := b.CreatedAt.Compare(a.CreatedAt); c != 0 {
		return c
	}
	return strings.Compare(a.ID, b.ID)
}
