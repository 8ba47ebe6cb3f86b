package dynamo

import (
	"testing"
	"time"
)

// The time buckets are prefixes of the index sort key: a comment's month and ten minutes name it, the
// attributes that count them name them back, and a bucket's end sorts after every key in it and
// before every key of the next.
func TestTimeBucketsArePrefixesOfTheSortKey(t *testing.T) {
	created := time.Date(2026, 12, 31, 23, 59, 59, 999999000, time.UTC)
	month, slot := commentBuckets(created)
	if month != "2026-12" || slot != "2026-12-31T23:5" {
		t.Fatalf("buckets %q %q", month, slot)
	}
	if got := monthOfAttr(monthCountAttr(month)); got != month {
		t.Fatalf("month attribute %q reads %q", monthCountAttr(month), got)
	}
	if got := slotOfAttr(month, slotCountAttr(slot)); got != slot {
		t.Fatalf("slot attribute %q reads %q", slotCountAttr(slot), got)
	}
	for _, attr := range []string{"n", "org_id", "M#2026", "S#31T23", "write_id"} {
		if monthOfAttr(attr) != "" || slotOfAttr(month, attr) != "" {
			t.Fatalf("%q read as a count by time", attr)
		}
	}
	last := commentSortKey(created, "ffffffff-ffff-ffff-ffff-ffffffffffff")
	next := commentSortKey(created.Add(time.Microsecond), "00000000-0000-0000-0000-000000000000")
	if end := bucketEnd(slot); !(last < end && end <= next) {
		t.Fatalf("end %q of %q: not between %q and %q", end, slot, last, next)
	}
	if got := objectMonthKey("report", "o", nil, month); got != (key{"OBJECT#report#o", "MONTH#2026-12"}) {
		t.Fatalf("month key %v", got)
	}
}
