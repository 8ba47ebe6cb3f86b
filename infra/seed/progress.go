package main

import (
	"fmt"
	"io"
	"os"
	"sync"
	"sync/atomic"
	"time"
)

// How often the meter tells progress: on a terminal often, rewriting its line in place; in a log
// (plain lines, one per report) seldom enough to stay readable over a load of minutes.
const (
	terminalEvery = 250 * time.Millisecond
	plainEvery    = 5 * time.Second
)

// meter tells a load's progress on out: entries written of the total, rate and time left.
type meter struct {
	out      io.Writer
	terminal bool
	total    int
	start    time.Time
	written  atomic.Int64
	stop     chan struct{}
	done     sync.WaitGroup
}

// startMeter starts telling progress every so often until finish.
func startMeter(out io.Writer, total int) *meter {
	m := &meter{out: out, terminal: isTerminal(out), total: total, start: time.Now(), stop: make(chan struct{})}
	every := plainEvery
	if m.terminal {
		every = terminalEvery
	}
	m.done.Add(1)
	go func() {
		defer m.done.Done()
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-m.stop:
				return
			case <-t.C:
				m.report()
			}
		}
	}()
	return m
}

// wrote is the load's Progress.
func (m *meter) wrote(n int) { m.written.Add(int64(n)) }

// finish stops the reports, ends a terminal's line with the last count and returns the time taken.
func (m *meter) finish() time.Duration {
	close(m.stop)
	m.done.Wait()
	m.report()
	if m.terminal {
		fmt.Fprintln(m.out)
	}
	return time.Since(m.start)
}

func (m *meter) report() {
	line := progressLine(int(m.written.Load()), m.total, time.Since(m.start))
	if m.terminal {
		fmt.Fprintf(m.out, "\r\033[K%s", line) // back to the start of the line, and clear it
		return
	}
	fmt.Fprintln(m.out, line)
}

// progressLine is one report: "1200 of 100000 entries (1%), 400/s, 4m7s left".
func progressLine(written, total int, elapsed time.Duration) string {
	line := fmt.Sprintf("%d of %d entries", written, total)
	if total > 0 {
		line += fmt.Sprintf(" (%d%%)", written*100/total)
	}
	rate := perSecond(written, elapsed)
	if rate <= 0 {
		return line
	}
	left := time.Duration(float64(total-written) / rate * float64(time.Second))
	return line + fmt.Sprintf(", %.0f/s, %s left", rate, left.Round(time.Second))
}

// perSecond is n over elapsed, 0 when no time has passed.
func perSecond(n int, elapsed time.Duration) float64 {
	if elapsed <= 0 {
		return 0
	}
	return float64(n) / elapsed.Seconds()
}

// isTerminal reports whether out is a terminal (a character device), where a line can be rewritten.
func isTerminal(out io.Writer) bool {
	f, ok := out.(*os.File)
	if !ok {
		return false
	}
	info, err := f.Stat()
	return err == nil && info.Mode()&os.ModeCharDevice != 0
}
