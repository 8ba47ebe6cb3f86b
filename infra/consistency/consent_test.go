package consistency_test

import (
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/reportingplatform/api/infra/fixture"
	"github.com/reportingplatform/api/infra/testkit"
	"github.com/reportingplatform/api/shared/domain"
)

// acceptRows are the matrix's rows for status 1 (SPEC §3): accepting is the invitee's alone, so on an
// invitation to the invitee that is not accepted yet every other caller who may change it (staff, the
// administrator) gets 403, like those who may only read it; the invitee accepts a pending one and gets
// the 400 of an expired one. Each caller class tries an invitation of its own, made when the row
// starts, so the earlier rows' lists and counts do not see them and no cell depends on another.
func (w *authzWorld) acceptRows() []operation {
	invPath := "/api/v1/organization-invitations/"
	row := func(name string, expired bool, want []outcome, rejected string) operation {
		invs := map[string]domain.Invitation{} // by caller class, filled by setup
		return operation{
			name: name, method: "PATCH", pattern: invPath + "{id}/",
			pathFor: func(caller string) string { return invPath + invs[caller].ID + "/" },
			body:    func(string) string { return `{"status": 1}` },
			want:    want, rejected: rejected,
			setup: func(t *testing.T) {
				for caller, inv := range w.invitationsToTheInvitee(t, expired) {
					invs[caller] = inv
				}
			},
			check: func(t *testing.T, caller string, resp testkit.Response) {
				t.Helper()
				resp.Expect(t, 200, w.invitationJSON(invs[caller], 1))
			},
			writes: func(t *testing.T) int64 {
				var n int64
				for _, inv := range invs {
					n += w.invitationVersion(inv.ID)(t) - inv.Version
				}
				return n
			},
			// The membership is written in the acceptance's own transaction, so refusals that wrote no
			// invitation (writes) wrote no membership either; the invitee's acceptance made exactly one.
			after: func(t *testing.T) { w.inviteeMemberOfA(t, !expired) },
		}
	}
	// Columns: no header, other scheme, bare Bearer, two words, unknown token, forged staff token,
	// expired token, inactive admin | outsider, invitee, member, collaborator, administrator, commenter,
	// staff, superuser.
	// The expired row first: until the pending row's acceptance, the invitee is no member of A.
	return []operation{
		row("PATCH invitation (accept an expired one)", true,
			[]outcome{n401, n401, b401, s401, bad, bad, bad, dead, no404, no400, no403, no403, no403, no403, no403, no403},
			`{"status": ["Cannot change the status of an expired invitation."]}`),
		row("PATCH invitation (accept)", false,
			[]outcome{n401, n401, b401, s401, bad, bad, bad, dead, no404, yes, no403, no403, no403, no403, no403, no403},
			""),
	}
}

// invitationsToTheInvitee loads, for every caller class, an invitation of A to the invitee's address
// (in upper case), pending or past its expiry, and returns them as stored.
func (w *authzWorld) invitationsToTheInvitee(t *testing.T, expired bool) map[string]domain.Invitation {
	t.Helper()
	var expiry *string
	if expired {
		expiry = domain.Ptr(w.now.Add(-time.Second).Format(time.RFC3339Nano))
	}
	var file fixture.File
	for range callerNames {
		file.Invitations = append(file.Invitations, fixture.Invitation{ID: uuid.NewString(), OrganizationID: w.orgA.ID,
			InviterMemberID: w.adminMbr, Email: strings.ToUpper(w.users["invitee"].Email), Role: domain.Ptr(1),
			FirstName: domain.Ptr("Ivy"), LastName: domain.Ptr("Invitee"), ExpiryDate: expiry})
	}
	w.db.Load(t, file, w.now, authzTTL)
	out := map[string]domain.Invitation{}
	for i, caller := range callerNames {
		inv, err := w.db.Store.Invitation(t.Context(), file.Invitations[i].ID)
		if err != nil {
			t.Fatal(err)
		}
		w.secretsA = append(w.secretsA, inv.ID, inv.Token)
		out[caller] = inv
	}
	return out
}

// inviteeMemberOfA fails unless the invitee's stored memberships hold A exactly when want says so, with
// the role its invitation gave.
func (w *authzWorld) inviteeMemberOfA(t *testing.T, want bool) {
	t.Helper()
	u, err := w.db.Store.User(t.Context(), w.users["invitee"].ID)
	if err != nil {
		t.Fatal(err)
	}
	m, member := u.MembershipOf(w.orgA.ID)
	if member != want || member && m.Role != domain.RoleCollaborator {
		t.Fatalf("the invitee is a member of A: %v (%+v), want %v with role 1", member, m, want)
	}
}
