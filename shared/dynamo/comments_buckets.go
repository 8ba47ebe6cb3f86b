package dynamo

import (
	"context"
	"maps"
	"slices"
	"strconv"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/reportingplatform/api/shared/domain"
)

// A page deep in a list (SPEC §11: "a page number a client builds itself answers within the request
// budget") starts where the counts by creation time say: the COUNT item (COUNT#TAG with a tag) counts
// the object's comments per month, each month item per ten minutes of the month (keys.go), all
// written in the transactions that write the comments. The month of the page's first entry is found in
// the count the list has already read, its ten minutes in the month item (one more read), and the index
// is read from that bucket's nearer end: the entries of one bucket at most, besides the page's own.

// plainReadEntries is the most entries a deep page reads from the list's nearer end rather than by
// way of the buckets: so many take one Query (well under its 1 MB), as the bucket's read would, so the
// bucket's counts would cost a round trip for nothing.
const plainReadEntries = 1000

// bucketCount is one bucket's count: its sort key prefix and how many entries it holds.
type bucketCount struct {
	bucket string
	n      int
}

// CommentRange reads index entries From to To of q's list through its counts by time; see
// domain.CommentStore.
func (s *Store) CommentRange(ctx context.Context, q domain.CommentRange) ([]domain.CommentRef, bool, error) {
	n := q.N
	if q.From < 0 || q.To > n || q.From >= q.To {
		return nil, false, nil
	}
	plain := min(q.To, n-q.From) // what reading from the nearer end of the list reads
	months := sortedBuckets(q.ByMonth)
	if plain <= plainReadEntries || total(months) != n {
		return nil, false, nil
	}
	first, last := locate(months, q.From), locate(months, q.To-1)
	keys := []key{monthKeyOf(q, months[first.i].bucket)}
	if last.i != first.i {
		keys = append(keys, monthKeyOf(q, months[last.i].bucket))
	}
	items, err := s.batchRead(ctx, "get comment counts by time", keys, readOptions{})
	if err != nil {
		return nil, false, err
	}
	slotA, okA, err := slotOf(items[keys[0]], months[first.i], first, q.From)
	if err != nil || !okA {
		return nil, false, err
	}
	slotB, okB, err := slotOf(items[keys[len(keys)-1]], months[last.i], last, q.To-1)
	if err != nil || !okB {
		return nil, false, err
	}
	// Back from the end of the last entry's bucket (a Query of the keys before its end) or, when the
	// page ends in the bucket it starts in, forward from that bucket's start (a Query of its prefix),
	// whichever reads less.
	end := slotB.start + slotB.n
	backward, forward := end-q.From, -1
	if slotA.bucket == slotB.bucket {
		forward = q.To - slotA.start
	}
	if plain <= backward && (forward < 0 || plain <= forward) {
		return nil, false, nil
	}
	iq := domain.CommentIndexQuery{Object: q.Object, Tag: q.Tag}
	if forward >= 0 && forward <= backward {
		iq.Limit = forward
		refs, err := s.commentIndex(ctx, iq, slotA.bucket, "")
		if err != nil {
			return nil, false, err
		}
		return clip(refs, q.From-slotA.start, q.To-slotA.start), true, nil
	}
	iq.Limit, iq.Descending = backward, true
	refs, err := s.commentIndex(ctx, iq, "", bucketEnd(slotB.bucket))
	if err != nil {
		return nil, false, err
	}
	refs = clip(refs, end-q.To, end-q.From)
	slices.Reverse(refs)
	return refs, true, nil
}

// monthKeyOf is the month item of q's list for month.
func monthKeyOf(q domain.CommentRange, month string) key {
	return objectMonthKey(q.Object.ContentType, q.Object.ObjectID, q.Tag, month)
}

// position is where an entry is among buckets: the bucket's index i and the position of the bucket's
// first entry in the list.
type position struct{ i, start int }

// locate finds the bucket holding the entry at pos (0 ≤ pos < total(buckets)).
func locate(buckets []bucketCount, pos int) position {
	start := 0
	for i, b := range buckets {
		if pos < start+b.n {
			return position{i, start}
		}
		start += b.n
	}
	return position{len(buckets) - 1, start - buckets[len(buckets)-1].n}
}

// located is the ten minutes holding an entry: its prefix, its first entry's position in the list and
// its count.
type located struct {
	bucket   string
	start, n int
}

// slotOf finds, in the month item read for month (found at at), the ten minutes holding the entry at
// pos. ok is false when the month item does not account for the month's count: a comment written
// before the counts by time were kept, or a write between the count's read and this one.
func slotOf(item map[string]types.AttributeValue, month bucketCount, at position, pos int) (located, bool, error) {
	slots, err := decodeBucketCounts(item, func(attr string) string { return slotOfAttr(month.bucket, attr) })
	if err != nil {
		return located{}, false, err
	}
	buckets := sortedBuckets(slots)
	if total(buckets) != month.n {
		return located{}, false, nil
	}
	in := locate(buckets, pos-at.start)
	return located{buckets[in.i].bucket, at.start + in.start, buckets[in.i].n}, true, nil
}

// decodeBucketCounts reads the counts of an item's attributes that bucketOf names a bucket for.
func decodeBucketCounts(item map[string]types.AttributeValue, bucketOf func(attr string) string) (map[string]int, error) {
	var out map[string]int
	for attr, v := range item {
		bucket := bucketOf(attr)
		if bucket == "" {
			continue
		}
		num, ok := v.(*types.AttributeValueMemberN)
		if !ok {
			return nil, fail("decode counts by time", strconv.ErrSyntax)
		}
		n, err := strconv.Atoi(num.Value)
		if err != nil {
			return nil, fail("decode counts by time", err)
		}
		if out == nil {
			out = map[string]int{}
		}
		out[bucket] = n
	}
	return out, nil
}

// sortedBuckets lists the buckets that hold entries in key order (the buckets' prefixes are
// fixed-width, so their order as strings is the entries').
func sortedBuckets(counts map[string]int) []bucketCount {
	var out []bucketCount
	for _, b := range slices.Sorted(maps.Keys(counts)) {
		if counts[b] > 0 {
			out = append(out, bucketCount{b, counts[b]})
		}
	}
	return out
}

func total(buckets []bucketCount) int {
	n := 0
	for _, b := range buckets {
		n += b.n
	}
	return n
}

// clip is refs[from:to] within refs' bounds: the index is eventually consistent, so it may briefly
// hold an entry more or less than the counts.
func clip(refs []domain.CommentRef, from, to int) []domain.CommentRef {
	from, to = min(max(from, 0), len(refs)), min(max(to, 0), len(refs))
	return slices.Clone(refs[from:to])
}
