package testkit

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/reportingplatform/api/infra/fixture"
	"github.com/reportingplatform/api/infra/gateway"
	"github.com/reportingplatform/api/shared/domain"
	"github.com/reportingplatform/api/shared/dynamo"
)

// Load writes doc (any value that marshals to SPEC §7's fixture format) through the fixture loader: the
// only way besides the API that organizations, members, portfolios, invitations and comments reach the
// table, so tests set up data exactly as `make seed` would.
func (db *DB) Load(tb testing.TB, doc any, now time.Time, invitationTTL time.Duration) {
	tb.Helper()
	load(tb, db.Store, doc, now, invitationTTL)
}

// load writes doc through the fixture loader on store.
func load(tb testing.TB, store fixture.Store, doc any, now time.Time, invitationTTL time.Duration) {
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
	if _, err := fixture.Load(context.Background(), store, file, now, invitationTTL); err != nil {
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

// Bulk loads a large data set through the fixture loader, many fixtures of it, faster than Load: the
// loader reads, checks and builds every entry as it does for Load and writes them, all but its new
// invitations, which Write then writes together (dynamo's PutNewInvitations: the items and counts the
// loader's PutInvitation writes, several invitations to a transaction). Between Load and Write the
// held invitations are not in the table: a fixture of the same Bulk may not name one of them.
type Bulk struct {
	db    *DB
	store *heldInvitations
}

// Bulk starts a bulk load into db.
func (db *DB) Bulk() *Bulk { return &Bulk{db: db, store: &heldInvitations{Store: db.Store}} }

// Load is DB.Load holding the fixture's new invitations back until Write.
func (b *Bulk) Load(tb testing.TB, doc any, now time.Time, invitationTTL time.Duration) {
	tb.Helper()
	load(tb, b.store, doc, now, invitationTTL)
}

// Write writes the new invitations the loads held back.
func (b *Bulk) Write(tb testing.TB) {
	tb.Helper()
	b.store.mu.Lock()
	held := b.store.held
	b.store.held = nil
	b.store.mu.Unlock()
	if err := b.db.Store.PutNewInvitations(context.Background(), held); err != nil {
		tb.Fatalf("write %d invitations: %v", len(held), err)
	}
}

// heldInvitations is the loader's store, holding new invitations instead of writing them. The loader
// puts invitations from several goroutines.
type heldInvitations struct {
	*dynamo.Store
	mu   sync.Mutex
	held []domain.Invitation
}

func (h *heldInvitations) PutInvitation(ctx context.Context, inv domain.Invitation, stored *domain.Invitation) error {
	if stored != nil {
		return h.Store.PutInvitation(ctx, inv, stored)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.held = append(h.held, inv)
	return nil
}
