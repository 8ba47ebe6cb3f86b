package domain

import "time"

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
// grows with every save; writes are conditional on it.
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
}

// EffectiveStatus is the status as read at now: a pending invitation past its expiry is expired (SPEC §5).
func (inv *Invitation) EffectiveStatus(now time.Time) InvitationStatus {
	if inv.Status == StatusPending && !now.Before(inv.ExpiryDate) {
		return StatusExpired
	}
	return inv.Status
}
