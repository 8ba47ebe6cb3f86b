package dynamo

import (
	"context"
	"maps"
	"slices"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/reportingplatform/api/shared/domain"
)

// A numbered invitation page deep in its list (SPEC §11: "a page number a client builds itself answers
// within the request budget") starts where the counts by creation time say (keys.go): the count items
// the list has already read count each stream's invitations per month, so the list's months are their
// sums (less what the list leaves out: its sources' Except organizations', the expiries not recorded
// yet in a list of pending ones; plus those in a list of expired ones); the month of the page's first
// entry is found among them, its ten minutes among the month items of that month (one BatchGetItem),
// and every stream is read newest first from the end of those ten minutes, each at most the entries
// of those ten minutes before the page's first and the page itself. Lists are merged newest first, so
// the entries newer than a ten minutes' end are those of the later buckets, whichever stream holds them.

// streamBuckets is one stream of a counted list with its counts by time: the count items whose
// difference counts it (its source's, less its Except organizations'), each one's count of each month,
// and the stream's own counts of each month and of each ten minutes of the page's month.
type streamBuckets struct {
	source int
	status domain.InvitationStatus
	slot   int // the stream's (stream.slot)
	plus   []key
	minus  []key
	months map[key]map[string]int // per count item
	// listed: the stream's entries the list shows, per month, and per ten minutes of the page's month;
	// hidden: those it holds but the list leaves out (its Except organizations'), the same way.
	listedMonths, hiddenMonths map[string]int
	listedSlots, hiddenSlots   map[string]int
}

// countPart is a set of count items whose counts add to a stream's (sign 1) or are taken from them (-1).
type countPart struct {
	keys []key
	into map[string]int
	sign int
}

// parts are how sb's count items make up its counts by time: its source's add to listed, its Except
// organizations' are taken from listed and add to hidden.
func (sb *streamBuckets) parts(listed, hidden map[string]int) []countPart {
	return []countPart{{sb.plus, listed, 1}, {sb.minus, listed, -1}, {sb.minus, hidden, 1}}
}

// bucketStreams are the streams that read numbered page w of the counted list from the ten minutes
// holding its first entry, with w set to pick the page from what they read. ok is false when the page
// is near enough to an end of the list to be read from there, or when the counts by time do not add up
// to the counts (invitations written before they were kept, or a write between two reads): the page
// is then read from the list's nearer end.
func (s *Store) bucketStreams(ctx context.Context, c domain.InvitationCount, counted map[key]map[string]types.AttributeValue,
	w *window) ([]*stream, bool, error) {
	if min(w.offset+w.n, c.Total-w.offset) <= s.deepInvitationEntries() {
		return nil, false, nil
	}
	sbs, extra, ok, err := listMonthCounts(c, counted)
	if err != nil || !ok {
		return nil, false, err
	}
	months := map[string]int{}
	maps.Copy(months, extra.months)
	for _, sb := range sbs {
		for m, n := range sb.listedMonths {
			months[m] += n
		}
	}
	newestFirst := newestBucketsFirst(months)
	if total(newestFirst) != c.Total {
		return nil, false, nil
	}
	inMonth := locate(newestFirst, w.offset)
	month := newestFirst[inMonth.i]
	var keys []key
	for _, sb := range sbs {
		for _, k := range append(slices.Clone(sb.plus), sb.minus...) {
			if sb.months[k][month.bucket] > 0 {
				keys = append(keys, invitationMonthKey(k, sb.status, month.bucket))
			}
		}
	}
	// Eventually consistent, at half the units: a month item behind its count does not add up to it,
	// and the page is then read from the nearer end.
	items, err := s.batchRead(ctx, "read invitation counts by time", keys, readOptions{eventual: true})
	if err != nil {
		return nil, false, err
	}
	slots := map[string]int{}
	maps.Copy(slots, extra.slots(month.bucket))
	for _, sb := range sbs {
		if ok, err := sb.readSlots(items, month.bucket, c); err != nil || !ok {
			return nil, false, err
		}
		for sl, n := range sb.listedSlots {
			slots[sl] += n
		}
	}
	slotsNewestFirst := newestBucketsFirst(slots)
	if total(slotsNewestFirst) != month.n {
		return nil, false, nil
	}
	in := locate(slotsNewestFirst, w.offset-inMonth.start)
	slot := slotsNewestFirst[in.i].bucket
	w.bucketed, w.skip, w.below = true, w.offset-inMonth.start-in.start, bucketEnd(slot)
	var out []*stream
	for _, sb := range sbs {
		src := c.List.Sources[sb.source]
		older := func(counts map[string]int, monthCounts map[string]int) int {
			n := 0
			for m, v := range monthCounts {
				if m < month.bucket {
					n += v
				}
			}
			for sl, v := range counts {
				if sl <= slot {
					n += v
				}
			}
			return n
		}
		shown := older(sb.listedSlots, sb.listedMonths)
		need := min(w.skip+w.n, shown)
		if need <= 0 {
			continue
		}
		st := &stream{slot: sb.slot, q: sourceQuery(src, sb.status), except: src.Except, need: need}
		st.q.descending, st.q.high = true, st.q.prefix+w.below
		// What the stream holds and the list leaves out, up to the page's end: those of its Except
		// organizations in the page's ten minutes and a few more (the rest, if it needs them, is read on
		// after), and for a list of pending ones the expiries not recorded yet that lie there.
		st.q.limit = need + min(older(sb.hiddenSlots, sb.hiddenMonths), sb.hiddenSlots[slot]+hiddenAllowance)
		for _, e := range extra.dropped[sb.source] {
			if domain.FormatTime(e.CreatedAt) < w.below {
				st.q.limit++
			}
		}
		out = append(out, st)
	}
	return out, true, nil
}

