package testkit

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/reportingplatform/api/infra/fixture"
)

// Load writes doc (any value that marshals to SPEC §7's fixture format) through the fixture loader: the
// only way besides the API that organizations, members, portfolios, invitations and comments reach the
// table, so tests set up data exactly as `make seed` would.
func (db *DB) Load(tb testing.TB, doc any, now time.Time, invitationTTL time.Duration) {
	tb.Helper()
	raw, err := json.Marshal(doc)
	if err != nil {
		tb.Fatal(err)
	}
	file, err := fixture.Parse(bytes.NewReader(raw))
	if err != nil {
		tb.Fatalf("parse fixture: %v", err)
	}
	if _, err := fixture.Load(context.Background(), db.Store, file, now, invitationTTL); err != nil {
		tb.Fatalf("load fixture: %v", err)
	}
}
