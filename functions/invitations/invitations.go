// Package invitations serves the organization invitations (SPEC §3, §5 and §10): the list and create of
// /api/v1/organization-invitations/, and GET, PATCH and DELETE of one: who may see and change an
// invitation, every field's validation, the state rules, acceptance making the invitee a member in the
// same atomic write as the status change, and the invitation e-mail of a create.
package invitations

import (
	"log/slog"
	"net/http"
	"time"

	"github.com/reportingplatform/api/shared/domain"
	"github.com/reportingplatform/api/shared/httpapi"
)

// The seed's path and SPEC §10's list; the router also serves them without the trailing slash.
const (
	InvitationsPath = "/api/v1/organization-invitations/"
	InvitationPath  = "/api/v1/organization-invitations/{id}/"
)

type handler struct {
	store         domain.InvitationStore
	mailer        domain.Mailer
	invitationTTL time.Duration
	keys          *httpapi.ContinuationKeys // sign the list's continuations (SPEC §6, §11)
	httpapi.Kit
}

// New returns the invitations function's HTTP handler. invitationTTL is how long an invitation stays
// valid after each save (INVITATION_TTL); mailer sends the invitation e-mail of a create.
func New(store domain.InvitationStore, mailer domain.Mailer, log *slog.Logger, invitationTTL time.Duration,
	now func() time.Time) *httpapi.Router {
	kit, rt := httpapi.NewKit(store, log, now, InvitationsPath)
	h := &handler{store: store, mailer: mailer, invitationTTL: invitationTTL,
		keys: httpapi.NewContinuationKeys(store), Kit: kit}
	rt.Handle(http.MethodGet, InvitationsPath, h.list)
	rt.Handle(http.MethodPost, InvitationsPath, h.create)
	rt.Handle(http.MethodGet, InvitationPath, h.read)
	rt.Handle(http.MethodPatch, InvitationPath, h.partialUpdate)
	rt.Handle(http.MethodDelete, InvitationPath, h.destroy)
	return rt
}

// rights is what the caller may do with one invitation (SPEC §3).
type rights struct {
	read    bool // staff, members of its organization, the invitee
	change  bool // staff and administrators of its organization: any field, but no acceptance for the invitee
	invitee bool // the invitee, who may only accept or decline
}

func rightsOn(caller domain.User, inv domain.Invitation) rights {
	m, member := caller.MembershipOf(inv.OrganizationID)
	invitee := domain.EmailKey(caller.Email) == domain.EmailKey(inv.Email)
	change := caller.Privileged() || (member && m.Role == domain.RoleAdministrator)
	return rights{read: change || member || invitee, change: change, invitee: invitee}
}
