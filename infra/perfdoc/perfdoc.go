// Package perfdoc writes a measuring command's figures into its own section of docs/PERFORMANCE.md:
// `make bench`, `make scale` and `make coldstart` each regenerate theirs, between <!-- name:begin --> and
// <!-- name:end -->, so that none overwrites another and the hand-written text around them stays.
// Each section says when and on what machine it was measured: the figures mean little without it.
package perfdoc

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"
)

// Path is the document, relative to the module root.
const Path = "docs/PERFORMANCE.md"

// Write puts figures (a command's printed report) into the named section of the document at path,
// dated at and with this machine's description, creating the document if it does not exist.
func Write(path, name string, at time.Time, figures string) error {
	old, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		old, err = []byte("# Performance\n"), nil
	}
	if err != nil {
		return err
	}
	doc, err := Replace(string(old), name, Section(name, at, Machine(), figures))
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, []byte(doc), 0o644)
}

// Section is the named section: its markers around the date, the machine and the figures verbatim.
func Section(name string, at time.Time, machine, figures string) string {
	begin, end := markers(name)
	return fmt.Sprintf("%s\nMeasured by `make %s` on %s UTC: %s.\n\n```text\n%s\n```\n%s",
		begin, name, at.UTC().Format("2006-01-02 15:04"), machine, strings.Trim(figures, "\n"), end)
}

// Replace returns doc with its named section replaced by section, or with section appended when doc has
// none. A marker without its partner is an error: guessing where the section ends could eat text.
func Replace(doc, name, section string) (string, error) {
	begin, end := markers(name)
	i, j := strings.Index(doc, begin), strings.Index(doc, end)
	switch {
	case i < 0 && j < 0:
		return strings.TrimRight(doc, "\n") + "\n\n" + section + "\n", nil
	case i < 0 || j < i || strings.Count(doc, begin) > 1 || strings.Count(doc, end) > 1:
		return "", fmt.Errorf("the markers %s and %s are not one pair in that order", begin, end)
	}
	return doc[:i] + section + doc[j+len(end):], nil
}

func markers(name string) (begin, end string) {
	return "<!-- " + name + ":begin -->", "<!-- " + name + ":end -->"
}

// Machine describes this machine as the figures depend on it: CPUs, CPU model, memory, Go version.
func Machine() string {
	model, memory := "unknown CPU", "unknown memory"
	if v := procField("/proc/cpuinfo", "model name"); v != "" {
		model = v
	}
	if v := procField("/proc/meminfo", "MemTotal"); v != "" {
		if kib, err := strconv.ParseFloat(strings.TrimSuffix(v, " kB"), 64); err == nil {
			memory = fmt.Sprintf("%.1f GiB memory", kib/(1<<20))
		}
	}
	return fmt.Sprintf("%d CPUs (%s), %s, %s %s/%s", runtime.NumCPU(), model, memory,
		runtime.Version(), runtime.GOOS, runtime.GOARCH)
}

// procField is the value of the first "key: value" line of a /proc file with that key, or "".
func procField(path, key string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		if k, v, ok := strings.Cut(s.Text(), ":"); ok && strings.TrimSpace(k) == key {
			return strings.TrimSpace(v)
		}
	}
	return ""
}
