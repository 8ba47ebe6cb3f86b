package domain

import "context"

// InvitationStore is what the invitations function needs from storage. Its reads are shaped so that a
// GET costs two sequential calls (the session with the invitation, everything it refers to) and a
// PATCH three (the same two, then one atomic write).
type InvitationStore interface {
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
