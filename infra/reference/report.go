package main

import (
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/reportingplatform/api/infra/bench"
)

// Row is one request of the run, measured on both sides.
type Row struct {
	Name   string
	Answer Page // what both sides answered (they matched)
	Ours   *bench.Stats
	Ref    *bench.Stats
}

// Ratio is ours / the reference's at the p-th percentile (0 when the reference has no samples).
func (r Row) Ratio(p float64) float64 {
	ref := r.Ref.Percentile(p)
	if ref == 0 {
		return 0
	}
	return float64(r.Ours.Percentile(p)) / float64(ref)
}

// WriteTable prints one line per request: both sides' p50, p25, p75 and p99, and ours/DRF at the p50.
func WriteTable(w io.Writer, rows []Row) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "request\tanswer\tours p50\tp25\tp75\tp99\tDRF p50\tp25\tp75\tp99\tours/DRF p50\t")
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t%d of %d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%.2f\t\n", r.Name, len(r.Answer.IDs), r.Answer.Count,
			ms(r.Ours.Percentile(50)), ms(r.Ours.Percentile(25)), ms(r.Ours.Percentile(75)), ms(r.Ours.Percentile(99)),
			ms(r.Ref.Percentile(50)), ms(r.Ref.Percentile(25)), ms(r.Ref.Percentile(75)), ms(r.Ref.Percentile(99)),
			r.Ratio(50))
	}
	return tw.Flush()
}

func ms(d time.Duration) string { return fmt.Sprintf("%.2f", float64(d)/float64(time.Millisecond)) }
