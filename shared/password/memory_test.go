package password_test

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/reportingplatform/api/shared/password"
)

// firstHashEnv makes the test binary, run again by TestPrepareFaultsTheFirstHashInAhead, hash once as
// a new process does and print the page faults of that hash.
const firstHashEnv = "PASSWORD_FIRST_HASH"

// firstHash hashes once, as a new process's first request does (after Prepare when mode is
// "prepared"), and prints the page faults the hash took.
func firstHash(mode string) {
	if mode == "prepared" {
		password.Prepare()
		password.AwaitPrepared()
	}
	before := minorFaults()
	if _, err := password.Hash("correct horse battery staple"); err != nil {
		fmt.Println("hash:", err)
		os.Exit(1)
	}
	fmt.Println(minorFaults() - before)
}

func minorFaults() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		panic(err)
	}
	return int64(ru.Minflt)
}

// TestPrepareFaultsTheFirstHashInAhead runs a first hash in new processes, with and without Prepare, and
// counts the page faults the hash itself takes: without, about two for each of its 1,792 pages (3,800);
// with, about 50, because its memory is the run of pages Prepare touched and freed. If a Go release
// stops handing that run to the hash's allocation, this fails, and Prepare only costs its work.
func TestPrepareFaultsTheFirstHashInAhead(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("page fault counts as Linux reports them")
	}
	faults := func(mode string) int64 {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), firstHashEnv+"="+mode)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s: %v: %s", mode, err, out)
		}
		n, err := strconv.ParseInt(strings.TrimSpace(string(out)), 10, 64)
		if err != nil {
			t.Fatalf("%s: %q: %v", mode, out, err)
		}
		return n
	}
	pages := int64(password.ArgonMemoryKiB) << 10 / int64(os.Getpagesize())
	cold, prepared := faults("cold"), faults("prepared")
	t.Logf("page faults of a first hash: %d cold, %d prepared (%d pages)", cold, prepared, pages)
	if cold < pages {
		// A kernel that backs the heap with huge pages (transparent_hugepage=always) faults a fresh
		// hash in a few times: there is nothing for Prepare to save.
		t.Skipf("a cold first hash took %d page faults for its %d pages", cold, pages)
	}
	// Under the race detector both counts also hold faults of its shadow memory; the difference is
	// still the hash's own pages.
	if saved := cold - prepared; saved < pages {
		t.Errorf("Prepare saved the first hash %d page faults, want at least one for each of its %d pages", saved, pages)
	}
}
