package invitations

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/google/uuid"
	"github.com/reportingplatform/api/shared/domain"
	"github.com/reportingplatform/api/shared/httpapi"
)

// Messages of SPEC §10's create.
const (
	msgPendingExists = "This email already has a pending invitation to this organization."
	msgMemberExists  = "A member with this email already exists."
)

// createRequest is a valid POST body.
type createRequest struct {
	orgID, email        string
	firstName, lastName *string
	role                domain.Role
	portfolioIDs        []string
	body                *httpapi.Body
}

// readCreate reads a POST body: organization_id and email required, the rest as PATCH reads them.
func readCreate(r *http.Request) (*createRequest, error) {
	body, err := httpapi.DecodeObject(r)
	if err != nil {
		return nil, err
	}
	req := createRequest{body: body}
	if id, ok := body.Reference(fieldOrg, true, false); ok {
		req.orgID = *id
	}
	if email, ok := body.String(fieldEmail,
		httpapi.Text{Required: true, MaxLength: domain.MaxEmailLength, Email: true}); ok {
		req.email = *email
	}
	names := httpapi.Text{AllowNull: true, AllowBlank: true, MaxLength: domain.MaxInviteeName}
	req.firstName, _ = body.String(fieldFirstName, names)
	req.lastName, _ = body.String(fieldLastName, names)
	if n, ok := body.Choice(fieldRole, func(n int) bool { return domain.Role(n).Valid() }, false); ok {
		req.role = domain.Role(n)
	}
	req.portfolioIDs, _ = body.UUIDList(fieldPortfolios, domain.MaxPortfolioIDs)
	if err := body.Err(); err != nil {
		return nil, err
	}
	return &req, nil
}

// create serves POST /api/v1/organization-invitations/ (SPEC §10). Administrators of the organization,
// and staff who are members of it, invite; the inviter is the caller's membership; a caller who used
// up the invitation rate gets 429 (SPEC §9), checked right after authentication as DRF throttles.
// Round trips: the session with the caller's quota, the organization and the email's account and
// pending claim (a handful of items, whatever the body: SPEC §9); once the caller is known, the
// portfolios and the claimed invitation beside the address's pending invitations from GSI2; one
// transaction, which also counts the invitation and requires the address's user not to be a member;
// after the e-mail is handed over, one write of email_sent. An Idempotency-Key (SPEC §9) is claimed
// right after authentication (one round trip more), and completed by the transaction: a retry finds
// the invitation there and never sends the e-mail again, even when the window is full since.
func (h *handler) create(w http.ResponseWriter, r *http.Request) (err error) {
	req, bodyErr := readCreate(r)
	var q domain.InvitationDraft // a body with errors names nothing to read: the session and quota alone
	if bodyErr == nil {
		q = domain.InvitationDraft{OrganizationID: req.orgID, Email: req.email, PortfolioIDs: req.portfolioIDs}
	}
	read := func(ctx context.Context, ref domain.TokenRef) (domain.Session, domain.DraftRead, error) {
		d, err := h.store.SessionAndDraft(ctx, ref, q)
		return d.Session, d, err
	}
	caller, draft, err := httpapi.AuthenticateWith(h.Auth, r, nil, read)
	if err != nil {
		return err
	}
	var key *httpapi.KeyClaim
	if bodyErr == nil {
		if key, err = h.Keys.Claim(r, caller.ID, req.body); err != nil {
			return err
		}
		if id, status, ok := key.Replay(); ok {
			return h.replayCreate(w, r, caller, id, status)
		}
		defer key.Settle(r.Context(), &err)
	}
	ctx := r.Context()
	var inv domain.Invitation
	err = domain.RetryOnConflict(ctx, maxAttempts, func(n int) error {
		if n > 1 {
			ref, err := httpapi.Bearer(r)
			if err != nil {
				return err
			}
			if draft, err = h.store.SessionAndDraft(ctx, ref, q); err != nil {
				return err
			}
		}
		// Throttled first, as DRF throttles before it reads the body; again after a lost race, which
		// may have been over the last invitation the window allowed.
		if wait := draft.Quota.Wait(h.Clock.Now()); wait > 0 {
			return domain.Throttled(wait)
		}
		if bodyErr != nil {
			return bodyErr
		}
		inviter, err := mayInvite(caller, req.orgID, draft)
		if err != nil {
			return err
		}
		if draft, err = h.store.DraftDetails(ctx, q, draft); err != nil {
			return err
		}
		now := h.Clock.Now()
		if err := h.checkCreate(ctx, req, draft, now); err != nil {
			return err
		}
		inv = domain.Invitation{
			ID: uuid.NewString(), Token: uuid.NewString(), OrganizationID: req.orgID,
			InviterMemberID: inviter.MemberID, InviterUserID: caller.ID, Email: req.email,
			FirstName: req.firstName, LastName: req.lastName, Role: req.role, Status: domain.StatusPending,
			PortfolioIDs: req.portfolioIDs, ExpiryDate: now.Add(h.invitationTTL), CreatedAt: now, UpdatedAt: now,
		}
		shown, err := inv.ShownFrom(domain.InvitationRefs{
			Organizations: map[string]domain.Organization{inv.OrganizationID: *draft.Organization},
			Users:         map[string]domain.User{caller.ID: caller},
			Portfolios:    draft.Portfolios,
		})
		if err != nil {
			return err
		}
		inv.Shown = &shown
		err = h.store.CreateInvitation(ctx, inv, draft.ClaimedBy, draft.EmailUserID, draft.Quota, key.Done(inv.ID))
		if errors.Is(err, domain.ErrAlreadyMember) {
			return domain.FieldError(fieldEmail, msgMemberExists)
		}
		return err
	})
	if err != nil {
		return err
	}
	inv.EmailSent = h.send(ctx, inv)
	httpapi.WriteJSON(w, http.StatusCreated, newInvitationResponse(inv, inv.CreatedAt))
	return nil
}

