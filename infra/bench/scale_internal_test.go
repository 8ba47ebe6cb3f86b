package bench

import (
	"os"
	"strings"
	"testing"
	"time"
)

// sized is a row of list at size n whose one request took p50 and made rt sequential calls of read
// units each.
func sized(list string, n int, p50 time.Duration, rt int, read float64) ScaleRow {
	s := &Stats{}
	var calls []Call
	for i := range rt {
		c := at(i, i+1)
		c.Read = read / float64(rt)
		calls = append(calls, c)
	}
	s.Add(p50, calls)
	return ScaleRow{List: list, Held: true, N: n, Stats: s}
}

// TestScaleGoals: a list meets SPEC §11's goals when its round trips and read units stay within ±10%
// and its p50 within 1.5× from the smallest size to the largest, whatever the order of the rows.
func TestScaleGoals(t *testing.T) {
	ms := time.Millisecond
	rows := []ScaleRow{
		sized("flat", 100_000, 14*ms, 2, 2.2), sized("flat", 100, 10*ms, 2, 2),
		sized("slow", 100, 10*ms, 2, 2), sized("slow", 100_000, 16*ms, 2, 2),
		sized("reads more", 100, 10*ms, 2, 2), sized("reads more", 100_000, 10*ms, 2, 2.3),
		sized("more trips", 100, 10*ms, 2, 2), sized("more trips", 100_000, 10*ms, 3, 2),
		{List: "failed", Held: true, N: 100_000, Stats: &Stats{}, Failed: "503 after 60.0 s"},
		sized("failed", 100, 10*ms, 2, 2),
		{List: "middle page", N: 100, Stats: &Stats{}},
	}
	var out strings.Builder
	if err := WriteScaleGoals(&out, rows); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"flat: N=100 → 100000: round trips 2 → 2 ok; RCU 2.0 → 2.2 ok; p50 10.00 → 14.00 ms (×1.40) ok",
		"slow: N=100 → 100000: round trips 2 → 2 ok; RCU 2.0 → 2.0 ok; p50 10.00 → 16.00 ms (×1.60) NO",
		"reads more: N=100 → 100000: round trips 2 → 2 ok; RCU 2.0 → 2.3 NO;",
		"more trips: N=100 → 100000: round trips 2 → 3 NO;",
		"failed: N=100 → 100000: NO, 503 after 60.0 s at N=100000",
		"met by 1 of 5 lists",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("goals lack %q:\n%s", want, out.String())
		}
	}
	if strings.Contains(out.String(), "middle page") {
		t.Errorf("a page the goals do not hold is judged:\n%s", out.String())
	}
}

// TestDrawScale: every line of a chart is named in its legend, a failed size is left out of its line,
// and the file is an SVG.
func TestDrawScale(t *testing.T) {
	ms := time.Millisecond
	var rows []ScaleRow
	for i, n := range []int{100, 10_000, 100_000} {
		flat, rising := sized("flat", n, 10*ms, 2, 2), sized("rising", n, time.Duration(10*(i*i*10+1))*ms, 2, 2)
		flat.Label, flat.Series, rising.Label, rising.Series = "flat, page 1", "flat", "rising, page=last", "rising"
		rows = append(rows, flat, rising)
	}
	rows[5].Failed = "503 after 60.0 s"
	path := t.TempDir() + "/chart.svg"
	if err := DrawScale(path, "lists", rows); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"<svg", "flat, page 1", "rising, page=last", "lists"} {
		if !strings.Contains(string(raw), want) {
			t.Errorf("the chart lacks %q", want)
		}
	}
	if err := DrawScale(path, "nothing", rows[5:]); err == nil {
		t.Error("a chart of nothing measured was drawn")
	}
}
