package invitations

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/google/uuid"
	"github.com/reportingplatform/api/shared/domain"
	"github.com/reportingplatform/api/shared/httpapi"
)

// maxAttempts bounds the optimistic-concurrency loop. A lost race means another PATCH landed in between,
// so two contenders settle on the first retry; the bound only stops a pathological storm, which then
// gets 503 and Retry-After.
const maxAttempts = 5

// patch serves PATCH: per attempt the caller's session with the invitation (the session is checked on
// the first), one read of what the change refers to and one conditional write. When the write loses a
// race the whole change is re-applied to the invitation as it now is, so concurrent PATCHes of different fields both
// land and a status change that lost answers the 400 of the state the winner left.
func (h *handler) patch(w http.ResponseWriter, r *http.Request) error {
	caller, inv, err := h.authenticate(r)
	if err != nil {
		return err
	}
	var req *patchRequest
	var c change
	err = domain.RetryOnConflict(r.Context(), maxAttempts, func(n int) error {
		if n > 1 {
			httpapi.Logger(r.Context()).Info("invitation changed concurrently, re-applying", "invitation_id", inv.ID, "attempt", n)
			// Read as the first time (with the session, already checked: a bearer token that
			// authenticated parses again), so that every attempt costs the same calls.
			ref, err := httpapi.Bearer(r)
			if err != nil {
				return err
			}
			if _, inv, err = h.store.SessionAndInvitation(r.Context(), ref, inv.ID); err != nil {
				return err
			}
		}
		c, err = h.patchOnce(r, caller, inv, &req)
		return err
	})
	if err != nil {
		return err
	}
	resp, err := newInvitationResponse(c.next, c.refs, c.now)
	if err != nil {
		return err
	}
	httpapi.WriteJSON(w, http.StatusOK, resp)
	return nil
}

// patchOnce is one attempt on the invitation as read (nil: there is none): who may change it, the body
// (read on the first attempt only: a retry re-applies what was read), the plan and the conditional
// write. ECONFLICT means another save got in between.
func (h *handler) patchOnce(r *http.Request, caller domain.User, inv *domain.Invitation, req **patchRequest) (change, error) {
	if inv == nil {
		return change{}, domain.NotFound()
	}
	may := rightsOn(caller, *inv)
	if !may.change && !may.invitee {
		if may.read {
			return change{}, domain.Forbidden()
		}
		return change{}, domain.NotFound()
	}
	if *req == nil {
		// The body is read only once the caller may change something (SPEC §2: permission and
		// object before 415/400).
		body, err := httpapi.DecodeObject(r)
		if err != nil {
			return change{}, err
		}
		*req = readPatch(body)
	}
	if !may.change && !(*req).onlyAnswers() {
		return change{}, domain.Forbidden()
	}
	c, err := h.plan(r.Context(), caller, *inv, *req, h.clock())
	if err != nil {
		return change{}, err
	}
	return c, h.store.SaveInvitation(r.Context(), c.next, c.join)
}

// change is one attempt's outcome: the invitation to store, the membership an acceptance gives, and what
// was read, from which the response is built without another read.
type change struct {
	next domain.Invitation
	join *domain.NewMembership
	refs domain.InvitationRefs
	now  time.Time
}

// plan applies req to inv as read at now. It reads, in one call, the organizations, the inviter, the
// portfolios of the (new) organization and, when accepting, the invitee's account; then it checks what
// needs that data and reports every field error at once.
func (h *handler) plan(ctx context.Context, caller domain.User, inv domain.Invitation, req *patchRequest, now time.Time) (change, error) {
	current := inv.EffectiveStatus(now)
	orgID := inv.OrganizationID
	if req.orgID != nil {
		orgID = *req.orgID
	}
	moved := orgID != inv.OrganizationID
	portfolioIDs := inv.PortfolioIDs
	switch {
	case req.setPortfolios:
		portfolioIDs = req.portfolioIDs
	case moved:
		portfolioIDs = nil // SPEC §5: portfolios of the old organization do not follow it
	}
	email := inv.Email
	if req.email != nil {
		email = *req.email
	}
	accepting := current == domain.StatusPending && req.status != nil && *req.status == domain.StatusAccepted
	q := domain.InvitationRefsQuery{
		OrganizationIDs: []string{inv.OrganizationID},
		UserIDs:         []string{inv.InviterUserID},
		PortfolioOrgID:  orgID,
		PortfolioIDs:    portfolioIDs,
	}
	if moved {
		q.OrganizationIDs = append(q.OrganizationIDs, orgID)
	}
	if accepting {
		q.Email = email
	}
	refs, err := h.store.InvitationRefs(ctx, q)
	if err != nil {
		return change{}, err
	}

	errs := req.errors()
	if req.orgID != nil && !administers(caller, orgID, refs) {
		errs.add(fieldOrg, domain.MsgDoesNotExist(orgID))
	}
	// Portfolios are judged against the organization they would belong to; when that organization is
	// itself refused there is nothing to judge them against.
	if req.setPortfolios && !errs.has(fieldOrg) {
		for _, pid := range portfolioIDs {
			if _, ok := refs.Portfolios[pid]; !ok {
				errs.add(fieldPortfolios, domain.MsgDoesNotExist(pid))
				break // DRF stops at the first id that does not resolve
			}
		}
	}
	if req.status != nil && current != domain.StatusPending && *req.status != current {
		errs.add(fieldStatus, finalStateMessage(current))
	}
	if err := errs.err(); err != nil {
		return change{}, err
	}

	next := inv
	// A pending invitation past its expiry is stored as expired before the new expiry is computed, so
	// a save never revives it (SPEC §5).
	next.Status = current
	if req.status != nil {
		next.Status = *req.status
	}
	next.OrganizationID = orgID
	next.PortfolioIDs = portfolioIDs
	if req.email != nil {
		// SPEC §5: changing the email (in any way, letter case included) means the mail is to be sent
		// again; the same address sent again is no change.
		if *req.email != inv.Email {
			next.EmailSent = false
		}
		next.Email = *req.email
	}
	if req.setFirstName {
		next.FirstName = req.firstName
	}
	if req.setLastName {
		next.LastName = req.lastName
	}
	if req.role != nil {
		next.Role = *req.role
	}
	next.ExpiryDate = now.Add(h.invitationTTL)
	next.UpdatedAt = now

	c := change{next: next, refs: refs, now: now}
	if accepting && refs.EmailUserID != "" {
		c.join = &domain.NewMembership{
			Member: domain.Member{
				ID: uuid.NewString(), OrganizationID: orgID, UserID: refs.EmailUserID, Role: next.Role,
			},
			OrganizationName: refs.Organizations[orgID].Name,
		}
	}
	return c, nil
}

// administers reports whether caller may put an invitation into organization orgID: staff into any
// organization that exists, others into one they administer.
func administers(caller domain.User, orgID string, refs domain.InvitationRefs) bool {
	if _, exists := refs.Organizations[orgID]; !exists {
		return false
	}
	if caller.Privileged() {
		return true
	}
	m, ok := caller.MembershipOf(orgID)
	return ok && m.Role == domain.RoleAdministrator
}

// finalStateMessage is the 400 for changing a final state, named with its article as SPEC §5 words it.
func finalStateMessage(s domain.InvitationStatus) string {
	names := map[domain.InvitationStatus]string{
		domain.StatusAccepted:  "an accepted",
		domain.StatusCancelled: "a cancelled",
		domain.StatusExpired:   "an expired",
		domain.StatusRevoked:   "a revoked",
	}
	return fmt.Sprintf("Cannot change the status of %s invitation.", names[s])
}
