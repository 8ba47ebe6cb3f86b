package password_test

import (
	"os"
	"testing"

	"github.com/reportingplatform/api/infra/testkit"
)

// TestMain searches every line the package's tests log for passwords, hashes and tokens (SPEC §9).
// Run again by TestPrepareFaultsTheFirstHashInAhead, the binary only hashes once (firstHash).
func TestMain(m *testing.M) {
	if mode := os.Getenv(firstHashEnv); mode != "" {
		firstHash(mode)
		return
	}
	testkit.Main(m)
}
