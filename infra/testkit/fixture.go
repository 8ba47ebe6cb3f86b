package testkit

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
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
	if err := load(db.Store, doc, now, invitationTTL); err != nil {
		tb.Fatal(err)
	}
}

// load writes doc through the fixture loader on store.
func load(store fixture.Store, doc any, now time.Time, invitationTTL time.Duration) error {
	raw, err := json.Marshal(doc)
	if err != nil {
		return err
	}
	secrets.requestBody(string(raw)) // users' passwords, plain or Django hashes
	file, err := fixture.Parse(bytes.NewReader(raw))
	if err != nil {
		return fmt.Errorf("parse fixture: %w", err)
	}
	if _, err := fixture.Load(context.Background(), store, file, now, invitationTTL); err != nil {
		return fmt.Errorf("load fixture: %w", err)
	}
	return nil
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
// loader's PutInvitation writes, several invitations to a transaction). The fixtures load a few at a
// time, in no set order: they must not depend on one another, nor name an invitation another one
// creates (it is not in the table before Write).
type Bulk struct {
	db    *DB
	store *heldInvitations
	slots chan struct{}
	wg    sync.WaitGroup
	mu    sync.Mutex
	err   error // the first load's that failed
}

// bulkLoads is how many fixtures of a Bulk load at once: each waits on its reads of the table.
const bulkLoads = 4

// Bulk starts a bulk load into db.
func (db *DB) Bulk() *Bulk {
	return &Bulk{db: db, store: &heldInvitations{Store: db.Store}, slots: make(chan struct{}, bulkLoads)}
}

// Load starts loading doc as DB.Load does, holding its new invitations back until Write.
func (b *Bulk) Load(doc any, now time.Time, invitationTTL time.Duration) {
	b.slots <- struct{}{}
	b.wg.Add(1)
	go func() {
		defer b.wg.Done()
		defer func() { <-b.slots }()
		if err := load(b.store, doc, now, invitationTTL); err != nil {
			b.mu.Lock()
			b.err = cmp.Or(b.err, err)
			b.mu.Unlock()
		}
	}()
}

// Write waits for the loads and writes the new invitations they held back.
func (b *Bulk) Write(tb testing.TB) {
	tb.Helper()
	b.wg.Wait()
	if b.err != nil {
		tb.Fatal(b.err)
	}
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
