package invitations_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/reportingplatform/api/infra/testkit"
	"github.com/reportingplatform/api/shared/domain"
)

var finalNames = map[int]string{1: "an accepted", 2: "a cancelled", 3: "an expired", 4: "a revoked"}

func finalError(status int) string {
	return `{"status": ["Cannot change the status of ` + finalNames[status] + ` invitation."]}`
}

// TestPatchStatusTransitions runs every (stored state, requested state) pair: pending may become any
// state, a final state only itself (a save); anything else is the 400 naming the state. The
// administrator sets every state but accepted, which the invitee sets (SPEC §3; TestOnlyTheInviteeAccepts
// has the administrator's 403).
func TestPatchStatusTransitions(t *testing.T) {
	w := newWorld(t)
	for from := 0; from <= 4; from++ {
		for to := 0; to <= 4; to++ {
			t.Run(fmt.Sprintf("%d to %d", from, to), func(t *testing.T) {
				t.Parallel()
				caller := w.admin
				if to == int(domain.StatusAccepted) {
					caller = w.db.User(t, testkit.NewUser{})
				}
				id := w.invitation(t, spec{status: from, email: upper(caller.Email)})
				before := w.before(t, id)
				resp := w.patch(t, w.token(t, caller), id, fmt.Sprintf(`{"status": %d}`, to))
				if from != 0 && from != to {
					resp.Expect(t, 400, finalError(from))
					w.unchanged(t, id, before)
					return
				}
				want := w.saved(before)
				want.Status = to
				resp.Expect(t, 200, want.JSON(t))
				w.get(t, w.token(t, w.staff), id).Expect(t, 200, want.JSON(t))
			})
		}
	}
}

// TestPatchExpiredPending: a pending invitation past its expiry is expired. Accepting it is refused
// like any change of a final state, and any save stores it as expired before the new expiry date is
// computed, so a save never revives it.
func TestPatchExpiredPending(t *testing.T) {
	w := newWorld(t)
	past := w.now.Add(-time.Second)
	for _, tc := range []struct {
		name   string
		caller *domain.User // the invitation is to the invitee's address
		body   string
		want   string       // the 400, "" for a 200
		edit   func(*shape) // the change a 200 makes
	}{
		{"accepting is refused", &w.invitee, `{"status": 1}`, finalError(3), nil},
		{"setting pending is refused", &w.admin, `{"status": 0}`, finalError(3), nil},
		{"revoking is refused", &w.admin, `{"status": 4}`, finalError(3), nil},
		{"refused with other errors too", &w.admin, `{"status": 0, "role": 7}`,
			`{"role": ["\"7\" is not a valid choice."], "status": ["Cannot change the status of an expired invitation."]}`, nil},
		{"setting expired is a save", &w.admin, `{"status": 3}`, "", func(*shape) {}},
		{"changing a name stores it as expired", &w.admin, `{"first_name": "Late"}`, "",
			func(s *shape) { s.FirstName = domain.Ptr("Late") }},
		{"an empty save stores it as expired", &w.admin, `{}`, "", func(*shape) {}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			id := w.invitation(t, spec{expiry: past})
			before := w.before(t, id)
			if before.Status != 3 {
				t.Fatalf("reads as %d before the PATCH", before.Status)
			}
			resp := w.patch(t, w.token(t, *tc.caller), id, tc.body)
			if tc.want != "" {
				resp.Expect(t, 400, tc.want)
				w.unchanged(t, id, before)
				return
			}
			want := w.saved(before) // status 3 with an expiry a week ahead: stored as 3, not pending
			tc.edit(&want)
			resp.Expect(t, 200, want.JSON(t))
			w.get(t, w.token(t, w.staff), id).Expect(t, 200, want.JSON(t))
			// Its expiry is now a week ahead: it reads as expired only because it is stored so.
			inv, err := w.db.Store.Invitation(t.Context(), id)
			if err != nil {
				t.Fatal(err)
			}
			if inv.Status != domain.StatusExpired {
				t.Fatalf("stored status %d, want 3", inv.Status)
			}
		})
	}
}

// TestPatchFinalStatesStillChangeOtherFields: "final" concerns the status only.
func TestPatchFinalStatesStillChangeOtherFields(t *testing.T) {
	w := newWorld(t)
	for status := 1; status <= 4; status++ {
		t.Run(finalNames[status], func(t *testing.T) {
			id := w.invitation(t, spec{status: status, portfolios: []ref{w.alpha}})
			want := w.saved(w.before(t, id))
			want.LastName, want.Role = domain.Ptr("Later"), 2
			want.withPortfolios(w.mid, w.zeta)
			body := `{"last_name": "Later", "role": 2, "status": ` + fmt.Sprint(status) +
				`, "accessible_portfolio_ids": ["` + w.zeta.ID + `", "` + w.mid.ID + `"]}`
			w.patch(t, w.token(t, w.admin), id, body).Expect(t, 200, want.JSON(t))
			w.get(t, w.token(t, w.member), id).Expect(t, 200, want.JSON(t))
		})
	}
}
