package testkit

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/reportingplatform/api/infra/fixture"
	"github.com/reportingplatform/api/infra/gateway"
	"github.com/reportingplatform/api/shared/domain"
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
	secrets.requestBody(string(raw)) // users' passwords, plain or Django hashes
	file, err := fixture.Parse(bytes.NewReader(raw))
	if err != nil {
		tb.Fatalf("parse fixture: %v", err)
	}
	if _, err := fixture.Load(context.Background(), db.Store, file, now, invitationTTL); err != nil {
		tb.Fatalf("load fixture: %v", err)
	}
}

// Deactivate marks u inactive the way an operator does, by loading the user again with is_active
// false (the API has no operation for it).
func (db *DB) Deactivate(tb testing.TB, u domain.User) {
	tb.Helper()
	db.Load(tb, map[string]any{"users": []map[string]any{{
		"id": u.ID, "email": u.Email, "first_name": u.FirstName, "last_name": u.LastName,
		"is_staff": u.IsStaff, "is_superuser": u.IsSuperuser, "is_active": false,
	}}}, time.Now(), time.Hour)
}

// LoadDemo loads infra/demo-data/demo.json, the data `make run` serves, through the fixture loader.
func (db *DB) LoadDemo(tb testing.TB, now time.Time, invitationTTL time.Duration) {
	tb.Helper()
	tpl, err := gateway.FindTemplate()
	if err != nil {
		tb.Fatal(err)
	}
	raw, err := os.ReadFile(filepath.Join(filepath.Dir(tpl), "infra", "demo-data", "demo.json"))
	if err != nil {
		tb.Fatal(err)
	}
	db.Load(tb, json.RawMessage(raw), now, invitationTTL)
}