// expiryBuckets are the expiries not recorded yet that a list filtered by status 0 or 3 corrects its
// streams by: those a list of expired ones shows though no stream it reads holds them (added), and
// those a list of pending ones leaves out of its sources' pending streams (dropped, by source).
type expiryBuckets struct {
	added   []domain.InvitationEntry
	dropped map[int][]domain.InvitationEntry
	months  map[string]int // the added per month
}

// slots counts the added entries of month per ten minutes.
func (x expiryBuckets) slots(month string) map[string]int {
	out := map[string]int{}
	for _, e := range x.added {
		if m, sl := invitationBuckets(e.CreatedAt); m == month {
			out[sl]++
		}
	}
	return out
}

// listMonthCounts are the streams of c's list that hold something, each with its counts by month as
// the count items read into counted have them, corrected for the expiries not recorded yet. ok is false
// when a count item's months do not add up to its count of the stream's status.
func listMonthCounts(c domain.InvitationCount, counted map[key]map[string]types.AttributeValue) ([]*streamBuckets,
	expiryBuckets, bool, error) {
	extra := expiryBuckets{dropped: map[int][]domain.InvitationEntry{}, months: map[string]int{}}
	var out []*streamBuckets
	statuses := listStatuses(c.List)
	for i, src := range c.List.Sources {
		for j, status := range statuses {
			if c.Listed[i][status] <= 0 {
				continue
			}
			sb := &streamBuckets{source: i, status: status, slot: i*len(statuses) + j,
				plus:   sourceCountKeys(src.OrganizationID, src.Email),
				months: map[key]map[string]int{}, listedMonths: map[string]int{}, hiddenMonths: map[string]int{}}
			for _, org := range src.Except {
				sb.minus = append(sb.minus, sourceCountKeys(org, src.Email)...)
			}
			for _, part := range sb.parts(sb.listedMonths, sb.hiddenMonths) {
				for _, k := range part.keys {
					if sb.months[k] == nil {
						counts, err := decodeStatusCounts(counted[k])
						if err != nil {
							return nil, extra, false, err
						}
						m, err := decodeBucketCounts(counted[k], func(attr string) string {
							return invitationMonthOfAttr(status, attr)
						})
						if err != nil {
							return nil, extra, false, err
						}
						if sum(m) != counts[status] {
							return nil, extra, false, nil
						}
						sb.months[k] = m
					}
					for month, n := range sb.months[k] {
						part.into[month] += part.sign * n
					}
				}
			}
			out = append(out, sb)
		}
	}
	if c.List.Status == nil {
		return out, extra, true, nil
	}
	for _, e := range c.Expired {
		month, _ := invitationBuckets(e.CreatedAt)
		if *c.List.Status == domain.StatusExpired {
			extra.added = append(extra.added, e)
			extra.months[month]++
			continue
		}
		sb := pendingStreamOf(out, c.List.Sources, e)
		if sb == nil {
			return nil, extra, false, nil
		}
		sb.listedMonths[month]--
		extra.dropped[sb.source] = append(extra.dropped[sb.source], e)
	}
	return out, extra, true, nil
}

// pendingStreamOf is the pending stream among sbs of the source that holds e, nil when none does.
func pendingStreamOf(sbs []*streamBuckets, sources []domain.InvitationSource, e domain.InvitationEntry) *streamBuckets {
	for _, sb := range sbs {
		if sb.status == domain.StatusPending && inSources(sources[sb.source:sb.source+1], e) {
			return sb
		}
	}
	return nil
}

// readSlots sets sb's counts per ten minutes of month from the month items read into items, corrected
// for the expiries not recorded yet as its months were. ok is false when a month item does not add up
// to its count item's count of the month.
func (sb *streamBuckets) readSlots(items map[key]map[string]types.AttributeValue, month string,
	c domain.InvitationCount) (bool, error) {
	sb.listedSlots, sb.hiddenSlots = map[string]int{}, map[string]int{}
	for _, part := range sb.parts(sb.listedSlots, sb.hiddenSlots) {
		for _, k := range part.keys {
			if sb.months[k][month] <= 0 {
				continue
			}
			slots, err := decodeBucketCounts(items[invitationMonthKey(k, sb.status, month)],
				func(attr string) string { return slotOfAttr(month, attr) })
			if err != nil {
				return false, err
			}
			if sum(slots) != sb.months[k][month] {
				return false, nil
			}
			for sl, n := range slots {
				part.into[sl] += part.sign * n
			}
		}
	}
	if c.List.Status != nil && *c.List.Status == domain.StatusPending && sb.status == domain.StatusPending {
		for _, e := range c.Expired {
			if m, sl := invitationBuckets(e.CreatedAt); m == month && inSources(c.List.Sources[sb.source:sb.source+1], e) {
				sb.listedSlots[sl]--
			}
		}
	}
	return true, nil
}

// newestBucketsFirst lists the buckets that hold entries, newest first, as lists are ordered.
func newestBucketsFirst(counts map[string]int) []bucketCount {
	out := sortedBuckets(counts)
	slices.Reverse(out)
	return out
}

func sum(counts map[string]int) int {
	n := 0
	for _, v := range counts {
		n += v
	}
	return n
}
