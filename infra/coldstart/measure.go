package main

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"slices"
	"text/tabwriter"
	"time"
)

// invokeOnce sends the scenario's i-th event and checks the status of the answer.
func invokeOnce(ctx context.Context, p *Process, sc Scenario, i int) (Result, error) {
	payload, err := sc.Next(i)
	if err != nil {
		return Result{}, err
	}
	ctx, cancel := context.WithTimeout(ctx, functionTimeout)
	defer cancel()
	res, err := p.API.Invoke(ctx, payload)
	if err != nil {
		return res, fmt.Errorf("%w\n--- output of %s:\n%s", err, sc.Function, p.Output())
	}
	resp, err := ProxyResponse(res)
	if err != nil {
		return res, fmt.Errorf("%s: %w\n--- output:\n%s", sc.Function, err, p.Output())
	}
	if resp.StatusCode != sc.Status {
		return res, fmt.Errorf("%s: status %d, want %d: %.300s", sc.Function, resp.StatusCode, sc.Status, resp.Body)
	}
	return res, nil
}

// ColdSample is one cold start: exec → first /next (init), exec → the first answer, and the CPU time
// the process had used by then.
type ColdSample struct {
	Init, First, CPU time.Duration
	Faults           int64
}

// ColdStart execs a fresh process, sends it its first event and kills it: exec → first response is
// what a client waiting on a cold Lambda pays beyond the Lambda service's own part.
func ColdStart(ctx context.Context, b Bootstrap, s Settings, sc Scenario, i int) (ColdSample, error) {
	p, err := Start(b, s, nil)
	if err != nil {
		return ColdSample{}, err
	}
	defer p.Stop()
	res, err := invokeOnce(ctx, p, sc, i)
	if err != nil {
		return ColdSample{}, err
	}
	cpu, err := p.CPUTime()
	if err != nil {
		return ColdSample{}, err
	}
	faults, err := p.Faults()
	if err != nil {
		return ColdSample{}, err
	}
	return ColdSample{Init: p.API.InitDone().Sub(p.Started), First: res.Received.Sub(p.Started), CPU: cpu,
		Faults: faults}, nil
}

// Warm times n invocations of an already started process, each from handing the event over to the
// answer: the work a warm invocation costs, Runtime API round trip included (as in the cold time).
func Warm(ctx context.Context, p *Process, sc Scenario, first, n int) ([]time.Duration, error) {
	out := make([]time.Duration, 0, n)
	for i := range n {
		start := time.Now()
		res, err := invokeOnce(ctx, p, sc, first+i)
		if err != nil {
			return nil, err
		}
		out = append(out, res.Received.Sub(start))
	}
	return out, nil
}

// Median of xs (which it sorts).
func Median[T cmp.Ordered](xs []T) T {
	return Percentile(xs, 50)
}

// Percentile is the nearest-rank percentile of xs (which it sorts); 0 for none.
func Percentile[T cmp.Ordered](xs []T, pct int) T {
	if len(xs) == 0 {
		var zero T
		return zero
	}
	slices.Sort(xs)
	rank := (pct*len(xs) + 99) / 100
	return xs[max(rank, 1)-1]
}

// Row is one line of the report.
type Row struct {
	Function  string
	Size      int64
	Init      time.Duration // median exec → first /next
	FirstCall time.Duration // median first /next → first response
	Cold      time.Duration // median exec → first response
	ColdP90   time.Duration
	Warm      time.Duration // median warm invocation
	WarmP90   time.Duration
	PeakRSS   int64         // after the warm invocations
	ColdCPU   time.Duration // median CPU time of exec → first response
	WarmCPU   time.Duration // mean CPU time of a warm invocation
	Faults    int64         // median page faults of exec → first response
}

// Penalty is what the first invocation costs beyond a warm one.
func (r Row) Penalty() time.Duration { return r.Cold - r.Warm }

// PenaltyTarget is the cold-start target: a function's cold penalty at most this times the hello-world's.
const PenaltyTarget = 1.5

// PrintTable writes the report; rows are compared with the HelloWorld row measured in the same run.
func PrintTable(w io.Writer, rows []Row) {
	var base Row
	for _, r := range rows {
		if r.Function == HelloWorld {
			base = r
		}
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw,
		"function\tsize\tinit\t1st call\tcold p50\tcold p90\twarm p50\twarm p90\tcold penalty\t÷ "+
			"hello's\ttarget\tpeak RSS\tCPU cold\tCPU warm\tfaults cold\t")
	for _, r := range rows {
		ratio, verdict := "-", "-"
		if base.Penalty() > 0 && r.Function != HelloWorld {
			x := float64(r.Penalty()) / float64(base.Penalty())
			ratio = fmt.Sprintf("%.2f×", x)
			verdict = "ok"
			if x > PenaltyTarget {
				verdict = "MISS"
			}
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%d\t\n", r.Function, mib(r.Size),
			ms(r.Init), ms(r.FirstCall), ms(r.Cold), ms(r.ColdP90),
			ms(r.Warm), ms(r.WarmP90), ms(r.Penalty()), ratio, verdict, mib(r.PeakRSS), ms(r.ColdCPU), ms(r.WarmCPU), r.Faults)
	}
	_ = tw.Flush()
}

func ms(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d)/float64(time.Millisecond)) }

func mib(n int64) string {
	if n == 0 {
		return "-"
	}
	return fmt.Sprintf("%.2f MiB", float64(n)/(1<<20))
}
