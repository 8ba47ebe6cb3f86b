package main

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

func TestProgressLineTellsCountRateAndTimeLeft(t *testing.T) {
	tests := []struct {
		written, total int
		elapsed        time.Duration
		want           string
	}{
		{0, 100000, 0, "0 of 100000 entries (0%)"},
		{0, 100000, time.Second, "0 of 100000 entries (0%)"},
		{25000, 100000, 50 * time.Second, "25000 of 100000 entries (25%), 500/s, 2m30s left"},
		{100000, 100000, 200 * time.Second, "100000 of 100000 entries (100%), 500/s, 0s left"},
		{0, 0, time.Second, "0 of 0 entries"},
	}
	for _, tt := range tests {
		if got := progressLine(tt.written, tt.total, tt.elapsed); got != tt.want {
			t.Errorf("progressLine(%d, %d, %v) = %q, want %q", tt.written, tt.total, tt.elapsed, got, tt.want)
		}
	}
}

// Not a terminal (a pipe, a file, a CI log): whole lines, never a carriage return, and the last one
// tells every entry written.
func TestMeterWritesPlainLinesWhenNotATerminal(t *testing.T) {
	var out bytes.Buffer
	m := startMeter(&out, 3)
	if m.terminal {
		t.Fatal("a bytes.Buffer taken for a terminal")
	}
	m.wrote(1)
	m.wrote(2)
	m.finish()
	got := out.String()
	if strings.ContainsAny(got, "\r\033") {
		t.Errorf("plain output %q rewrites lines", got)
	}
	lines := strings.Split(strings.TrimSuffix(got, "\n"), "\n")
	if last := lines[len(lines)-1]; !strings.HasPrefix(last, "3 of 3 entries (100%)") {
		t.Errorf("last line %q, want it to start with %q", last, "3 of 3 entries (100%)")
	}
}
