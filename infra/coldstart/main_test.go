package main

import (
	"testing"

	"github.com/reportingplatform/api/infra/testkit"
)

// TestMain searches every line the bootstraps log (forwarded into the test's log) for passwords,
// hashes and tokens (SPEC §9): this is the one test where the production logger writes what Lambda
// would ship to CloudWatch.
func TestMain(m *testing.M) { testkit.Main(m) }
