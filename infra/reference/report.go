package main

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/reportingplatform/api/infra/bench"
)

// Row is one request of the run, measured on every server: Stats[0] is this API's, the others the
// references' in the order of the servers given to run.
type Row struct {
	Name   string
	Answer Page // what every server answered (they matched)
	Stats  []*bench.Stats
}

// Ratio is this API's time over server i's at the p-th percentile (0 when server i has no samples).
func (r Row) Ratio(i int, p float64) float64 {
	ref := r.Stats[i].Percentile(p)
	if ref == 0 {
		return 0
	}
	return float64(r.Stats[0].Percentile(p)) / float64(ref)
}

// WriteTable prints, per request, one line per server with its p50, p25, p75 and p99, and on each
// reference's line this API's p50 over that reference's.
func WriteTable(w io.Writer, servers []string, rows []Row) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	line := func(request, answer, server, p50, p25, p75, p99, ratio string) {
		fmt.Fprintln(tw, strings.TrimRight(fmt.Sprintf("%s\t%s\t%s\t%7s %7s %7s %8s  %s", request, answer, server,
			p50, p25, p75, p99, ratio), " "))
	}
	line("request", "answer", "server", "p50", "p25", "p75", "p99", "ours/server p50")
	for _, r := range rows {
		for i, s := range r.Stats {
			request, answer, ratio := "", "", ""
			if i == 0 {
				request, answer = r.Name, fmt.Sprintf("%d of %d", len(r.Answer.IDs), r.Answer.Count)
			} else {
				ratio = fmt.Sprintf("%.2f", r.Ratio(i, 50))
			}
			line(request, answer, servers[i], ms(s.Percentile(50)), ms(s.Percentile(25)), ms(s.Percentile(75)),
				ms(s.Percentile(99)), ratio)
		}
	}
	return tw.Flush()
}

func ms(d time.Duration) string { return fmt.Sprintf("%.2f", float64(d)/float64(time.Millisecond)) }
