package bench

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"text/tabwriter"
	"time"
)

// ScaleRow is one list measured at one size by `make scale` (SPEC §11: a page costs its page, not its
// collection).
type ScaleRow struct {
	List  string // what is listed and which page, e.g. "comments, page=last"
	Chart string // the chart it is drawn on, e.g. "comments"
	// Label names its line on that chart. Lines of one Series (a list's pages) share a colour, the
	// first solid and the others dashed.
	Label, Series string
	// Held tells whether SPEC §11's goals are stated for the row's page: page 1 and page=last.
	Held  bool
	N     int // the size the run loaded the list's scope at
	Count int // the response's count: the items in the caller's scope
	Stats *Stats
	// Failed says why the list has no figures at this size (a status other than 200), or is "".
	Failed string
}

// Goals of SPEC §11, compared between the smallest and the largest size of a run.
const (
	// CostTolerance is how far page 1's and page=last's round trips and read units may move.
	CostTolerance = 0.10
	// LatencyGrowth is how much their p50 may grow.
	LatencyGrowth = 1.5
)

// WriteScaleTable prints one line per list and size: the count in scope, the p50, the sequential
// round trips and the read units per request (as AWS bills them, Billed), and the requests timed.
func WriteScaleTable(w io.Writer, rows []ScaleRow) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "list\tN\tcount\tp50 ms\tround trips\tRCU\trequests\t")
	for _, r := range rows {
		if r.Failed != "" {
			fmt.Fprintf(tw, "%s\t%d\t%d\t%s\t-\t-\t%d\t\n", r.List, r.N, r.Count, r.Failed, r.Stats.N())
			continue
		}
		read, _ := r.Stats.Units()
		fmt.Fprintf(tw, "%s\t%d\t%d\t%s\t%d\t%.1f\t%d\t\n", r.List, r.N, r.Count, ms(r.Stats.Percentile(50)),
			r.Stats.RoundTrips(), read, r.Stats.N())
	}
	return tw.Flush()
}

// WriteScaleGoals prints, for each list whose page SPEC §11's goals hold, whether its round trips and
// read units stay within CostTolerance and its p50 within LatencyGrowth from the run's smallest size to
// its largest. It reports; it does not judge a run of one size, and a failed size is a miss.
func WriteScaleGoals(w io.Writer, rows []ScaleRow) error {
	var lists []string
	bySize := map[string][]ScaleRow{}
	for _, r := range rows {
		if !r.Held {
			continue
		}
		if _, seen := bySize[r.List]; !seen {
			lists = append(lists, r.List)
		}
		bySize[r.List] = append(bySize[r.List], r)
	}
	if sizes := sizesOf(rows); len(sizes) < 2 {
		_, err := fmt.Fprintf(w, "SPEC §11 goals: a run of one size (N=%v) has nothing to compare\n", sizes)
		return err
	}
	met := 0
	for _, list := range lists {
		sized := bySize[list]
		slices.SortFunc(sized, func(a, b ScaleRow) int { return a.N - b.N })
		line, ok := goalLine(sized[0], sized[len(sized)-1])
		if ok {
			met++
		}
		if _, err := fmt.Fprintf(w, "%s: %s\n", list, line); err != nil {
			return err
		}
	}
	_, err := fmt.Fprintf(w,
		"SPEC §11 goals (round trips and read units within ±%.0f%%, p50 within %.1f×, smallest to largest "+
			"size) met by %d of %d lists\n",
		CostTolerance*100, LatencyGrowth, met, len(lists))
	return err
}

// sizesOf is the sizes rows were measured at, in their order.
func sizesOf(rows []ScaleRow) []int {
	var sizes []int
	for _, r := range rows {
		if !slices.Contains(sizes, r.N) {
			sizes = append(sizes, r.N)
		}
	}
	return sizes
}

// goalLine compares a list at its smallest size with its largest.
func goalLine(small, large ScaleRow) (string, bool) {
	if small.N == large.N {
		return fmt.Sprintf("measured at N=%d only: nothing to compare", small.N), false
	}
	sizes := fmt.Sprintf("N=%d → %d: ", small.N, large.N)
	for _, r := range []ScaleRow{small, large} {
		if r.Failed != "" {
			return sizes + fmt.Sprintf("NO, %s at N=%d", r.Failed, r.N), false
		}
	}
	sRead, _ := small.Stats.Units()
	lRead, _ := large.Stats.Units()
	sRT, lRT := float64(small.Stats.RoundTrips()), float64(large.Stats.RoundTrips())
	sP50, lP50 := small.Stats.Percentile(50), large.Stats.Percentile(50)
	rtOK, readOK := within(sRT, lRT), within(sRead, lRead)
	growth := float64(lP50) / float64(sP50)
	p50OK := growth <= LatencyGrowth
	return sizes + fmt.Sprintf("round trips %.0f → %.0f %s; RCU %.1f → %.1f %s; p50 %s → %s ms (×%.2f) %s",
		sRT, lRT, mark(rtOK), sRead, lRead, mark(readOK), ms(sP50), ms(lP50), growth, mark(p50OK)), rtOK && readOK && p50OK
}

// within tells whether b is within CostTolerance of a.
func within(a, b float64) bool {
	if a == 0 {
		return b == 0
	}
	// Compared with a margin for floating point: 2.2 read units are within 10% of 2.
	return math.Abs(b-a) <= CostTolerance*a+1e-9
}

func mark(ok bool) string { return map[bool]string{true: "ok", false: "NO"}[ok] }

// ScaleSummary is one line of what a run covered: the sizes rows were measured at, the requests timed
// per list and size, and the time.
func ScaleSummary(rows []ScaleRow, samples int, took time.Duration) string {
	sizes := sizesOf(rows)
	ns := make([]string, len(sizes))
	for i, n := range sizes {
		ns[i] = fmt.Sprint(n)
	}
	return fmt.Sprintf("sizes N = %s; p50 of %d warm requests per list and size; run took %s",
		strings.Join(ns, ", "), samples, took.Round(time.Second))
}

// WalkRow is one list walked by `make scale` at one size: its pages followed by their `next` links
// from page 1 to the end (SPEC §11, "Walking a list"), with the totals of the requests and the pages'
// mean.
type WalkRow struct {
	List     string
	N, Count int // the size loaded; the items the walk returned
	Pages    int // the pages requested
	// Stopped says why the walk did not reach the end (its time ran out, or a page failed), or is "".
	Stopped    string
	Took       time.Duration // the pages' requests, summed
	RoundTrips int           // sequential DynamoDB round trips, summed over the pages
	Read       float64       // read request units as AWS bills them, summed over the pages
}

// WriteWalkTable prints one line per list and size: the pages walked, their totals (time, round trips,
// read units) and the same per page.
func WriteWalkTable(w io.Writer, rows []WalkRow) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "walk by next (page_size=100)\tN\titems\tpages\ttotal s\tround trips\tRCU\tms/page\t"+
		"round trips/page\tRCU/page\tstopped")
	for _, r := range rows {
		pages := float64(max(r.Pages, 1))
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%.1f\t%d\t%.1f\t%.1f\t%.1f\t%.1f\t%s\n", r.List, r.N, r.Count, r.Pages,
			r.Took.Seconds(), r.RoundTrips, r.Read, float64(r.Took.Microseconds())/1000/pages,
			float64(r.RoundTrips)/pages, r.Read/pages, r.Stopped)
	}
	return tw.Flush()
}
