package invitations

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/reportingplatform/api/shared/domain"
	"github.com/reportingplatform/api/shared/httpapi"
)

// invitationResponse is the seed's Organization invitation, in the seed's field order.
type invitationResponse struct {
	ID                   string                  `json:"id"`
	Token                string                  `json:"token"`
	ExpiryDate           string                  `json:"expiry_date"`
	Organization         organizationRef         `json:"organization"`
	InviterMember        inviterMember           `json:"inviter_member"`
	Email                string                  `json:"email"`
	EmailSent            bool                    `json:"email_sent"`
	AccessiblePortfolios []portfolioRef          `json:"accessible_portfolios"`
	Status               domain.InvitationStatus `json:"status"`
	FirstName            *string                 `json:"first_name"`
	LastName             *string                 `json:"last_name"`
	Role                 domain.Role             `json:"role"`
}

type organizationRef struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

// inviterMember is the inviting member as the seed shows it: the member's id with its user's names and
// email. Names are strings in the seed (not nullable), so a user without one shows "".
type inviterMember struct {
	ID        string `json:"id"`
	FirstName string `json:"first_name"`
	LastName  string `json:"last_name"`
	Email     string `json:"email"`
}

type portfolioRef struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

// read serves GET: the caller's session with the invitation, which carries what it shows of the items
// it refers to; only an invitation stored without those copies takes a second call for them.
func (h *handler) read(w http.ResponseWriter, r *http.Request) error {
	caller, inv, err := h.authenticate(r)
	if err != nil {
		return err
	}
	return h.show(w, r, http.StatusOK, caller, inv)
}

// replayCreate answers a create repeated with its Idempotency-Key (SPEC §9): the invitation it created,
// as a GET shows it to caller now, with the status the create was answered (read with the session, as
// a GET reads it, in one call). Nothing is sent: the e-mail is the first request's.
func (h *handler) replayCreate(w http.ResponseWriter, r *http.Request, caller domain.User, id string,
	status int) error {
	ref, err := httpapi.Bearer(r)
	if err != nil {
		return err
	}
	_, inv, err := h.store.SessionAndInvitation(r.Context(), ref, id)
	if err != nil {
		return err
	}
	return h.show(w, r, status, caller, inv)
}

// show answers inv (nil: it does not exist) as read by caller, with status.
func (h *handler) show(w http.ResponseWriter, r *http.Request, status int, caller domain.User,
	inv *domain.Invitation) error {
	// Those who may not read it learn nothing, not even that it exists.
	if inv == nil || !rightsOn(caller, *inv).read {
		return domain.NotFound()
	}
	if err := checkShown(*inv); err != nil {
		return err
	}
	httpapi.WriteJSON(w, status, newInvitationResponse(*inv, h.Clock.Now()))
	return nil
}

// checkShown refuses invitations without their copy of what they show. Every write of an invitation
// makes the copy; one without is a fault of its writer (a fixture whose references went missing),
// answered as a server error rather than with fields left out.
func checkShown(invs ...domain.Invitation) error {
	for _, inv := range invs {
		if inv.Shown == nil {
			return fmt.Errorf("invitation %s has no copy of what it shows", inv.ID)
		}
	}
	return nil
}

// authenticate reads the caller's session and the invitation of the path in one call, and decides
// authentication first (SPEC §2: 401 before 404). The invitation is nil when the path names none.
func (h *handler) authenticate(r *http.Request) (domain.User, *domain.Invitation, error) {
	id, idErr := httpapi.PathID(r)
	return httpapi.AuthenticateWith(h.Auth, r, idErr,
		func(ctx context.Context, ref domain.TokenRef) (domain.Session, *domain.Invitation, error) {
			return h.store.SessionAndInvitation(ctx, ref, id)
		})
}

// newInvitationResponse renders inv, whose Shown is set, as read at now.
func newInvitationResponse(inv domain.Invitation, now time.Time) invitationResponse {
	shown := inv.Shown
	portfolios := make([]portfolioRef, 0, len(shown.Portfolios))
	for _, p := range shown.Portfolios {
		portfolios = append(portfolios, portfolioRef{ID: p.ID, Name: p.Name})
	}
	return invitationResponse{
		ID:           inv.ID,
		Token:        inv.Token,
		ExpiryDate:   domain.FormatTime(inv.ExpiryDate),
		Organization: organizationRef{ID: inv.OrganizationID, Name: shown.OrganizationName},
		InviterMember: inviterMember{
			ID: inv.InviterMemberID, FirstName: domain.Deref(shown.Inviter.FirstName),
			LastName: domain.Deref(shown.Inviter.LastName), Email: shown.Inviter.Email,
		},
		Email:                inv.Email,
		EmailSent:            inv.EmailSent,
		AccessiblePortfolios: portfolios,
		Status:               inv.EffectiveStatus(now),
		FirstName:            inv.FirstName,
		LastName:             inv.LastName,
		Role:                 inv.Role,
	}
}
