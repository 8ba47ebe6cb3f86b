package bench_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/reportingplatform/api/infra/bench"
	"github.com/reportingplatform/api/infra/gateway"
	"github.com/reportingplatform/api/infra/testkit"
)

// BenchmarkScale is `make scale` (SPEC §11): every list measured at each size of SCALE_SIZES (default
// 100, 10,000 and 100,000 items in the caller's scope), each size in a fresh table (scaleWorld). It
// prints, per list and size, the count in scope, the p50 of 30 warm requests, the sequential DynamoDB
// round trips and the read units per request, then whether page 1's and page=last's costs stayed
// within SPEC §11's goals from the smallest size to the largest; it writes the table into
// docs/PERFORMANCE.md and draws p50 against N in docs/scale-*.svg. It reports the goals and fails only
// when a list's count is not what was loaded. Run it with -benchtime=1x: each size is measured once.
func BenchmarkScale(b *testing.B) {
	sizes, err := scaleSizes(os.Getenv("SCALE_SIZES"))
	if err != nil {
		b.Fatal(err)
	}
	start := time.Now()
	var (
		rows  []bench.ScaleRow
		walks []bench.WalkRow
	)
	for _, n := range sizes {
		ok := b.Run(fmt.Sprintf("N=%d", n), func(b *testing.B) {
			r, w := makeScale.measure(b, n)
			rows, walks = append(rows, r...), append(walks, w...)
		})
		// After every size, so that a run stopped during a large one leaves the smaller ones' figures.
		reportScale(b, byList(rows), walks, time.Since(start))
		if !ok {
			return
		}
	}
}

// reportScale prints the rows and walks of the sizes measured, writes them into docs/PERFORMANCE.md
// and draws the rows.
func reportScale(b *testing.B, rows []bench.ScaleRow, walks []bench.WalkRow, took time.Duration) {
	if len(rows) == 0 {
		return
	}
	var report strings.Builder
	out := io.MultiWriter(os.Stdout, &report)
	fmt.Fprintf(out,
		"\nLists through API Gateway event → adapter → handler → DynamoDB Local at %s, GOMAXPROCS %d; %s\n",
		os.Getenv("DYNAMODB_ENDPOINT"), runtime.GOMAXPROCS(0), bench.ScaleSummary(rows, makeScale.samples, took))
	if err := bench.WriteScaleTable(out, rows); err != nil {
		b.Fatal(err)
	}
	fmt.Fprintln(out)
	if err := bench.WriteScaleGoals(out, rows); err != nil {
		b.Fatal(err)
	}
	fmt.Fprintf(out, "RCU: read request units per request as AWS bills them (bench.Billed). A list is timed at a size "+
		"until its requests there, warm-ups included, took %s: the requests column says how many were\n\n", makeScale.budget)
	if err := bench.WriteWalkTable(out, slices.SortedStableFunc(slices.Values(walks), func(a, b bench.WalkRow) int {
		return strings.Compare(a.List, b.List)
	})); err != nil {
		b.Fatal(err)
	}
	fmt.Fprintf(out, "A walk follows the next links from page 1 to the end, its requests one after another; it stops "+
		"when they took %s\n\n", makeScale.walkBudget)
	writeSection(b, "scale", report.String())
	drawScale(b, rows)
}

// drawScale draws each chart's rows into docs/scale-<chart>.svg.
func drawScale(b *testing.B, rows []bench.ScaleRow) {
	template, err := gateway.FindTemplate()
	if err != nil {
		b.Fatal(err)
	}
	for _, chart := range []string{"comments", "invitations"} {
		var of []bench.ScaleRow
		for _, r := range rows {
			if r.Chart == chart {
				of = append(of, r)
			}
		}
		path := filepath.Join(filepath.Dir(template), "docs", "scale-"+chart+".svg")
		title := fmt.Sprintf("%s: p50 against items in scope (make scale, %s UTC)", strings.ToUpper(chart[:1])+chart[1:],
			time.Now().UTC().Format("2006-01-02 15:04"))
		if err := bench.DrawScale(path, title, of); err != nil {
			b.Fatal(err)
		}
		fmt.Printf("drawn to %s\n", path)
	}
}

