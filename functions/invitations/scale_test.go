package invitations_test

import (
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/reportingplatform/api/infra/testkit"
	"github.com/reportingplatform/api/shared/domain"
)

// TestTwoHundredRoundsOnOneInvitation: one invitation, two hundred rounds, each two PATCHes released
// together by its administrator, one setting first_name, the other last_name. After every round both
// answered 200 with their own change and a read shows both: no update is lost, however often the two
// collide on the same item.
func TestTwoHundredRoundsOnOneInvitation(t *testing.T) {
	const rounds = 200
	w := newWorld(t)
	id := w.invitation(t, spec{email: "scale@example.com", first: domain.Ptr("First"), last: domain.Ptr("Last")})
	want := w.saved(w.before(t, id))
	staff := w.token(t, w.staff)
	w.db.Calls.Reset()
	began := time.Now()
	for i := range rounds {
		first, last := fmt.Sprintf("F%d", i), fmt.Sprintf("L%d", i)
		out := w.race(t, []string{id}, nil, [][2]string{{`{"first_name": "` + first + `"}`, `{"last_name": "` + last + `"}`}})[0]
		if out[0].Status != 200 || out[1].Status != 200 {
			t.Fatalf("round %d: statuses %d %d: %s / %s", i, out[0].Status, out[1].Status, out[0].Body, out[1].Body)
		}
		if got := out[0].Object(t)["first_name"]; got != first {
			t.Fatalf("round %d: the first_name PATCH answered first_name %v", i, got)
		}
		if got := out[1].Object(t)["last_name"]; got != last {
			t.Fatalf("round %d: the last_name PATCH answered last_name %v", i, got)
		}
		want.FirstName, want.LastName = &first, &last
		w.get(t, staff, id).Expect(t, 200, want.JSON(t))
	}
	t.Logf("%d rounds in %v; %d of %d writes re-applied after losing the write", rounds,
		time.Since(began).Round(time.Millisecond), lostRaces(w, 2*rounds), 2*rounds)
	inv, err := w.db.Store.Invitation(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	if inv.Version != w.versions[id]+2*rounds {
		t.Fatalf("version %d, want %d writes after %d", inv.Version, 2*rounds, w.versions[id])
	}
}

// TestAcceptanceRacesRevocation: a pending invitation accepted by its invitee while its administrator
// revokes it, both released together, on twenty fresh invitations. Each time exactly one answers 200 and
// the other the 400 naming the state the winner left; the invitee is a member exactly when acceptance won.
func TestAcceptanceRacesRevocation(t *testing.T) {
	const rounds = 20
	w := newWorld(t)
	admin := w.token(t, w.admin)
	won := map[int]int{}
	for i := range rounds {
		invitee := w.db.User(t, testkit.NewUser{})
		id := w.invitation(t, spec{email: upper(invitee.Email)})
		out := w.raceCallers(t, id, [2]string{w.token(t, invitee), admin}, [2]string{`{"status": 1}`, `{"status": 4}`})
		statuses := []int{out[0].Status, out[1].Status}
		winner := slices.Index(statuses, 200)
		if winner < 0 || statuses[1-winner] != 400 {
			t.Fatalf("round %d: statuses %v (%s / %s), want one 200 and one 400", i, statuses, out[0].Body, out[1].Body)
		}
		state := []int{1, 4}[winner]
		won[state]++
		out[1-winner].Expect(t, 400, finalError(state))
		if got := out[winner].Object(t)["status"]; got != float64(state) {
			t.Fatalf("round %d: the winner answered status %v, want %d", i, got, state)
		}
		inv, err := w.db.Store.Invitation(t.Context(), id)
		if err != nil {
			t.Fatal(err)
		}
		if int(inv.Status) != state || inv.Version != w.versions[id]+1 {
			t.Fatalf("round %d: stored status %d version %d, want %d written once after %d", i, inv.Status,
				inv.Version, state, w.versions[id])
		}
		u, err := w.db.Store.User(t.Context(), invitee.ID)
		if err != nil {
			t.Fatal(err)
		}
		if m, member := u.MembershipOf(w.acme.ID); member != (state == 1) || member && m.Role != domain.RoleMember {
			t.Fatalf("round %d: %d won; invitee member %v (%+v)", i, state, member, m)
		}
	}
	t.Logf("of %d races, acceptance won %d, revocation %d", rounds, won[1], won[4])
}

// raceCallers sends two PATCHes of invitation id, each with its own token and body, released together;
// out[j] answers bodies[j].
func (w *world) raceCallers(t *testing.T, id string, tokens, bodies [2]string) [2]testkit.Response {
	t.Helper()
	var out [2]testkit.Response
	start := make(chan struct{})
	var wg sync.WaitGroup
	for j := range 2 {
		wg.Go(func() {
			<-start
			out[j] = testkit.Do(testkit.InGoroutine(t), w.gw, testkit.Request{
				Method: "PATCH", Path: "/api/v1/organization-invitations/" + id + "/", Token: tokens[j], Body: bodies[j],
			})
		})
	}
	close(start)
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}
	return out
}
