package main

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"
)

// InitTrace is where one cold start's init phase went, from the runtime's GODEBUG=inittrace=1 lines
// ("init <pkg> @<start> ms, <clock> ms clock, <bytes> bytes, <allocs> allocs"). Package init ends
// before main starts; the rest of the init phase, up to the first /next, is main's own set-up.
type InitTrace struct {
	PackagesDone time.Duration            // exec → the end of the last package init
	InitPhase    time.Duration            // exec → first /next
	ByPackage    map[string]time.Duration // clock time of each package's init
	Allocated    int64                    // bytes allocated by package inits
}

// TraceInit runs one cold start of b with GODEBUG=inittrace=1.
func TraceInit(ctx context.Context, b Bootstrap, s Settings, sc Scenario) (InitTrace, error) {
	traced := Settings{"GODEBUG": "inittrace=1"}
	for k, v := range s {
		traced[k] = v
	}
	// Start hands stdout and stderr to one copying goroutine, which is done when Stop returns.
	var logs bytes.Buffer
	p, err := Start(b, traced, &logs)
	if err != nil {
		return InitTrace{}, err
	}
	if _, err := invokeOnce(ctx, p, sc, 400_000); err != nil {
		p.Stop()
		return InitTrace{}, err
	}
	p.Stop()
	t := parseInitTrace(&logs)
	t.InitPhase = p.API.InitDone().Sub(p.Started)
	return t, nil
}

func parseInitTrace(r io.Reader) InitTrace {
	t := InitTrace{ByPackage: make(map[string]time.Duration)}
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		// init PKG @S ms, C ms clock, B bytes, A allocs
		if len(f) < 9 || f[0] != "init" || !strings.HasPrefix(f[2], "@") {
			continue
		}
		start, err1 := strconv.ParseFloat(strings.TrimPrefix(f[2], "@"), 64)
		clock, err2 := strconv.ParseFloat(f[4], 64)
		allocated, err3 := strconv.ParseInt(f[7], 10, 64)
		if err1 != nil || err2 != nil || err3 != nil {
			continue
		}
		t.ByPackage[f[1]] += msDuration(clock)
		t.Allocated += allocated
		t.PackagesDone = max(t.PackagesDone, msDuration(start+clock))
	}
	return t
}

func msDuration(ms float64) time.Duration { return time.Duration(ms * float64(time.Millisecond)) }

// printInitTrace shows, per bootstrap, how its init phase splits into package init and main, and the
// package inits that cost most.
func printInitTrace(ctx context.Context, out io.Writer, bins []Bootstrap, s Settings, scenarios []Scenario) error {
	fmt.Fprintln(out, "\ninit phase (one traced cold start each; GODEBUG=inittrace=1):")
	for k, b := range bins {
		t, err := TraceInit(ctx, b, s, scenarios[k])
		if err != nil {
			return err
		}
		var total time.Duration
		for _, d := range t.ByPackage {
			total += d
		}
		fmt.Fprintf(out,
			"  %-20s exec→/next %s: package inits done at %s (their own time %s, %d KiB allocated), then %s to "+
				"the first /next\n",
			b.Function, ms(t.InitPhase), ms(t.PackagesDone), ms(total), t.Allocated>>10, ms(t.InitPhase-t.PackagesDone))
		pkgs := slices.SortedFunc(maps.Keys(t.ByPackage),
			func(a, b string) int { return cmp.Compare(t.ByPackage[b], t.ByPackage[a]) })
		for _, pkg := range pkgs[:min(6, len(pkgs))] {
			fmt.Fprintf(out, "      %8s  %s\n", ms(t.ByPackage[pkg]), pkg)
		}
	}
	return nil
}