// mayInvite returns the caller's membership of orgID when it may invite into it. To one who may not,
// the organization does not exist, and nothing about its members, portfolios or invitations is read
// or told.
func mayInvite(caller domain.User, orgID string, draft domain.DraftRead) (domain.Membership, error) {
	m, member := caller.MembershipOf(orgID)
	if draft.Organization == nil || !member || (m.Role != domain.RoleAdministrator && !caller.Privileged()) {
		return m, domain.FieldError(fieldOrg, domain.MsgDoesNotExist(orgID))
	}
	return m, nil
}

// checkCreate applies the rest of SPEC §10's rules. That the address's user is not a member is the
// write's condition (CreateInvitation); only a request refused for other reasons reads the membership,
// so that the 400 names every error, the member's first.
func (h *handler) checkCreate(ctx context.Context, req *createRequest, draft domain.DraftRead, now time.Time) error {
	var errs domain.FieldErrors
	if missing, ok := firstMissing(req.portfolioIDs, draft.Portfolios); ok {
		errs.Add(fieldPortfolios, domain.MsgDoesNotExist(missing))
	}
	pending := hasPending(draft.Invitations, now)
	if (pending || errs.Err() != nil) && draft.EmailUserID != "" {
		isMember, err := h.store.HasMember(ctx, req.orgID, draft.EmailUserID)
		if err != nil {
			return err
		}
		if isMember {
			errs.Add(fieldEmail, msgMemberExists)
			return errs.Err()
		}
	}
	if pending {
		errs.Add(fieldEmail, msgPendingExists)
	}
	return errs.Err()
}

func hasPending(invs []domain.Invitation, now time.Time) bool {
	for _, inv := range invs {
		if inv.EffectiveStatus(now) == domain.StatusPending {
			return true
		}
	}
	return false
}

// send hands the invitation e-mail over and records it (SPEC §10). A failure is logged and leaves
// email_sent false; the invitation stands (the 201 is not undone by a mail problem), and MailFunction
// sends it from the table's stream once this request can no longer (SPEC §9, mail.Window).
func (h *handler) send(ctx context.Context, inv domain.Invitation) bool {
	log := httpapi.Logger(ctx)
	if err := h.mailer.SendInvitation(ctx, inv.Mail()); err != nil {
		log.Warn("invitation e-mail not sent", "invitation_id", inv.ID, "error", err)
		return false
	}
	if err := h.store.MarkInvitationSent(ctx, inv); err != nil {
		log.Warn("invitation e-mail sent but not recorded", "invitation_id", inv.ID, "error", err)
		return false
	}
	return true
}
