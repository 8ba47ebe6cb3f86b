package invitations

import (
	"github.com/reportingplatform/api/shared/domain"
	"github.com/reportingplatform/api/shared/httpapi"
)

// The PATCH fields of the seed. Anything else a client sends (unknown or read-only fields such as id,
// token, expiry_date or email_sent) is ignored, as DRF does.
const (
	fieldStatus     = "status"
	fieldOrg        = "organization_id"
	fieldEmail      = "email"
	fieldFirstName  = "first_name"
	fieldLastName   = "last_name"
	fieldRole       = "role"
	fieldPortfolios = "accessible_portfolio_ids"
)

// patchRequest is a PATCH body read once, before the retry loop: re-applying it after a lost race must
// not read (or report) the body twice. Fields that failed their format checks are nil/unset and their
// messages are kept in invalid, to be reported with the checks that need the stored data.
type patchRequest struct {
	status        *domain.InvitationStatus
	orgID         *string
	email         *string
	firstName     *string
	setFirstName  bool
	lastName      *string
	setLastName   bool
	role          *domain.Role
	portfolioIDs  []string
	setPortfolios bool

	sent    map[string]bool    // the PATCH fields present in the body, valid or not
	invalid domain.FieldErrors // the body's format errors, reported with those found against stored data
}

func readPatch(body *httpapi.Body) *patchRequest {
	req := &patchRequest{sent: map[string]bool{}}
	for _, f := range []string{fieldStatus, fieldOrg, fieldEmail, fieldFirstName, fieldLastName, fieldRole,
		fieldPortfolios} {
		req.sent[f] = body.Has(f)
	}
	if n, ok := body.Choice(fieldStatus, func(n int) bool { return domain.InvitationStatus(n).Valid() }, false); ok {
		req.status = domain.Ptr(domain.InvitationStatus(n))
	}
	if n, ok := body.Choice(fieldRole, func(n int) bool { return domain.Role(n).Valid() }, false); ok {
		req.role = domain.Ptr(domain.Role(n))
	}
	req.orgID, _ = body.Reference(fieldOrg, false, false)
	req.email, _ = body.String(fieldEmail, httpapi.Text{MaxLength: domain.MaxEmailLength, Email: true})
	names := httpapi.Text{AllowNull: true, AllowBlank: true, MaxLength: domain.MaxInviteeName}
	req.firstName, req.setFirstName = body.String(fieldFirstName, names)
	req.lastName, req.setLastName = body.String(fieldLastName, names)
	req.portfolioIDs, req.setPortfolios = body.UUIDList(fieldPortfolios, domain.MaxPortfolioIDs)
	req.invalid = body.Errors()
	return req
}

// onlyAnswers reports whether the body is what an invitee alone may send: status 1 (accept) or 2
// (decline) and no other PATCH field. Anything more, an empty save included (it would extend the
// expiry), needs an administrator.
func (req *patchRequest) onlyAnswers() bool {
	for f, sent := range req.sent {
		if sent && f != fieldStatus {
			return false
		}
	}
	return req.status != nil && (*req.status == domain.StatusAccepted || *req.status == domain.StatusCancelled)
}
