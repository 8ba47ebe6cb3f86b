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

// partialUpdate serves PATCH: per attempt the caller's session with the invitation (the session is checked on
// the first), one read of what the change refers to (none when it names no organization, portfolio or
// acceptance) and one conditional write. When the write loses a
// race the whole change is re-applied to the invitation as it now is, so concurrent PATCHes of different
// fields both land and a status change that lost answers the 400 of the state the winner left.
func (h *handler) partialUpdate(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	caller, inv, err := h.authenticate(r)
	if err != nil {
		return err
	}
	var req *patchRequest // read once, on the first attempt: a retry re-applies what was read
	var c change
	err = domain.RetryOnConflict(ctx, maxAttempts, func(n int) error {
		if n > 1 {
			httpapi.Logger(ctx).Info("invitation changed concurrently, re-applying", "invitation_id", inv.ID, "attempt", n)
			// Read as the first time (with the session, already checked: a bearer token that
			// authenticated parses again), so that every attempt costs the same calls.
			ref, err := httpapi.Bearer(r)
			if err != nil {
				return err
			}
			if _, inv, err = h.store.SessionAndInvitation(ctx, ref, inv.ID); err != nil {
				return err
			}
		}
		may, err := patchRights(caller, inv)
		if err != nil {
			return err
		}
		if req == nil {
			// The body is read only once the caller may change something (SPEC §2: permission and
			// object before 415/400).
			body, err := httpapi.DecodeObject(r)
			if err != nil {
				return err
			}
			req = readPatch(body)
		}
		c, err = h.patchOnce(ctx, caller, *inv, may, req)
		return err
	})
	if err != nil {
		return err
	}
	httpapi.WriteJSON(w, http.StatusOK, newInvitationResponse(c.next, c.now))
	return nil
}

// patchRights is what the caller may do with the invitation as read (nil: there is none), or the error
// of one who may not change it: 403 for one who may read it, 404 for the rest.
func patchRights(caller domain.User, inv *domain.Invitation) (rights, error) {
	if inv == nil {
		return rights{}, domain.NotFound()
	}
	may := rightsOn(caller, *inv)
	switch {
	case may.change || may.invitee:
		return may, nil
	case may.read:
		return rights{}, domain.Forbidden()
	default:
		return rights{}, domain.NotFound()
	}
}

// patchOnce is one attempt of req on inv as read: what the caller's rights allow, the reads the change
// needs, its validation and the conditional write. ECONFLICT means another save got in between.
func (h *handler) patchOnce(ctx context.Context, caller domain.User, inv domain.Invitation, may rights,
	req *patchRequest) (change, error) {
	if !may.change && !req.onlyAnswers() {
		return change{}, domain.Forbidden()
	}
	now := h.Clock.Now()
	t := req.target(inv, now)
	if req.acceptsForSomeoneElse(caller, may, t) {
		return change{}, domain.Forbidden()
	}
	var refs *domain.InvitationRefs
	if req.refersAnew(t) || inv.Shown == nil {
		read, err := h.store.InvitationRefs(ctx, t.refsQuery(inv))
		if err != nil {
			return change{}, err
		}
		refs = &read
	}
	if err := req.validate(caller, t, refs); err != nil {
		return change{}, err
	}
	c, err := h.apply(inv, req, t, refs, now)
	if err != nil {
		return change{}, err
	}
	return c, h.store.SaveInvitation(ctx, inv, c.next, c.join)
}

// change is one attempt's outcome: the invitation to store (with the copy of what it shows, from which
// the response is built without another read) and the membership an acceptance gives.
type change struct {
	next domain.Invitation
	join *domain.NewMembership
	now  time.Time
}

// target is where a PATCH takes an invitation: its organization, portfolios and email after the change,
// and whether it is being accepted. What the change must read and check follows from it.
type target struct {
	current      domain.InvitationStatus // the stored status as it reads now (expired when past its expiry)
	orgID        string
	moved        bool // another organization than the stored one
	portfolioIDs []string
	email        string
	accepting    bool
}

func (req *patchRequest) target(inv domain.Invitation, now time.Time) target {
	t := target{current: inv.EffectiveStatus(now), orgID: inv.OrganizationID, portfolioIDs: inv.PortfolioIDs,
		email: inv.Email}
	if req.orgID != nil {
		t.orgID = *req.orgID
	}
	t.moved = t.orgID != inv.OrganizationID
	switch {
	case req.setPortfolios:
		t.portfolioIDs = req.portfolioIDs
	case t.moved:
		t.portfolioIDs = nil // SPEC §5: portfolios of the old organization do not follow it
	}
	if req.email != nil {
		t.email = *req.email
	}
	t.accepting = t.current == domain.StatusPending && req.status != nil && *req.status == domain.StatusAccepted
	return t
}

