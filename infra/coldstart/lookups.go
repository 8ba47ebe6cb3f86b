package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// A cold start makes no file, profile or metadata lookups when the environment already gives region
// and credentials (shared/awsenv). Timings cannot show a lookup that fails fast (a missing ~/.aws/config
// costs little here and a little more on Lambda's filesystem), so this asks the kernel: one cold start
// of each bootstrap under strace, listing every file it opened and every address it connected to,
// apart from what any Go program opens (/proc, /sys: the runtime's cgroup and huge page probes) and
// the Runtime API itself. IMDS would show as a connect to 169.254.169.254.

var (
	straceOpen    = regexp.MustCompile(`open(?:at)?\((?:AT_FDCWD, )?"([^"]+)".*\) = (-?\d+)(?: (\w+))?`)
	straceConnect = regexp.MustCompile(`connect\(\d+, \{sa_family=AF_INET6?, sin6?_port=htons\((\d+)\), ` +
		`(?:sin_addr=inet_addr\("([^"]+)"\)|.*inet_pton\(AF_INET6, "([^"]+)")`)
)

// TraceLookups returns what one cold start of b opened and connected to beyond the unavoidable.
func TraceLookups(ctx context.Context, b Bootstrap, s Settings, sc Scenario) ([]string, error) {
	strace, err := exec.LookPath("strace")
	if err != nil {
		return nil, err
	}
	out := filepath.Join(filepath.Dir(b.Path), "strace.out")
	traced := b
	traced.Wrapper = []string{strace, "-f", "-qq", "-e", "trace=open,openat,connect", "-o", out}
	p, err := Start(traced, s, nil)
	if err != nil {
		return nil, err
	}
	_, err = invokeOnce(ctx, p, sc, 500_000)
	runtimePort := p.API.Addr[strings.LastIndex(p.API.Addr, ":")+1:]
	p.Stop()
	if err != nil {
		return nil, err
	}
	f, err := os.Open(out)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return parseLookups(f, b.Path, runtimePort), nil
}

func parseLookups(r io.Reader, self, runtimePort string) []string {
	var found []string
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		line := sc.Text()
		if m := straceOpen.FindStringSubmatch(line); m != nil {
			path := m[1]
			if path == self || strings.HasPrefix(path, "/proc/") || strings.HasPrefix(path, "/sys/") {
				continue
			}
			if m[3] != "" {
				path += " (" + m[3] + ")"
			}
			found = append(found, "open "+path)
		} else if m := straceConnect.FindStringSubmatch(line); m != nil {
			if m[1] == runtimePort {
				continue
			}
			found = append(found, "connect "+m[2]+m[3]+":"+m[1])
		}
	}
	slices.Sort(found)
	return slices.Compact(found)
}

// printLookups runs TraceLookups for every bootstrap; it says so and skips when strace is missing.
func printLookups(ctx context.Context, out io.Writer, bins []Bootstrap, s Settings, scenarios []Scenario) error {
	if _, err := exec.LookPath("strace"); err != nil {
		fmt.Fprintln(out, "\nlookups at cold start: strace is not installed, skipped")
		return nil
	}
	fmt.Fprintf(out,
		"\nlookups at cold start (strace; besides /proc, /sys and the Runtime API; DynamoDB is %s):\n",
		s["DYNAMODB_ENDPOINT"])
	for k, b := range bins {
		found, err := TraceLookups(ctx, b, s, scenarios[k])
		if err != nil {
			return fmt.Errorf("trace %s: %w", b.Function, err)
		}
		if len(found) == 0 {
			found = []string{"none"}
		}
		fmt.Fprintf(out, "  %-20s %s\n", b.Function, strings.Join(found, ", "))
	}
	return nil
}
