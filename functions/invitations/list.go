package invitations

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
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
// status or address, every one). Where the scope can be known before the session is read (a list of
// one organization, or a caller this process has seen: see readers), its read goes out with the
// session: one round trip. Only invitations stored before the copies of what they show existed cost a
// read of what they refer to.
func (h *handler) list(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	query := r.URL.Query()
	f, filterErr := readListFilters(query)
	req := pagination.Read(query)
	var guess *speculation
	if ref, err := httpapi.Bearer(r); err == nil && filterErr == nil && req.Valid() {
		if rd, ok := h.readers.get(ref.UserID); ok {
			guess = h.speculate(ctx, rd.scope(f), f)
		} else if f.organization != "" {
			// A list of one organization is, for its members and staff, all of it.
			guess = h.speculate(ctx, domain.InvitationScope{OrganizationIDs: []string{f.organization}}, f)
		}
		if guess != nil {
			// Never outlive the request (Lambda freezes the process after the response).
			defer guess.wait()
		}
	}
	caller, err := h.auth.Authenticate(r)
	if err != nil {
		return err
	}
	rd := readerOf(caller)
	h.readers.put(caller.ID, rd)
	if filterErr != nil {
		return filterErr
	}
	if !req.Valid() {
		_, err := req.Resolve(0)
		return err
	}
	scope := rd.scope(f)
	var got domain.InvitationListing
	if guess != nil && guess.scope.Equal(scope) {
		got, err = guess.wait()
	} else {
		got, err = h.readScope(ctx, scope, f)
	}
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
	if err := h.fillShown(ctx, shown); err != nil {
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

// speculation is a list read sent before the session said what the caller may read.
type speculation struct {
	scope domain.InvitationScope
	done  chan struct{}
	got   domain.InvitationListing
	err   error
}

func (h *handler) speculate(ctx context.Context, scope domain.InvitationScope, f listFilters) *speculation {
	s := &speculation{scope: scope, done: make(chan struct{})}
	go func() {
		defer close(s.done)
		s.got, s.err = h.readScope(ctx, scope, f)
	}()
	return s
}

func (s *speculation) wait() (domain.InvitationListing, error) { <-s.done; return s.got, s.err }

// reader is what decides a caller's list scope, as the session says it.
type reader struct {
	privileged bool
	orgIDs     []string // sorted
	email      string
}

func readerOf(u domain.User) reader {
	rd := reader{privileged: u.Privileged(), email: u.Email}
	for _, m := range u.Memberships {
		rd.orgIDs = append(rd.orgIDs, m.OrganizationID)
	}
	slices.Sort(rd.orgIDs)
	return rd
}

// scope is where the reader's readable invitations are: staff read all (or one organization's, when
// the filter names it); others those of their organizations and those to their own address.
func (rd reader) scope(f listFilters) domain.InvitationScope {
	if rd.privileged {
		if f.organization != "" {
			return domain.InvitationScope{OrganizationIDs: []string{f.organization}}
		}
		return domain.InvitationScope{All: true}
	}
	if f.organization != "" {
		if slices.Contains(rd.orgIDs, f.organization) {
			// A member reads all of it, the invitations to their own address included.
			return domain.InvitationScope{OrganizationIDs: []string{f.organization}}
		}
		return domain.InvitationScope{Email: rd.email}
	}
	return domain.InvitationScope{Email: rd.email, OrganizationIDs: rd.orgIDs}
}

// readers remembers, per user, the reader the last session said (bounded: a full cache starts over), so
// that the next list of a user this process served sends its index reads with the session. A guess that
// the session contradicts (a membership came or went) is read again: one round trip more, never a wrong
// page. Only users whose token once authenticated here are guessed for.
type readers struct {
	mu   sync.Mutex
	byID map[string]reader
}

const maxRemembered = 4096

func (c *readers) get(userID string) (reader, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	rd, ok := c.byID[userID]
	return rd, ok
}

func (c *readers) put(userID string, rd reader) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.byID == nil || len(c.byID) >= maxRemembered {
		c.byID = map[string]reader{}
	}
	c.byID[userID] = rd
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
