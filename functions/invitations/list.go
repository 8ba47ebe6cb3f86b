package invitations

import (
	"context"
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
// the caller's organizations, whole from GSI3, each with what it shows (past an organization's newest
// 100, as entries, then the page's whole: two more), and those to the caller's address, whole from
// GSI4 (for staff, everyone's ids from a keys-only index, then the page's invitations, or, filtered by
// status or address, every one). Nothing of the list is read before the session said who the caller
// is (SPEC §9: a caller who is nobody costs no invitation read). Only an invitation stored without its
// copy of what it shows costs a read of what it refers to.
func (h *handler) list(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	query := r.URL.Query()
	f, filterErr := readListFilters(query)
	req := pagination.Read(query)
	caller, err := h.auth.Authenticate(r)
	if err != nil {
		return err
	}
	if filterErr != nil {
		return filterErr
	}
	if !req.Valid() {
		_, err := req.Resolve(0)
		return err
	}
	got, err := h.readScope(ctx, scopeOf(caller, f), f)
	if err != nil {
		return err
	}
	now := h.clock.Now()
	page, shown, err := h.pageOf(ctx, req, got, func(inv domain.Invitation) bool {
		return rightsOn(caller, inv).read && f.keeps(inv, now)
	})
	if err != nil {
		return err
	}
	if err := checkShown(shown...); err != nil {
		return err
	}
	results := make([]invitationResponse, 0, len(shown))
	for _, inv := range shown {
		results = append(results, newInvitationResponse(inv, now))
	}
	httpapi.WritePage(w, r, page, results)
	return nil
}

// pageOf is the page of the listing's invitations that keep keeps. Entries order, filter and count as
// their invitations would; the page's are then read whole.
func (h *handler) pageOf(ctx context.Context, req httpapi.PageRequest, l domain.InvitationListing, keep func(domain.Invitation) bool) (httpapi.Page, []domain.Invitation, error) {
	partial := make(map[string]bool, len(l.Entries))
	invs := l.Whole
	for _, e := range l.Entries {
		invs = append(invs, e.Invitation())
		partial[e.ID] = true
	}
	invs = slices.DeleteFunc(invs, func(inv domain.Invitation) bool { return !keep(inv) })
	slices.SortFunc(invs, newestFirst)
	page, err := req.Resolve(len(invs))
	if err != nil {
		return page, nil, err
	}
	invs, err = h.whole(ctx, invs[page.Offset():page.Offset()+page.Len()], partial)
	return page, invs, err
}

// whole replaces the invitations of page that are entries (partial) with the invitations read whole, in
// one round trip; one deleted since it was listed is left out, and one changed since shows as it is now.
func (h *handler) whole(ctx context.Context, page []domain.Invitation, partial map[string]bool) ([]domain.Invitation, error) {
	var ids []string
	for _, inv := range page {
		if partial[inv.ID] {
			ids = append(ids, inv.ID)
		}
	}
	if len(ids) == 0 {
		return page, nil
	}
	read, err := h.store.InvitationsByID(ctx, ids)
	if err != nil {
		return nil, err
	}
	byID := make(map[string]domain.Invitation, len(read))
	for _, inv := range read {
		byID[inv.ID] = inv
	}
	out := make([]domain.Invitation, 0, len(page))
	for _, inv := range page {
		if !partial[inv.ID] {
			out = append(out, inv)
		} else if w, ok := byID[inv.ID]; ok {
			out = append(out, w)
		}
	}
	return out, nil
}

// readScope reads the invitations of scope. A list of everyone's that no filter narrows (staff's) is
// ordered and counted by ids and creation times alone: it reads them from the keys-only index, and only
// its page's invitations whole; its cost follows the number of invitations at a hundred bytes each, not
// their items.
func (h *handler) readScope(ctx context.Context, scope domain.InvitationScope, f listFilters) (domain.InvitationListing, error) {
	if scope.All && f.status == nil && f.email == "" {
		entries, err := h.store.InvitationIndex(ctx)
		return domain.InvitationListing{Entries: entries}, err
	}
	return h.store.ListInvitations(ctx, scope)
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
	if f.organization != "" {
		if _, member := caller.MembershipOf(f.organization); member {
			// A member reads all of it, the invitations to their own address included.
			return domain.InvitationScope{OrganizationIDs: []string{f.organization}}
		}
		return domain.InvitationScope{Email: caller.Email}
	}
	var orgIDs []string
	for _, m := range caller.Memberships {
		orgIDs = append(orgIDs, m.OrganizationID)
	}
	slices.Sort(orgIDs)
	return domain.InvitationScope{Email: caller.Email, OrganizationIDs: orgIDs}
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
