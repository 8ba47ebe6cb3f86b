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

// Stats accumulates what was measured of one operation, request by request.
type Stats struct {
	samples      []time.Duration
	waited       []time.Duration // time with a DynamoDB exchange on the wire, per request
	sdk          []time.Duration // the SDK's time in the process, summed over the calls, per request
	perCall      map[string][]time.Duration
	perWire      map[string][]time.Duration // perCall's time on the wire
	callOrder    []string                   // perCall's keys, in order of first appearance
	minRT, maxRT int
	calls        int
	read, write  float64 // sums over the requests
}

// Add records one request: how long it took and the DynamoDB calls it made.
func (s *Stats) Add(d time.Duration, calls []Call) {
	rt := Sequential(calls)
	if len(s.samples) == 0 || rt < s.minRT {
		s.minRT = rt
	}
	s.maxRT = max(s.maxRT, rt)
	s.calls = max(s.calls, len(calls))
	for _, c := range calls {
		s.read += c.Read
		s.write += c.Write
	}
	s.samples = append(s.samples, d)
	var wire []Span
	var sdk time.Duration
	for _, c := range calls {
		wire = append(wire, c.Wire...)
		sdk += c.SDK()
	}
	s.waited = append(s.waited, covered(wire))
	s.sdk = append(s.sdk, sdk)
	if s.perCall == nil {
		s.perCall, s.perWire = map[string][]time.Duration{}, map[string][]time.Duration{}
	}
	for i, c := range byStart(calls) {
		key := fmt.Sprintf("%d %s", i+1, c.Op)
		if _, seen := s.perCall[key]; !seen {
			s.callOrder = append(s.callOrder, key)
		}
		s.perCall[key] = append(s.perCall[key], c.End.Sub(c.Start))
		s.perWire[key] = append(s.perWire[key], covered(c.Wire))
	}
}

// inFlight is how long at least one of the calls was in flight, parallel calls counted once.
func inFlight(calls []Call) time.Duration {
	spans := make([]Span, len(calls))
	for i, c := range calls {
		spans[i] = Span{c.Start, c.End}
	}
	return covered(spans)
}

// covered is how long at least one of the spans was open, overlapping ones counted once.
func covered(spans []Span) time.Duration {
	sorted := slices.Clone(spans)
	slices.SortFunc(sorted, func(a, b Span) int { return a.Start.Compare(b.Start) })
	var total time.Duration
	var end time.Time
	for _, sp := range sorted {
		switch {
		case sp.Start.After(end):
			total += sp.End.Sub(sp.Start)
			end = sp.End
		case sp.End.After(end):
			total += sp.End.Sub(end)
			end = sp.End
		}
	}
	return total
}

func byStart(calls []Call) []Call {
	sorted := slices.Clone(calls)
	slices.SortFunc(sorted, func(a, b Call) int { return a.Start.Compare(b.Start) })
	return sorted
}

// N is the number of requests recorded.
func (s *Stats) N() int { return len(s.samples) }

// Percentile is the nearest-rank p-th percentile (0 < p ≤ 100) of the requests' durations.
func (s *Stats) Percentile(p float64) time.Duration { return percentile(s.samples, p) }

func percentile(ds []time.Duration, p float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	sorted := slices.Clone(ds)
	slices.Sort(sorted)
	rank := int(math.Ceil(p / 100 * float64(len(sorted))))
	return sorted[min(max(rank, 1), len(sorted))-1]
}

// Own is the p-th percentile of what each request took apart from its waits for DynamoDB's answers on
// the wire (parallel exchanges counted once): the gateway, adapter, handler and the SDK's serializing,
// signing and decoding, the process's own work and its waits for a CPU.
func (s *Stats) Own(p float64) time.Duration {
	own := make([]time.Duration, len(s.samples))
	for i := range s.samples {
		own[i] = s.samples[i] - s.waited[i]
	}
	return percentile(own, p)
}

// RoundTrips is the fewest sequential round trips a request made. Against DynamoDB Local on loopback a
// call takes about a millisecond, so two calls made in parallel sometimes do not overlap on a busy
// machine and look sequential; the fewest is the operation's structure. MaxRoundTrips is the most seen.
func (s *Stats) RoundTrips() int    { return s.minRT }
func (s *Stats) MaxRoundTrips() int { return s.maxRT }

// Calls is the number of DynamoDB calls of a request (the most seen).
func (s *Stats) Calls() int { return s.calls }

