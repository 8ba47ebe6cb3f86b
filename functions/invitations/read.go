package invitations

import (
	"context"
	"fmt"
	"net/http"
	"sort"
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

// read serves GET: the caller's session with the invitation, then everything it refers to in one call.
func (h *handler) read(w http.ResponseWriter, r *http.Request) error {
	caller, inv, err := h.authenticate(r)
	if err != nil {
		return err
	}
	// Those who may not read it learn nothing, not even that it exists.
	if inv == nil || !rightsOn(caller, *inv).read {
		return domain.NotFound()
	}
	refs, err := h.store.InvitationRefs(r.Context(), domain.InvitationRefsQuery{
		OrganizationIDs: []string{inv.OrganizationID},
		UserIDs:         []string{inv.InviterUserID},
		PortfolioOrgID:  inv.OrganizationID,
		PortfolioIDs:    inv.PortfolioIDs,
	})
	if err != nil {
		return err
	}
	resp, err := newInvitationResponse(*inv, refs, h.clock.Now())
	if err != nil {
		return err
	}
	httpapi.WriteJSON(w, http.StatusOK, resp)
	return nil
}

// authenticate reads the caller's session and the invitation of the path in one call, and decides
// authentication first (SPEC §2: 401 before 404). The invitation is nil when the path names none.
func (h *handler) authenticate(r *http.Request) (domain.User, *domain.Invitation, error) {
	id, idErr := httpapi.PathID(r)
	return httpapi.AuthenticateWith(h.auth, r, idErr, func(ctx context.Context, ref domain.TokenRef) (domain.Session, *domain.Invitation, error) {
		return h.store.SessionAndInvitation(ctx, ref, id)
	})
}

// newInvitationResponse renders inv with what it refers to. A missing organization or inviter breaks an
// invariant the fixture loader keeps (it refuses unknown references, and nothing deletes them), so it is
// a fault, not a 404. A portfolio that is gone is simply not listed.
func newInvitationResponse(inv domain.Invitation, refs domain.InvitationRefs, now time.Time) (invitationResponse, error) {
	org, ok := refs.Organizations[inv.OrganizationID]
	if !ok {
		return invitationResponse{}, fmt.Errorf("invitation %s: organization %s does not exist", inv.ID, inv.OrganizationID)
	}
	inviter, ok := refs.Users[inv.InviterUserID]
	if !ok {
		return invitationResponse{}, fmt.Errorf("invitation %s: inviter user %s does not exist", inv.ID, inv.InviterUserID)
	}
	portfolios := make([]portfolioRef, 0, len(inv.PortfolioIDs))
	for _, id := range inv.PortfolioIDs {
		if p, ok := refs.Portfolios[id]; ok {
			portfolios = append(portfolios, portfolioRef{ID: p.ID, Name: p.Name})
		}
	}
	sort.Slice(portfolios, func(i, j int) bool {
		if portfolios[i].Name != portfolios[j].Name {
			return portfolios[i].Name < portfolios[j].Name
		}
		return portfolios[i].ID < portfolios[j].ID
	})
	return invitationResponse{
		ID:           inv.ID,
		Token:        inv.Token,
		ExpiryDate:   domain.FormatTime(inv.ExpiryDate),
		Organization: organizationRef{ID: org.ID, Name: org.Name},
		InviterMember: inviterMember{
			ID: inv.InviterMemberID, FirstName: domain.Deref(inviter.FirstName),
			LastName: domain.Deref(inviter.LastName), Email: inviter.Email,
		},
		Email:                inv.Email,
		EmailSent:            inv.EmailSent,
		AccessiblePortfolios: portfolios,
		Status:               inv.EffectiveStatus(now),
		FirstName:            inv.FirstName,
		LastName:             inv.LastName,
		Role:                 inv.Role,
	}, nil
}