// acceptsForSomeoneElse reports whether the change would accept an invitation that is not accepted yet
// without the invitee asking (SPEC §3): acceptance is the invitee's own request, so staff and
// administrators may not give it, even with other fields in the same PATCH, nor by changing the address
// to their own in the PATCH that accepts. Setting status 1 on an accepted invitation changes no
// acceptance and stays a save anyone who may change it can make.
func (req *patchRequest) acceptsForSomeoneElse(caller domain.User, may rights, t target) bool {
	if req.status == nil || *req.status != domain.StatusAccepted || t.current == domain.StatusAccepted {
		return false
	}
	return !may.invitee || domain.EmailKey(t.email) != domain.EmailKey(caller.Email)
}

// refersAnew reports whether the change names what must be read before it is made: an organization
// (to check and show), portfolios (to check and show) or an acceptance (the invitee's account). A change
// of the other fields keeps what the invitation shows of its organization, inviter and portfolios, so it
// reads nothing more than the invitation.
func (req *patchRequest) refersAnew(t target) bool {
	return req.orgID != nil || req.setPortfolios || t.accepting
}

// refsQuery names everything the change and its response refer to, read in one call: the organizations,
// the inviter, the portfolios of the (new) organization and, when accepting, the invitee's account.
func (t target) refsQuery(inv domain.Invitation) domain.InvitationRefsQuery {
	q := domain.InvitationRefsQuery{
		OrganizationIDs: []string{inv.OrganizationID},
		UserIDs:         []string{inv.InviterUserID},
		PortfolioOrgID:  t.orgID,
		PortfolioIDs:    t.portfolioIDs,
	}
	if t.moved {
		q.OrganizationIDs = append(q.OrganizationIDs, t.orgID)
	}
	if t.accepting {
		q.Email = t.email
	}
	return q
}

// validate reports every field error at once, as DRF does: the body's format errors, then those found
// against the stored data.
func (req *patchRequest) validate(caller domain.User, t target, refs *domain.InvitationRefs) error {
	var errs domain.FieldErrors
	errs.Merge(req.invalid)
	if req.orgID != nil && !administers(caller, t.orgID, *refs) {
		errs.Add(fieldOrg, domain.MsgDoesNotExist(t.orgID))
	}
	// Portfolios are judged against the organization they would belong to; when that organization is
	// itself refused there is nothing to judge them against.
	if req.setPortfolios && !errs.Has(fieldOrg) {
		if missing, ok := firstMissing(t.portfolioIDs, refs.Portfolios); ok {
			errs.Add(fieldPortfolios, domain.MsgDoesNotExist(missing)) // DRF stops at the first id that does not resolve
		}
	}
	if req.status != nil && t.current != domain.StatusPending && *req.status != t.current {
		errs.Add(fieldStatus, finalStateMessage(t.current))
	}
	return errs.Err()
}

// firstMissing is the first of ids that known lacks.
func firstMissing[V any](ids []string, known map[string]V) (string, bool) {
	for _, id := range ids {
		if _, ok := known[id]; !ok {
			return id, true
		}
	}
	return "", false
}

// apply is the validated change: the invitation to store at now, with what it shows of refs (nil: what
// it showed) and, for an acceptance by an existing user, the membership it gives.
func (h *handler) apply(inv domain.Invitation, req *patchRequest, t target, refs *domain.InvitationRefs,
	now time.Time) (change, error) {
	next := inv
	// A pending invitation past its expiry is stored as expired before the new expiry is computed, so
	// a save never revives it (SPEC §5).
	next.Status = t.current
	if req.status != nil {
		next.Status = *req.status
	}
	next.OrganizationID = t.orgID
	next.PortfolioIDs = t.portfolioIDs
	// SPEC §5: changing the email (in any way, letter case included) means the mail is to be sent again;
	// the same address sent again is no change.
	if t.email != inv.Email {
		next.EmailSent = false
	}
	next.Email = t.email
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

	c := change{next: next, now: now}
	if refs == nil {
		return c, nil
	}
	shown, err := next.ShownFrom(*refs)
	if err != nil {
		return change{}, err
	}
	c.next.Shown = &shown
	if t.accepting && refs.EmailUserID != "" {
		c.join = &domain.NewMembership{
			Member: domain.Member{
				ID: uuid.NewString(), OrganizationID: t.orgID, UserID: refs.EmailUserID, Role: next.Role,
			},
			OrganizationName: refs.Organizations[t.orgID].Name,
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
