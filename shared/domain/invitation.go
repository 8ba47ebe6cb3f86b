package domain

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// InvitationStatus is the seed's invitation state.
type InvitationStatus int

const (
	StatusPending   InvitationStatus = 0
	StatusAccepted  InvitationStatus = 1
	StatusCancelled InvitationStatus = 2
	StatusExpired   InvitationStatus = 3
	StatusRevoked   InvitationStatus = 4
)

// Valid reports whether s is one of the seed's states.
func (s InvitationStatus) Valid() bool { return s >= StatusPending && s <= StatusRevoked }

// Invitation invites an email to an organization with a role and access to some of its portfolios.
// InviterUserID is the inviting member's user, kept so the read shape needs no member lookup. Version
// grows with every save; writes are conditional on it. Shown is the copy of what the read shape shows of
// the items it refers to (nil: not copied yet, read them).
type Invitation struct {
	ID              string
	Token           string
	OrganizationID  string
	InviterMemberID string
	InviterUserID   string
	Email           string
	FirstName       *string
	LastName        *string
	Role            Role
	Status          InvitationStatus
	EmailSent       bool
	PortfolioIDs    []string
	ExpiryDate      time.Time
	CreatedAt       time.Time
	UpdatedAt       time.Time
	Version         int64
	Shown           *InvitationShown
}

// InvitationShown is what an invitation's read shape shows of the items it refers to: its organization's
// name, its inviter's names and email, its portfolios (those of its organization, in name order). It is
// copied onto the invitation by every write of the invitation, from what that write read, so that a read
// or a list needs no second round trip for it; the fixture loader, the only writer of organizations,
// portfolios and users' names, refreshes the copies it changes (dynamo.RefreshInvitationCopies).
type InvitationShown struct {
	OrganizationName string
	Inviter          Person
	Portfolios       []Portfolio // ID and Name
}

// Person is a user's names and email as another item shows them.
type Person struct {
	FirstName, LastName *string
	Email               string
}

// ShownFrom is what inv shows of refs. A missing organization or inviter breaks an invariant the fixture
// loader keeps (it refuses unknown references, and nothing deletes them), so it is a fault; a portfolio
// that is gone (or now another organization's) is simply not shown.
func (inv *Invitation) ShownFrom(refs InvitationRefs) (InvitationShown, error) {
	org, ok := refs.Organizations[inv.OrganizationID]
	if !ok {
		return InvitationShown{}, fmt.Errorf("invitation %s: organization %s does not exist", inv.ID, inv.OrganizationID)
	}
	inviter, ok := refs.Users[inv.InviterUserID]
	if !ok {
		return InvitationShown{}, fmt.Errorf("invitation %s: inviter user %s does not exist", inv.ID, inv.InviterUserID)
	}
	s := InvitationShown{
		OrganizationName: org.Name,
		Inviter:          Person{FirstName: inviter.FirstName, LastName: inviter.LastName, Email: inviter.Email},
		Portfolios:       []Portfolio{},
	}
	for _, id := range inv.PortfolioIDs {
		if p, ok := refs.Portfolios[id]; ok && p.OrganizationID == inv.OrganizationID {
			s.Portfolios = append(s.Portfolios, Portfolio{ID: p.ID, Name: p.Name})
		}
	}
	slices.SortFunc(s.Portfolios, func(a, b Portfolio) int {
		if c := strings.Compare(a.Name, b.Name); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	return s, nil
}

// Equal reports whether s and t show the same.
func (s *InvitationShown) Equal(t *InvitationShown) bool {
	if s == nil || t == nil {
		return s == t
	}
	eq := func(a, b *string) bool { return (a == nil) == (b == nil) && (a == nil || *a == *b) }
	return s.OrganizationName == t.OrganizationName && s.Inviter.Email == t.Inviter.Email &&
		eq(s.Inviter.FirstName, t.Inviter.FirstName) && eq(s.Inviter.LastName, t.Inviter.LastName) &&
		slices.Equal(s.Portfolios, t.Portfolios)
}

// EffectiveStatus is the status as read at now: a pending invitation past its expiry is expired (SPEC §5).
func (inv *Invitation) EffectiveStatus(now time.Time) InvitationStatus {
	if inv.Status == StatusPending && !now.Before(inv.ExpiryDate) {
		return StatusExpired
	}
	return inv.Status
}
