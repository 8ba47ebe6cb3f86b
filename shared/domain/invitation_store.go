package domain

import (
	"context"
	"time"
)

// InvitationStore is what the invitations function needs from storage. Its reads are shaped so that a
// GET costs two sequential calls (the session with the invitation, everything it refers to) and a
// PATCH three (the same two, then one atomic write).
type InvitationStore interface {
	IdempotencyStore
	// Session reads a token and its user in one call, for a request that has nothing else to read first.
	Session(ctx context.Context, ref TokenRef) (Session, error)
	// SessionAndInvitation reads the session of ref and the invitation in one call (nil when it does not
	// exist), so that authentication is never a round trip of its own. Strongly consistent, so that the
	// invitation's Version is the one a following SaveInvitation is conditioned on.
	SessionAndInvitation(ctx context.Context, ref TokenRef, id string) (Session, *Invitation, error)
	// InvitationRefs reads, in one call, everything q names. What does not exist is simply absent from
	// the result: callers decide whether a missing reference is a client error or a fault.
	InvitationRefs(ctx context.Context, q InvitationRefsQuery) (InvitationRefs, error)
	// SaveInvitation stores inv if the stored invitation still has version inv.Version, and makes the
	// stored version inv.Version+1. With join set, the same atomic write makes the user a member of the
	// organization, unless the user already is one (an existing membership is kept as it is). Returns
	// ECONFLICT when the invitation changed (or vanished) since it was read: the caller re-reads and
	// re-applies its change.
	SaveInvitation(ctx context.Context, inv Invitation, join *NewMembership) error

	// ListInvitations reads every invitation in scope (each once), from indexes, never a Scan: its cost
	// follows the invitations in scope, not the table. The newest of an organization's come whole, the
	// rest (of an organization with many) as entries. Eventually consistent.
	ListInvitations(ctx context.Context, scope InvitationScope) (InvitationListing, error)
	// InvitationIndex reads every invitation as an entry that carries only its id and creation time,
	// from a keys-only index, never a Scan: what a list that orders all invitations and filters none
	// (staff's) needs, at a hundred bytes an invitation instead of its item. Eventually consistent.
	InvitationIndex(ctx context.Context) ([]InvitationEntry, error)
	// InvitationsByID reads the invitations ids name, in one call, in that order; one gone since it was
	// listed is left out. Eventually consistent.
	InvitationsByID(ctx context.Context, ids []string) ([]Invitation, error)

	// SessionAndDraft reads, in one call, the session of ref, the caller's invitation quota and what
	// creating an invitation to q.Email in q.OrganizationID checks first: the organization, the user
	// holding the email and the organization's pending claim on it (each only when q names it). A
	// handful of items, whatever the body: nothing the caller chooses the number of is read before the
	// session is checked (SPEC §9).
	SessionAndDraft(ctx context.Context, ref TokenRef, q InvitationDraft) (DraftRead, error)
	// DraftDetails completes what SessionAndDraft read for q, once the caller is known: the portfolios
	// q names and the invitations to the email in that organization. One round trip.
	DraftDetails(ctx context.Context, q InvitationDraft, read DraftRead) (DraftRead, error)
	// HasMember reports whether the user is a member of the organization.
	HasMember(ctx context.Context, orgID, userID string) (bool, error)
	// CreateInvitation stores a new invitation and takes the organization's pending claim on its email,
	// on the condition that the claim is still as read (claimedBy, "" for none): of two concurrent
	// creates one wins, the other gets ECONFLICT and reads again. With emailUserID (the user holding the
	// address) set, the same write requires that user not to be a member of the organization, and
	// returns ErrAlreadyMember when it is. The same write counts the invitation against its inviter's
	// quota, on the condition that the quota is still as read (quota) and below InvitationsPerWindow:
	// else ECONFLICT wrapping ErrQuotaChanged, and the caller reads it again. With done set, the same
	// write completes its Idempotency-Key claim (ErrIdempotencyKeyLost when that claim is gone).
	CreateInvitation(ctx context.Context, inv Invitation, claimedBy, emailUserID string, quota InvitationQuota,
		done *IdempotencyDone) error
	// MarkInvitationSent records that the invitation's e-mail was handed over, unless its email changed
	// meanwhile. It bumps the version, so a save that read it before retries rather than undo it.
	MarkInvitationSent(ctx context.Context, inv Invitation) error
	// DeleteInvitation removes an invitation; removing one already gone is no error.
	DeleteInvitation(ctx context.Context, id string) error
}

// InvitationScope names the invitations a list may show: all (staff), those of some organizations
// (their members), those to one address (the invitee).
type InvitationScope struct {
	All             bool
	OrganizationIDs []string
	Email           string
}

// InvitationListing is what a list read brought: invitations read whole and entries, what orders,
// filters and counts the others, whose page is then read whole (InvitationsByID).
type InvitationListing struct {
	Whole   []Invitation
	Entries []InvitationEntry
}

// InvitationEntry is an invitation as a list orders, filters and counts it (from InvitationIndex: as it
// orders and counts it, ID and CreatedAt alone).
type InvitationEntry struct {
	ID, OrganizationID, Email string
	Status                    InvitationStatus
	ExpiryDate, CreatedAt     time.Time
}

// Invitation is the entry as an Invitation that has only the entry's fields: to order and filter it
// beside whole ones, never to show it.
func (e InvitationEntry) Invitation() Invitation {
	return Invitation{ID: e.ID, OrganizationID: e.OrganizationID, Email: e.Email, Status: e.Status,
		ExpiryDate: e.ExpiryDate, CreatedAt: e.CreatedAt}
}

// InvitationDraft is what a create names before anything is read.
type InvitationDraft struct {
	OrganizationID string
	Email          string
	PortfolioIDs   []string
}

// DraftRead is what SessionAndDraft found, and DraftDetails added.
type DraftRead struct {
	Session      Session
	Quota        InvitationQuota      // the caller's (the token's user's)
	Organization *Organization        // nil: it does not exist
	EmailUserID  string               // the user holding the email; "" when there is none
	ClaimedBy    string               // the invitation holding the pending claim; "" for none
	Portfolios   map[string]Portfolio // DraftDetails: those of the organization, by id
	Invitations  []Invitation         // DraftDetails: the invitations to the email in the organization
}

// InvitationRefsQuery names what an invitation refers to, to be read together.
type InvitationRefsQuery struct {
	OrganizationIDs []string // organizations to read (the invitation's, and a new one)
	UserIDs         []string // users to read (the inviter's)
	PortfolioOrgID  string   // the organization the portfolios below must belong to
	PortfolioIDs    []string // portfolios looked up within PortfolioOrgID
	Email           string   // an email whose user id is wanted; "" for none
}

// InvitationRefs is what InvitationRefs found.
type InvitationRefs struct {
	Organizations map[string]Organization // by id
	Users         map[string]User         // by id
	Portfolios    map[string]Portfolio    // by id; only portfolios of the query's PortfolioOrgID
	EmailUserID   string                  // the user holding the query's Email; "" when there is none
}

// NewMembership is the membership an accepted invitation gives: Member.ID is a fresh id used only when
// the user is not a member yet. OrganizationName is copied onto the user, where login reads it.
type NewMembership struct {
	Member           Member
	OrganizationName string
}
