package dynamo_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/reportingplatform/api/shared/domain"
)

// TestInvitationsFromAPositionAreTheOffsetPages: for every kind of list (everyone's, one organization's,
// an address's but its organizations', filtered by status 0 and 3 with expiries not recorded yet), the
// pages read from a position (the last shown, walking on; the first shown, walking back from the last
// page) are the pages read by number, whatever the ties in creation time, and a walk ends exactly
// where the list does. The address's partition holds more of the organizations' invitations than a
// stream allows for, so its read beside the count falls short and is topped up.
func TestInvitationsFromAPositionAreTheOffsetPages(t *testing.T) {
	w := newInvitationWorld(t)
	ctx := context.Background()
	now := w.inv.CreatedAt.Add(time.Minute)
	for i := range 60 {
		inv := w.inv
		inv.ID, inv.Token = uuid.NewString(), uuid.NewString()
		inv.Status = domain.InvitationStatus(i % 5)
		inv.CreatedAt = w.inv.CreatedAt.Add(-time.Duration(i/3) * time.Second) // three at each instant
		inv.Email = fmt.Sprintf("p%d@example.com", i)
		switch {
		case i%2 == 0 && i%5 != 0:
			// From Acme, cancelled: the address's own list below reads past 24 of them in one stream.
			inv.Email, inv.Status = w.invitee.Email, domain.StatusCancelled
		case i%3 == 0:
			inv.OrganizationID, inv.PortfolioIDs, inv.Email = w.other.ID, nil, w.invitee.Email
		}
		if inv.Status == domain.StatusPending && i%3 == 0 {
			inv.ExpiryDate = now.Add(-time.Second) // expired, not recorded
		}
		must(t, w.db.Store.PutInvitation(ctx, inv, nil))
	}
	pending, expired := domain.StatusPending, domain.StatusExpired
	lists := map[string]domain.InvitationList{
		"everyone's":         {Sources: []domain.InvitationSource{{}}},
		"Acme's":             {Sources: []domain.InvitationSource{{OrganizationID: w.org.ID}}},
		"the address's less": {Sources: []domain.InvitationSource{{Email: w.invitee.Email, Except: []string{w.org.ID}}}},
		"pending":            {Sources: []domain.InvitationSource{{}}, Status: &pending},
		"expired":            {Sources: []domain.InvitationSource{{}}, Status: &expired},
		"Acme's and the address's": {Sources: []domain.InvitationSource{{OrganizationID: w.org.ID},
			{Email: w.invitee.Email, Except: []string{w.org.ID}}}, Status: &pending},
	}
	for name, list := range lists {
		t.Run(name, func(t *testing.T) {
			const size = 4
			var numbered [][]string
			for n := 1; ; n++ {
				got, err := w.db.Store.ListInvitations(ctx, list, domain.InvitationPageAt{Size: size, Number: n}, now)
				must(t, err)
				if len(got.Invitations) == 0 {
					break
				}
				numbered = append(numbered, ids(got.Invitations))
			}
			if len(numbered) < 2 {
				t.Fatalf("%d pages: the list is too short to walk", len(numbered))
			}
			forward := walk(t, w, list, now, size, false, numbered[0])
			if fmt.Sprint(forward) != fmt.Sprint(numbered) {
				t.Fatalf("walking on:\n%v\nby number:\n%v", forward, numbered)
			}
			last, err := w.db.Store.ListInvitations(ctx, list, domain.InvitationPageAt{Size: size, Last: true}, now)
			must(t, err)
			back := walk(t, w, list, now, size, true, ids(last.Invitations))
			slices.Reverse(back)
			if fmt.Sprint(back) != fmt.Sprint(numbered) {
				t.Fatalf("walking back:\n%v\nby number:\n%v", back, numbered)
			}
		})
	}
}

// walk follows a list from first (a page read by number) to its end, a position at a time: on from the
// last invitation shown, or back from the first.
func walk(t *testing.T, w invitationWorld, list domain.InvitationList, now time.Time, size int, backward bool,
	first []string) [][]string {
	t.Helper()
	pages := [][]string{first}
	for {
		shown := pages[len(pages)-1]
		edge := shown[len(shown)-1]
		if backward {
			edge = shown[0]
		}
		inv, err := w.db.Store.Invitation(context.Background(), edge)
		must(t, err)
		pos := domain.PositionOf(inv)
		got, err := w.db.Store.ListInvitations(context.Background(), list,
			domain.InvitationPageAt{Size: size, From: &pos, Backward: backward}, now)
		must(t, err)
		if len(got.Invitations) == 0 {
			t.Fatalf("an empty page after %v (more was said to follow)", shown)
		}
		pages = append(pages, ids(got.Invitations))
		if !got.More {
			return pages
		}
		if len(pages) > 100 {
			t.Fatal("the walk does not end")
		}
	}
}

func ids(invs []domain.Invitation) []string {
	out := make([]string, 0, len(invs))
	for _, inv := range invs {
		out = append(out, inv.ID)
	}
	return out
}