// Units returns the read and write request units of a request, as AWS bills them (the mean).
func (s *Stats) Units() (read, write float64) {
	if len(s.samples) == 0 {
		return 0, 0
	}
	n := float64(len(s.samples))
	return s.read / n, s.write / n
}

// Row is one line of the table: an operation, or a baseline (no Target).
type Row struct {
	Name   string
	Stats  *Stats
	Allocs float64       // allocations per request
	Target time.Duration // the p50 to meet; zero for a baseline
	Rule   string        // how Target is made, e.g. "2 × GetItem + 1 ms"
	// Work is the p50 of the work of its own the target allows the operation (one argon2id hash for
	// login and user creation), which its own time (Stats.Own) is not held to.
	Work time.Duration
}

// Overhead is the row's own time (p50) beyond the work its target allows.
func (r Row) Overhead() time.Duration { return r.Stats.Own(50) - r.Work }

// Met tells whether the row's p50 is within its target.
func (r Row) Met() bool { return r.Target > 0 && r.Stats.Percentile(50) <= r.Target }

// Floor is what no code of ours can take off the row's p50: its waits for DynamoDB on the wire (p50)
// and the work its target allows.
func (r Row) Floor() time.Duration { return percentile(r.Stats.waited, 50) + r.Work }

// BelowFloor tells whether the row's target is under its floor: missed whatever the process did.
func (r Row) BelowFloor() bool { return r.Target > 0 && r.Floor() > r.Target }

// WriteTable prints the rows as an aligned table, then a line per operation whose round trips varied.
func WriteTable(w io.Writer, rows []Row) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw,
		"operation\tround trips\tcalls\tp50 ms\tp99 ms\tallocs/op\tRCU\tWCU\t$/million\ttarget ms\t(rule)\tp50/target\tmet\t")
	var varied []string
	for _, r := range rows {
		s := r.Stats
		read, write := s.Units()
		p50 := s.Percentile(50)
		target, rule, ratio, met := "-", "baseline", "-", "-"
		if r.Target > 0 {
			target, rule = ms(r.Target), r.Rule
			ratio = fmt.Sprintf("%.2f", float64(p50)/float64(r.Target))
			met = map[bool]string{true: "yes", false: "NO"}[r.Met()]
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%s\t%s\t%.0f\t%.1f\t%.1f\t%.3f\t%s\t%s\t%s\t%s\t\n",
			r.Name, s.RoundTrips(), s.Calls(), ms(p50), ms(s.Percentile(99)), r.Allocs,
			read, write, CostPerMillion(read, write), target, rule, ratio, met)
		if s.MaxRoundTrips() != s.RoundTrips() {
			varied = append(varied, fmt.Sprintf("%s %d–%d", r.Name, s.RoundTrips(), s.MaxRoundTrips()))
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(varied) > 0 {
		_, err := fmt.Fprintf(w, "round trips varied (parallel calls that did not overlap): %s\n", strings.Join(varied, "; "))
		return err
	}
	return nil
}

// WriteBreakdown prints where each row's time goes: the p50 of the time a request waited for DynamoDB's
// answers on the wire (parallel exchanges counted once); the p50 of the rest, its own time (Stats.Own),
// and of the SDK's part of it (summed over the calls, parallel ones too); and each call's p50 and its
// time on the wire, in the order the calls start.
func WriteBreakdown(w io.Writer, rows []Row) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "operation\tp50 ms\twire p50\town p50\t(SDK p50)\tcalls in start order: p50 ms (on the wire)")
	for _, r := range rows {
		s := r.Stats
		var calls []string
		for _, key := range s.callOrder {
			d := s.perCall[key]
			note := ""
			if len(d) < len(s.samples) {
				note = fmt.Sprintf(", %d of %d", len(d), len(s.samples))
			}
			calls = append(calls,
				fmt.Sprintf("%s %s (%s%s)", key, ms(percentile(d, 50)), ms(percentile(s.perWire[key], 50)), note))
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", r.Name, ms(s.Percentile(50)), ms(percentile(s.waited, 50)),
			ms(s.Own(50)), ms(percentile(s.sdk, 50)), strings.Join(calls, ", "))
	}
	return tw.Flush()
}

func ms(d time.Duration) string { return fmt.Sprintf("%.2f", float64(d)/float64(time.Millisecond)) }
