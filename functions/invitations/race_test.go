package invitations_test

import (
	"context"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/reportingplatform/api/functions/invitations"
	"github.com/reportingplatform/api/infra/testkit"
	"github.com/reportingplatform/api/shared/domain"
	"github.com/reportingplatform/api/shared/dynamo"
)

// competingStore is the real store with a competitor that writes just before each of the handler's
// first `times` saves, after the handler has read the invitation: the handler's write is then stale,
// deterministically, which the 50-pair test can only make likely.
type competingStore struct {
	*dynamo.Store
	edit func(*domain.Invitation) // the competitor's change

	mu    sync.Mutex
	times int
}

func (s *competingStore) SaveInvitation(ctx context.Context, before, inv domain.Invitation,
	join *domain.NewMembership) error {
	s.mu.Lock()
	compete := s.times > 0
	s.times--
	s.mu.Unlock()
	if compete {
		stored, err := s.Store.Invitation(ctx, inv.ID)
		if err != nil {
			return err
		}
		read := stored
		s.edit(&stored)
		if err := s.Store.SaveInvitation(ctx, read, stored, nil); err != nil {
			return err
		}
	}
	return s.Store.SaveInvitation(ctx, before, inv, join)
}

func (w *world) competingGateway(t *testing.T, times int, edit func(*domain.Invitation)) http.Handler {
	t.Helper()
	store := &competingStore{Store: w.db.Store, edit: edit, times: times}
	log := testkit.Log(t)
	return testkit.Gateway(t, map[string]http.Handler{
		"InvitationsFunction": invitations.New(store, w.mail, log, ttl, func() time.Time { return w.now }),
	})
}

// patchVia sends a PATCH of invitation id through gw as caller.
func (w *world) patchVia(t *testing.T, gw http.Handler, caller domain.User, id, body string) testkit.Response {
	t.Helper()
	return testkit.Do(t, gw,
		testkit.Request{Method: "PATCH", Path: "/api/v1/organization-invitations/" + id + "/",
			Token: w.token(t, caller), Body: body})
}

func TestALostWriteIsReapplied(t *testing.T) {
	w := newWorld(t)
	t.Run("a change of another field is kept", func(t *testing.T) {
		id := w.invitation(t, spec{})
		gw := w.competingGateway(t, 1, func(inv *domain.Invitation) { inv.LastName = domain.Ptr("Racer") })
		want := w.saved(w.before(t, id))
		want.FirstName, want.LastName = domain.Ptr("Bo"), domain.Ptr("Racer")
		w.patchVia(t, gw, w.admin, id, `{"first_name": "Bo"}`).Expect(t, 200, want.JSON(t))
		w.get(t, w.token(t, w.staff), id).Expect(t, 200, want.JSON(t))
	})
	t.Run("a status change that lost answers the winner's final state", func(t *testing.T) {
		u := w.db.User(t, testkit.NewUser{})
		id := w.invitation(t, spec{email: u.Email})
		gw := w.competingGateway(t, 1, func(inv *domain.Invitation) { inv.Status = domain.StatusRevoked })
		w.patchVia(t, gw, u, id, `{"status": 1}`).Expect(t, 400, finalError(4))
		stored, err := w.db.Store.User(t.Context(), u.ID)
		if err != nil {
			t.Fatal(err)
		}
		if len(stored.Memberships) != 0 {
			t.Fatalf("the losing acceptance made a member: %+v", stored.Memberships)
		}
	})
	t.Run("an acceptance that lost to a change of another field still makes the member", func(t *testing.T) {
		u := w.db.User(t, testkit.NewUser{})
		id := w.invitation(t, spec{email: u.Email})
		gw := w.competingGateway(t, 1, func(inv *domain.Invitation) { inv.Role = domain.RoleAdministrator })
		want := w.saved(w.before(t, id))
		want.Status, want.Role = 1, 2
		w.patchVia(t, gw, u, id, `{"status": 1}`).Expect(t, 200, want.JSON(t))
		expectOrgs(t, w.loginOrganizations(t, u), orgsJSON(orgEntry(w.acme, "2")))
	})
	t.Run("a write that keeps losing gives up with 503", func(t *testing.T) {
		id := w.invitation(t, spec{})
		gw := w.competingGateway(t, 100, func(inv *domain.Invitation) { inv.LastName = domain.Ptr("Racer") })
		resp := w.patchVia(t, gw, w.admin, id, `{"first_name": "Bo"}`)
		resp.Expect(t, 503, `{"detail": "Service temporarily unavailable, try again soon."}`)
		if resp.Header.Get("Retry-After") == "" {
			t.Fatal("503 without Retry-After")
		}
		inv, err := w.db.Store.Invitation(t.Context(), id)
		if err != nil {
			t.Fatal(err)
		}
		if inv.FirstName != nil {
			t.Fatalf("the given-up PATCH was written: %+v", inv)
		}
	})
}
