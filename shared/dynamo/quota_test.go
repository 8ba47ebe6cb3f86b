package dynamo_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/reportingplatform/api/shared/domain"
)

// TestCreateInvitationCountsAgainstTheQuota: SPEC §9's invitation rate is held by the create's own
// transaction. SessionAndDraft reads the caller's quota with the session; a create counts in the window
// read as open, or starts one; a create whose quota is no longer as read, or whose window is full,
// writes nothing and says so (ErrQuotaChanged), whatever the caller decided.
func TestCreateInvitationCountsAgainstTheQuota(t *testing.T) {
	w := newInvitationWorld(t)
	ctx := context.Background()
	_, hash, err := domain.NewTokenString(w.inviter.ID)
	must(t, err)
	ref := domain.TokenRef{UserID: w.inviter.ID, Hash: hash}
	quota := func() domain.InvitationQuota {
		t.Helper()
		d, err := w.db.Store.SessionAndDraft(ctx, ref, domain.InvitationDraft{})
		must(t, err)
		return d.Quota
	}
	start := time.Now().UTC().Truncate(time.Millisecond)
	create := func(at time.Time, seen domain.InvitationQuota) (string, error) {
		inv := w.inv
		inv.ID, inv.Email, inv.CreatedAt = uuid.NewString(), "q-"+uuid.NewString()[:8]+"@example.com", at
		return inv.ID, w.db.Store.CreateInvitation(ctx, inv, "", "", seen, nil)
	}
	written := func(id string) bool {
		_, err := w.db.Store.Invitation(ctx, id)
		return domain.ErrorCode(err) != domain.ENOTFOUND
	}
	refused := func(id string, err error) {
		t.Helper()
		if domain.ErrorCode(err) != domain.ECONFLICT || !errors.Is(err, domain.ErrQuotaChanged) || written(id) {
			t.Fatalf("error %v, written %v; want ECONFLICT with ErrQuotaChanged and nothing written", err, written(id))
		}
	}

	if q := quota(); q != (domain.InvitationQuota{}) {
		t.Fatalf("a user who never invited has quota %+v", q)
	}
	_, err = create(start, domain.InvitationQuota{})
	must(t, err)
	window := domain.InvitationQuota{Used: 1, Ends: start.Add(domain.InvitationWindow)}
	if q := quota(); q != window {
		t.Fatalf("quota %+v, want %+v", q, window)
	}
	// Read before the first create: it would start a second window.
	refused(create(start.Add(time.Second), domain.InvitationQuota{}))
	for i := 2; i <= domain.InvitationsPerWindow; i++ {
		_, err := create(start.Add(time.Minute), quota())
		must(t, err)
	}
	full := quota()
	if full.Used != domain.InvitationsPerWindow ||
		full.Wait(start.Add(time.Minute)) != domain.InvitationWindow-time.Minute {
		t.Fatalf("quota %+v", full)
	}
	// Full: the write refuses, even from a caller that did not look, or read it before it filled.
	refused(create(start.Add(time.Minute), full))
	refused(create(start.Add(time.Minute), window))
	// Once the window ends the next create starts another.
	next := full.Ends
	_, err = create(next, full)
	must(t, err)
	if q := quota(); q != (domain.InvitationQuota{Used: 1, Ends: next.Add(domain.InvitationWindow)}) {
		t.Fatalf("after the window: %+v", q)
	}
}
