package invitations_test

import (
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/reportingplatform/api/infra/testkit"
	"github.com/reportingplatform/api/shared/domain"
)

const pairs = 50

// race sends every body of every pair at once (released together) and returns the responses,
// responses[i][j] answering bodies[i][j], sent with tokens[i][j] (nil tokens: the administrator's).
func (w *world) race(t *testing.T, ids []string, tokens, bodies [][2]string) [][2]testkit.Response {
	t.Helper()
	admin := w.token(t, w.admin)
	tok := func(i, j int) string {
		if tokens == nil {
			return admin
		}
		return tokens[i][j]
	}
	out := make([][2]testkit.Response, len(ids))
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i, id := range ids {
		for j := range 2 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				out[i][j] = testkit.Do(testkit.InGoroutine(t), w.gw, testkit.Request{
					Method: "PATCH", Path: "/api/v1/organization-invitations/" + id + "/", Token: tok(i, j), Body: bodies[i][j],
				})
			}()
		}
	}
	close(start)
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}
	return out
}

// lostRaces counts the writes that lost their version condition: writes beyond the ones that landed.
func lostRaces(w *world, landed int) int {
	n := 0
	for _, op := range w.db.Calls.Ops() {
		if op == "TransactWriteItems" || op == "UpdateItem" {
			n++
		}
	}
	return n - landed
}

// TestConcurrentConflictingStatusChanges: 50 pending invitations, each accepted by its invitee and
// revoked by the administrator at the same moment. Exactly one of each pair wins; the other answers the 400 of the state the winner left, and the
// invitee is a member exactly when acceptance won.
func TestConcurrentConflictingStatusChanges(t *testing.T) {
	w := newWorld(t)
	ids := make([]string, pairs)
	invitees := make([]domain.User, pairs)
	tokens := make([][2]string, pairs)
	bodies := make([][2]string, pairs)
	for i := range pairs {
		invitees[i] = w.db.User(t, testkit.NewUser{})
		ids[i] = w.invitation(t, spec{email: invitees[i].Email})
		tokens[i] = [2]string{w.token(t, invitees[i]), w.token(t, w.admin)}
		bodies[i] = [2]string{`{"status": 1}`, `{"status": 4}`}
	}
	w.db.Calls.Reset()
	out := w.race(t, ids, tokens, bodies)
	t.Logf("%d of %d pairs re-applied a PATCH after losing the write", lostRaces(w, pairs), pairs)

	for i, id := range ids {
		statuses := []int{out[i][0].Status, out[i][1].Status}
		winner := slices.Index(statuses, 200)
		if winner < 0 || statuses[1-winner] != 400 {
			t.Fatalf("pair %d: statuses %v (bodies %s / %s), want one 200 and one 400", i, statuses, out[i][0].Body,
				out[i][1].Body)
		}
		won := []int{1, 4}[winner]
		out[i][1-winner].Expect(t, 400, finalError(won))
		inv, err := w.db.Store.Invitation(t.Context(), id)
		if err != nil {
			t.Fatal(err)
		}
		if int(inv.Status) != won || inv.Version != w.versions[id]+1 {
			t.Fatalf("pair %d: stored status %d version %d, want status %d written once", i, inv.Status, inv.Version, won)
		}
		if got := out[i][winner].Object(t)["status"]; got != float64(won) {
			t.Fatalf("pair %d: the winner answered status %v", i, got)
		}
		u, err := w.db.Store.User(t.Context(), invitees[i].ID)
		if err != nil {
			t.Fatal(err)
		}
		if _, member := u.MembershipOf(w.acme.ID); member != (won == 1) {
			t.Fatalf("pair %d: %d won, invitee member: %v", i, won, member)
		}
	}
}

// TestConcurrentChangesOfDifferentFields: 50 invitations, each given a first name and a last name by two
// PATCHes at the same moment. Both answer 200 and both names persist: no update is lost.
func TestConcurrentChangesOfDifferentFields(t *testing.T) {
	w := newWorld(t)
	ids := make([]string, pairs)
	bodies := make([][2]string, pairs)
	for i := range pairs {
		ids[i] = w.invitation(t, spec{email: fmt.Sprintf("pair-%d@example.com", i)})
		bodies[i] = [2]string{fmt.Sprintf(`{"first_name": "First %d"}`, i), fmt.Sprintf(`{"last_name": "Last %d"}`, i)}
	}
	w.db.Calls.Reset()
	out := w.race(t, ids, nil, bodies)
	t.Logf("%d of %d writes were re-applied after losing the write", lostRaces(w, 2*pairs), 2*pairs)

	for i, id := range ids {
		if out[i][0].Status != 200 || out[i][1].Status != 200 {
			t.Fatalf("pair %d: statuses %d %d: %s / %s", i, out[i][0].Status, out[i][1].Status, out[i][0].Body, out[i][1].Body)
		}
		if got := out[i][0].Object(t)["first_name"]; got != fmt.Sprintf("First %d", i) {
			t.Fatalf("pair %d: first_name answered %v", i, got)
		}
		if got := out[i][1].Object(t)["last_name"]; got != fmt.Sprintf("Last %d", i) {
			t.Fatalf("pair %d: last_name answered %v", i, got)
		}
		want := w.saved(w.before(t, id))
		want.FirstName, want.LastName = domain.Ptr(fmt.Sprintf("First %d", i)), domain.Ptr(fmt.Sprintf("Last %d", i))
		w.get(t, w.token(t, w.staff), id).Expect(t, 200, want.JSON(t))
		inv, err := w.db.Store.Invitation(t.Context(), id)
		if err != nil {
			t.Fatal(err)
		}
		if inv.Version != w.versions[id]+2 {
			t.Fatalf("pair %d: version %d, want two writes after %d", i, inv.Version, w.versions[id])
		}
	}
}
