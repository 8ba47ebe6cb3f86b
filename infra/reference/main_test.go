package main

import (
	"testing"

	"github.com/reportingplatform/api/infra/testkit"
)

// TestMain searches every line the package's tests log for passwords, hashes and tokens (SPEC §9).
func TestMain(m *testing.M) { testkit.Main(m) }