// TestScaleHarness runs `make scale`'s measurement at a tiny size, so that the harness keeps working
// between runs of it: every list answers 200 with the count that was loaded (measure checks it), is
// timed, and has its line in the table; the goals and the chart are made from what was measured.
func TestScaleHarness(t *testing.T) {
	const n = 20
	run := scaleRun{warmUps: 1, samples: 2, budget: time.Minute, walkPageSize: 6, walkBudget: time.Minute}
	rows, walks := run.measure(t, n)
	var table strings.Builder
	if err := bench.WriteScaleTable(&table, rows); err != nil {
		t.Fatal(err)
	}
	lists := (&scaleWorld{n: n}).lists()
	if len(rows) != len(lists) {
		t.Fatalf("%d rows for %d lists", len(rows), len(lists))
	}
	for i, l := range lists {
		r := rows[i]
		if r.Failed != "" || r.Stats.N() != run.samples || r.N != n {
			t.Errorf("%s: failed %q, %d requests timed at N=%d; want none failed, %d at N=%d", l.name, r.Failed,
				r.Stats.N(), r.N, run.samples, n)
		}
		if read, _ := r.Stats.Units(); r.Stats.RoundTrips() < 1 || read <= 0 {
			t.Errorf("%s: %d round trips, %v read units: the calls were not recorded", l.name, r.Stats.RoundTrips(), read)
		}
		if !strings.Contains(table.String(), l.name) {
			t.Errorf("the table has no line for %s:\n%s", l.name, table.String())
		}
	}
	var goals strings.Builder
	if err := bench.WriteScaleGoals(&goals, rows); err != nil {
		t.Fatal(err)
	}
	if goals.String() != "SPEC §11 goals: a run of one size (N=[20]) has nothing to compare\n" {
		t.Errorf("goals of a run of one size:\n%s", goals.String())
	}
	scopes := (&scaleWorld{n: n}).scopes()
	if len(walks) != len(scopes) {
		t.Fatalf("%d walks for %d lists", len(walks), len(scopes))
	}
	counts := map[string]int{} // by list, as page 1 answered
	for _, r := range rows {
		counts[r.List] = r.Count
	}
	for i, w := range walks {
		count := counts[scopes[i].what+", page 1"]
		if want := (count + 5) / 6; w.List != scopes[i].what || w.Stopped != "" || w.Count != count ||
			w.Pages != want || w.RoundTrips < w.Pages || w.Read <= 0 {
			t.Errorf("walk %+v: want %d items in %d pages, their calls recorded", w, count, want)
		}
	}
	var walkTable strings.Builder
	if err := bench.WriteWalkTable(&walkTable, walks); err != nil || !strings.Contains(walkTable.String(), scopes[0].what) {
		t.Errorf("walk table: %v\n%s", err, walkTable.String())
	}
	svg := filepath.Join(t.TempDir(), "comments.svg")
	if err := bench.DrawScale(svg, "comments", rows[:4]); err != nil {
		t.Fatal(err)
	}
	if raw, err := os.ReadFile(svg); err != nil || !strings.Contains(string(raw), "<svg") {
		t.Fatalf("chart: %v %.100s", err, raw)
	}
}

// scaleRun is how a run measures each list at a size.
type scaleRun struct {
	warmUps, samples int
	// budget is the time a list's requests may take at one size, warm-ups included: past it, the list
	// is timed no more there (a list that reads its whole scope can take seconds a request).
	budget time.Duration
	// A walk asks for pages of walkPageSize and stops once its requests took walkBudget.
	walkPageSize int
	walkBudget   time.Duration
}

// makeScale is `make scale`'s run.
var makeScale = scaleRun{warmUps: 3, samples: 30, budget: time.Minute, walkPageSize: 100, walkBudget: 2 * time.Minute}

// measure loads a scaleWorld of size n, measures its lists' pages (pages) and walks them (walk).
func (run scaleRun) measure(tb testing.TB, n int) ([]bench.ScaleRow, []bench.WalkRow) {
	s := newScaleWorld(tb, n)
	rows := run.pages(tb, s)
	var walks []bench.WalkRow
	for _, c := range s.scopes() {
		walks = append(walks, run.walk(tb, s, c))
	}
	return rows, walks
}

// walk follows the next links of c's list from page 1 to the end (or until walkBudget), one request
// after another, and checks that it returned every item once.
func (run scaleRun) walk(tb testing.TB, s *scaleWorld, c scope) bench.WalkRow {
	row := bench.WalkRow{List: c.what, N: s.n}
	seen := map[string]bool{}
	for path := c.path(fmt.Sprintf("page_size=%d", run.walkPageSize)); path != ""; {
		if row.Took > run.walkBudget {
			row.Stopped = fmt.Sprintf("stopped after %s", run.walkBudget)
			break
		}
		took, calls, rr := s.send(path, c.token)
		row.Pages++
		row.Took += took
		row.RoundTrips += bench.Sequential(calls)
		for _, call := range calls {
			row.Read += call.Read
		}
		if rr.Code != 200 {
			row.Stopped = "page " + failure(rr.Code, took)
			break
		}
		var page struct {
			Next    *string
			Results []struct{ ID string }
		}
		if err := json.Unmarshal(rr.Body.Bytes(), &page); err != nil {
			tb.Fatalf("%s: %v", path, err)
		}
		for _, r := range page.Results {
			if seen[r.ID] {
				tb.Errorf("N=%d, walk of %s: %s returned twice", s.n, c.what, r.ID)
			}
			seen[r.ID] = true
		}
		path = ""
		if page.Next != nil {
			u, err := url.Parse(*page.Next)
			if err != nil {
				tb.Fatalf("%s: next %q: %v", c.what, *page.Next, err)
			}
			path = u.RequestURI()
		}
	}
	row.Count = len(seen)
	if row.Stopped == "" && row.Count != c.count {
		tb.Errorf("N=%d, walk of %s: %d items, want %d (loaded)", s.n, c.what, row.Count, c.count)
	}
	return row
}

