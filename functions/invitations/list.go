package invitations

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/reportingplatform/api/shared/domain"
	"github.com/reportingplatform/api/shared/httpapi"
)

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

// list serves GET /api/v1/organization-invitations/ (SPEC §10, §11): the invitations the caller may
// read (§3's GET rule), newest first, filtered and paginated. Nothing of the list is read before the
// session said who the caller is (SPEC §9). Then two round trips, whatever the list's size: its count
// beside the index entries that place the page, then the page's invitations. A page reached by a
// continuation (a link of the previous page) reads from the position it carries, not from the list's
// start, so that a walk by links reads each entry about once and misses or repeats nothing.
func (h *handler) list(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	query := r.URL.Query()
	f, filterErr := readListFilters(query)
	req := httpapi.Pagination.Read(query)
	kr := h.keys.Read(ctx)
	defer kr.Done()
	caller, err := h.Auth.Authenticate(r)
	if err != nil {
		return err
	}
	kr.Known()
	if filterErr != nil {
		return filterErr
	}
	if !req.Valid() {
		_, err := req.Resolve(0)
		return err
	}
	// The key is needed before the read only to check a continuation: a request without one reads
	// while a key not cached yet is still being read (or made, in a new table).
	key := kr.Cached()
	if httpapi.LastValue(query, httpapi.CursorParam) != "" {
		if key, err = kr.Wait(); err != nil {
			return err
		}
	}
	at := domain.InvitationPageAt{Size: req.Size, Last: req.Last()}
	at.Number, _ = req.Number()
	c, continued := req.Continuation(r, key)
	if continued {
		var pos domain.InvitationPosition
		if pos, continued = domain.ParseInvitationPosition(c.Position); continued {
			at.From, at.Backward, at.Included, at.Hints = &pos, c.Before, c.Included, c.Hints
		}
	}
	now := h.Clock.Now()
	read, err := h.store.ListInvitations(ctx, listOf(caller, f), at, now)
	if err != nil {
		return err
	}
	if key, err = kr.Wait(); err != nil {
		return err
	}
	var page httpapi.Page
	if continued {
		page = req.Continued(c, read.Count, read.More)
	} else if page, err = req.Resolve(read.Count); err != nil {
		return err
	}
	if err := checkShown(read.Invitations...); err != nil {
		return err
	}
	results := make([]invitationResponse, 0, len(read.Invitations))
	positions := make([]string, 0, len(read.Invitations))
	for _, inv := range read.Invitations {
		results = append(results, newInvitationResponse(inv, now))
		positions = append(positions, domain.PositionOf(inv).String())
	}
	httpapi.WritePage(w, r, page.Signed(key, positions).Hinted(read.Hints), results)
	return nil
}

// listOf is where the invitations the caller may read, filtered by f, are: staff read all (one
// organization's, one address's, or both, when the filters name them); others those of their
// organizations and those to their own address, each invitation from one source only.
func listOf(caller domain.User, f listFilters) domain.InvitationList {
	list := domain.InvitationList{Status: f.status}
	if utf8.RuneCountInString(f.email) > domain.MaxEmailLength {
		return list // no invitation is to such an address
	}
	if caller.Privileged() {
		list.Sources = []domain.InvitationSource{{OrganizationID: f.organization, Email: f.email}}
		return list
	}
	own := f.email == "" || domain.EmailKey(f.email) == domain.EmailKey(caller.Email)
	if f.organization != "" {
		if _, member := caller.MembershipOf(f.organization); member {
			// A member reads all of it, the invitations to their own address included.
			list.Sources = []domain.InvitationSource{{OrganizationID: f.organization, Email: f.email}}
		} else if own {
			list.Sources = []domain.InvitationSource{{OrganizationID: f.organization, Email: caller.Email}}
		}
		return list
	}
	var orgIDs []string
	for _, m := range caller.Memberships {
		orgIDs = append(orgIDs, m.OrganizationID)
	}
	slices.Sort(orgIDs)
	for _, org := range orgIDs {
		list.Sources = append(list.Sources, domain.InvitationSource{OrganizationID: org, Email: f.email})
	}
	if own {
		list.Sources = append(list.Sources, domain.InvitationSource{Email: caller.Email, Except: orgIDs})
	}
	return list
}
