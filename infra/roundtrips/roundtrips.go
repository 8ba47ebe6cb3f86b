// Package roundtrips counts the round trips a request waited for, from when each of its DynamoDB calls
// started and ended: the rule of testkit's budget tests (Calls.Sequential) and of make bench's table
// (bench.Sequential), written once.
package roundtrips

import (
	"slices"
	"time"
)

// Span is when one call started and ended.
type Span struct{ Start, End time.Time }

// Sequential is the length of the longest chain of spans each of which started after the previous one
// ended: the round trips a request waits for. Calls made in parallel count once.
func Sequential(spans []Span) int {
	spans = slices.Clone(spans)
	slices.SortStableFunc(spans, func(a, b Span) int { return a.Start.Compare(b.Start) })
	depth := make([]int, len(spans))
	best := 0
	for i := range spans {
		depth[i] = 1
		for j := range i {
			if !spans[i].Start.Before(spans[j].End) && depth[j]+1 > depth[i] {
				depth[i] = depth[j] + 1
			}
		}
		best = max(best, depth[i])
	}
	return best
}