// pages sends each list's warm-ups (through testkit.Do, which checks the answers against openapi.yaml,
// and which must count what was loaded), then times the lists in rounds of one request each, so that a
// machine that slows down during the run slows every list alike.
func (run scaleRun) pages(tb testing.TB, s *scaleWorld) []bench.ScaleRow {
	n := s.n
	lists := s.lists()
	rows := make([]bench.ScaleRow, len(lists))
	spent := make([]time.Duration, len(lists))
	for i, l := range lists {
		rows[i] = bench.ScaleRow{List: l.name, Chart: l.chart, Label: l.label, Series: l.series, Held: l.held, N: n,
			Stats: &bench.Stats{}}
		// A list that takes a quarter of its budget to warm up is warm: it spends its time reading.
		for w := 0; w < run.warmUps && spent[i] <= run.budget/4; w++ {
			start := time.Now()
			resp := testkit.Do(tb, s.gw, testkit.Request{Method: "GET", Path: l.path, Token: l.token})
			took := time.Since(start)
			spent[i] += took
			if resp.Status != 200 {
				rows[i].Failed = failure(resp.Status, took)
				break
			}
			var page struct{ Count int }
			if err := json.Unmarshal(resp.Body, &page); err != nil {
				tb.Fatalf("%s: %v", l.name, err)
			}
			rows[i].Count = page.Count
		}
		if rows[i].Failed == "" && rows[i].Count != l.count {
			tb.Errorf("N=%d, %s: count %d, want %d (loaded)", n, l.name, rows[i].Count, l.count)
		}
	}
	runtime.GC()
	for range run.samples {
		for i, l := range lists {
			if rows[i].Failed != "" || spent[i] > run.budget {
				continue
			}
			took, status := s.time(l, rows[i].Stats)
			spent[i] += took
			if status != 200 {
				rows[i].Failed = failure(status, took)
			}
		}
	}
	for i := range rows {
		if rows[i].Failed == "" && rows[i].Stats.N() == 0 {
			rows[i].Failed = "untimed"
		}
	}
	return rows
}

// failure names a list's failed request: its status, and its time, which tells a request that ran
// out of its budget (testkit.TestBudget) from one refused.
func failure(status int, took time.Duration) string {
	return fmt.Sprintf("%d after %.1f s", status, took.Seconds())
}

// time sends one request of the list and records it in stats when it succeeds.
func (s *scaleWorld) time(l scaleList, stats *bench.Stats) (time.Duration, int) {
	took, calls, rr := s.send(l.path, l.token)
	if rr.Code == 200 {
		stats.Add(took, calls)
	}
	return took, rr.Code
}

// send sends one GET, timing the gateway's ServeHTTP alone, and returns the DynamoDB calls it made.
func (s *scaleWorld) send(path, token string) (time.Duration, []bench.Call, *httptest.ResponseRecorder) {
	r, rr := testkit.Request{Method: "GET", Path: path, Token: token}.HTTP(), httptest.NewRecorder()
	s.rec.Reset()
	start := time.Now()
	s.gw.ServeHTTP(rr, r)
	took := time.Since(start)
	return took, s.rec.Calls(), rr
}

// byList orders rows (measured size by size) list by list, sizes in the order measured.
func byList(rows []bench.ScaleRow) []bench.ScaleRow {
	var order []string
	for _, r := range rows {
		if !slices.Contains(order, r.List) {
			order = append(order, r.List)
		}
	}
	return slices.SortedStableFunc(slices.Values(rows), func(a, b bench.ScaleRow) int {
		return slices.Index(order, a.List) - slices.Index(order, b.List)
	})
}

// scaleSizes reads SCALE_SIZES: sizes separated by commas, each at least twice others; empty means
// SPEC §11's three.
func scaleSizes(env string) ([]int, error) {
	if strings.TrimSpace(env) == "" {
		return []int{100, 10_000, 100_000}, nil
	}
	var sizes []int
	for _, field := range strings.Split(env, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(strings.ReplaceAll(field, "_", "")))
		if err != nil || n < 2*others {
			return nil, fmt.Errorf("SCALE_SIZES=%q: %q is not a size of at least %d", env, field, 2*others)
		}
		sizes = append(sizes, n)
	}
	return sizes, nil
}
