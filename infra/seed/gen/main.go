// Command gen writes a generated fixture of about -n entries to stdout (fixture.Generate): half comments
// on many objects, half invitations in many organizations, and what they refer to. It reproduces the
// loader's size test without keeping a large file in the repository:
//
//	go run ./infra/seed/gen -n 100000 > big.json && make seed FILE=big.json
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"os"

	"github.com/reportingplatform/api/infra/fixture"
)

func main() {
	n := flag.Int("n", 100000, "entries of comments and invitations together")
	flag.Parse()
	if *n < 1 {
		fmt.Fprintln(os.Stderr, "gen: -n must be at least 1")
		os.Exit(2)
	}
	w := bufio.NewWriter(os.Stdout)
	if err := json.NewEncoder(w).Encode(fixture.Generate(*n)); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
	if err := w.Flush(); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}
