package expiries_test

import (
	"testing"

	"github.com/reportingplatform/api/infra/testkit"
)

func TestMain(m *testing.M) { testkit.Main(m) }
