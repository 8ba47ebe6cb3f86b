package perfdoc_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/reportingplatform/api/infra/perfdoc"
	"github.com/reportingplatform/api/infra/testkit"
)

func TestMain(m *testing.M) { testkit.Main(m) }

var at = time.Date(2026, 11, 26, 5, 0, 0, 0, time.UTC)

// TestWriteKeepsTheRestOfTheDocument rewrites one section twice and holds everything outside it, the
// other command's section included, to what it was.
func TestWriteKeepsTheRestOfTheDocument(t *testing.T) {
	path := filepath.Join(t.TempDir(), "docs", "PERFORMANCE.md")
	if err := perfdoc.Write(path, "bench", at, "first bench\n"); err != nil {
		t.Fatal(err)
	}
	if err := perfdoc.Write(path, "coldstart", at, "coldstart figures"); err != nil {
		t.Fatal(err)
	}
	before := read(t, path)
	edited := strings.Replace(before, "# Performance\n", "# Performance\n\nWritten by hand.\n", 1) +
		"\nHand-written tail.\n"
	if err := os.WriteFile(path, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := perfdoc.Write(path, "bench", at.Add(time.Hour), "second bench"); err != nil {
		t.Fatal(err)
	}
	want := strings.Replace(edited, perfdoc.Section("bench", at, perfdoc.Machine(), "first bench"),
		perfdoc.Section("bench", at.Add(time.Hour), perfdoc.Machine(), "second bench"), 1)
	if got := read(t, path); got != want || got == edited {
		t.Errorf("after rewriting the bench section:\n%s\nwant:\n%s", got, want)
	}
	for _, s := range []string{"Written by hand.", "Hand-written tail.", "coldstart figures", "second bench",
		"2026-11-26 06:00 UTC", "```text\nsecond bench\n```"} {
		if !strings.Contains(read(t, path), s) {
			t.Errorf("the document lacks %q", s)
		}
	}
	if strings.Contains(read(t, path), "first bench") {
		t.Error("the old bench figures are still there")
	}
}

func TestReplaceRefusesUnpairedMarkers(t *testing.T) {
	section := perfdoc.Section("bench", at, "m", "x")
	for _, doc := range []string{
		"a\n<!-- bench:begin -->\nno end\n",
		"a\n<!-- bench:end -->\n<!-- bench:begin -->\n",
		section + "\n" + section,
	} {
		if got, err := perfdoc.Replace(doc, "bench", section); err == nil {
			t.Errorf("Replace(%q) = %q, want an error", doc, got)
		}
	}
}

func TestMachineNamesTheGoVersionAndCPUs(t *testing.T) {
	m := perfdoc.Machine()
	if !strings.Contains(m, "CPUs (") || !strings.Contains(m, "go1.") {
		t.Errorf("Machine() = %q", m)
	}
}

func read(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
