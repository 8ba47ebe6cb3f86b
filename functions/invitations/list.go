package invitations

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/reportingplatform/api/shared/domain"
	"github.com/reportingplatform/api/shared/httpapi"
)

// pagination is DRF's PageNumberPagination as SPEC §6 sets it for comments, and §10 for invitations.
var pagination = httpapi.PageNumberPagination{PageSize: 20, MaxPageSize: 100}

// listFilters are SPEC §10's optional filters; empty strings and nil are "not filtered".
type listFilters struct {
	organization string
	status       *domain.InvitationStatus
	email        string
}

// readListFilters reads the filters as django-filter's form does: the last value of a repeated
// parameter, stripped; an empty value is no filter; every failing filter reported at once.
func readListFilters(q url.Values) (listFilters, error) {
	var f listFilters
	var errs domain.FieldErrors
	if raw := strings.TrimSpace(httpapi.LastValue(q, "organization")); raw != "" {
		if id, ok := httpapi.ParseUUID(raw); ok {
			f.organization = id
		} else {
			errs.Add("organization", "Enter a valid UUID.")
		}
	}
	// A ChoiceFilter's field neither strips nor converts: "1" is a choice, " 1", "01" or "1.0" is not.
	if raw := httpapi.LastValue(q, "status"); raw != "" {
		if len(raw) == 1 && raw[0] >= '0' && raw[0] <= '4' {
			f.status = domain.Ptr(domain.InvitationStatus(raw[0] - '0'))
		} else {
			errs.Add("status", fmt.Sprintf("Select a valid choice. %s is not one of the available choices.", raw))
		}
	}
	f.email = strings.TrimSpace(httpapi.LastValue(q, "email"))
	if strings.ContainsRune(f.email, 0) {
		errs.Add("email", "Null characters are not allowed.")
	}
	return f, errs.Err()
}

// list serves GET /api/v1/organization-invitations/ (SPEC §10): the invitations the caller may read
// (§3's GET rule), newest first, filtered and paginated. Round trips: the session; the invitations of
// the caller's organizations, whole, from GSI3 (with the invitee's and, for staff, everyone's from
// keys-only indexes, whose items then take one more); the page's organizations, inviters and portfolios.
func (h *handler) list(w http.ResponseWriter, r *http.Request) error {
	caller, err := h.auth.Authenticate(r)
	if err != nil {
		return err
	}
	query := r.URL.Query()
	f, err := readListFilters(query)
	if err != nil {
		return err
	}
	req := pagination.Read(query)
	if !req.Valid() {
		_, err := req.Resolve(0)
		return err
	}
	invs, err := h.store.ListInvitations(r.Context(), scopeOf(caller, f))
	if err != nil {
		return err
	}
	now := h.clock.Now()
	shown := slices.DeleteFunc(invs, func(inv domain.Invitation) bool { return !rightsOn(caller, inv).read || !f.keeps(inv, now) })
	slices.SortFunc(shown, newestFirst)
	page, err := req.Resolve(len(shown))
	if err != nil {
		return err
	}
	shown = shown[page.Offset() : page.Offset()+page.Len()]
	var results []invitationResponse
	if len(shown) > 0 {
		refs, err := h.store.InvitationPageRefs(r.Context(), shown)
		if err != nil {
			return err
		}
		for _, inv := range shown {
			resp, err := newInvitationResponse(inv, refs, now)
			if err != nil {
				return err
			}
			results = append(results, resp)
		}
	}
	httpapi.WritePage(w, r, page, results)
	return nil
}

// scopeOf is where the caller's readable invitations are: staff read all (or one organization's, when
// the filter names it); others those of their organizations and those to their own address.
func scopeOf(caller domain.User, f listFilters) domain.InvitationScope {
	if caller.Privileged() {
		if f.organization != "" {
			return domain.InvitationScope{OrganizationIDs: []string{f.organization}}
		}
		return domain.InvitationScope{All: true}
	}
	scope := domain.InvitationScope{Email: caller.Email}
	for _, m := range caller.Memberships {
		if f.organization == "" || f.organization == m.OrganizationID {
			scope.OrganizationIDs = append(scope.OrganizationIDs, m.OrganizationID)
		}
	}
	return scope
}

// keeps applies the filters: the organization, the status as read now (a pending invitation past its
// expiry is expired), the address case-insensitively (django-filter's iexact).
func (f listFilters) keeps(inv domain.Invitation, now time.Time) bool {
	return (f.organization == "" || inv.OrganizationID == f.organization) &&
		(f.status == nil || inv.EffectiveStatus(now) == *f.status) &&
		(f.email == "" || strings.EqualFold(inv.Email, f.email))
}

// newestFirst orders by creation time, newest first, ties by id.
func newestFirst(a, b domain.Invitation) int {
	if c := b.CreatedAt.Compare(a.CreatedAt); c != 0 {
		return c
	}
	return strings.Compare(a.ID, b.ID)
}
