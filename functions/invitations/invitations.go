// Package invitations serves GET and PATCH /api/v1/organization-invitations/{id}/ (SPEC §3 and §5): who
// may see and change an invitation, every field's validation, the state rules, and acceptance making the
// invitee a member in the same atomic write as the status change.
package invitations

import (
	"log/slog"
	"net/http"
	"time"

	"github.com/reportingplatform/api/shared/domain"
	"github.com/reportingplatform/api/shared/httpapi"
)

// InvitationPath is the seed's path; the router also serves it without the trailing slash.
const InvitationPath = "/api/v1/organization-invitations/{id}/"

type handler struct {
	store         domain.InvitationStore
	auth          *httpapi.Authenticator
	invitationTTL time.Duration
	clock         domain.Clock
}

// New returns the invitations function's HTTP handler. invitationTTL is how long an invitation stays
// valid after each save (INVITATION_TTL).
func New(store domain.InvitationStore, log *slog.Logger, invitationTTL time.Duration, now func() time.Time) *httpapi.Router {
	h := &handler{
		store:         store,
		auth:          &httpapi.Authenticator{Sessions: store, Now: now},
		invitationTTL: invitationTTL,
		clock:         now,
	}
	rt := httpapi.NewRouter(log)
	rt.Handle(http.MethodGet, InvitationPath, h.read)
	rt.Handle(http.MethodPatch, InvitationPath, h.patch)
	return rt
}

// rights is what the caller may do with one invitation (SPEC §3).
type rights struct {
	read    bool // staff, members of its organization, the invitee
	change  bool // staff and administrators of its organization: any field
	invitee bool // the invitee, who may only accept or decline
}

func rightsOn(caller domain.User, inv domain.Invitation) rights {
	m, member := caller.MembershipOf(inv.OrganizationID)
	invitee := domain.EmailKey(caller.Email) == domain.EmailKey(inv.Email)
	change := caller.Privileged() || (member && m.Role == domain.RoleAdministrator)
	return rights{read: change || member || invitee, change: change, invitee: invitee}
}
