package domain

import (
	"context"
	"strings"
	"time"
)

// InvitationStore is what the invitations function needs from storage. Its reads are shaped so that a
// GET costs two sequential calls (the session with the invitation, everything it refers to) and a
// PATCH three (the same two, then one atomic write).
type InvitationStore interface {
	IdempotencyStore
	ContinuationKeyStore
	// Session reads a token and its user in one call, for a request that has nothing else to read first.
	Session(ctx context.Context, ref TokenRef) (Session, error)
	// SessionAndInvitation reads the session of ref and the invitation in one call (nil when it does not
	// exist), so that authentication is never a round trip of its own. Strongly consistent, so that the
	// invitation's Version is the one a following SaveInvitation is conditioned on.
	SessionAndInvitation(ctx context.Context, ref TokenRef, id string) (Session, *Invitation, error)
	// Invitation reads one invitation, strongly consistent; ENOTFOUND when it does not exist.
	Invitation(ctx context.Context, id string) (Invitation, error)
	// InvitationRefs reads, in one call, everything q names. What does not exist is simply absent from
	// the result: callers decide whether a missing reference is a client error or a fault.
	InvitationRefs(ctx context.Context, q InvitationRefsQuery) (InvitationRefs, error)
	// SaveInvitation stores inv, changed from before (as read), if the stored invitation still has
	// version inv.Version, and makes the stored version inv.Version+1; the counts of the lists it
	// leaves or joins change in the same write. With join set, the same atomic write makes the user a member of the
	// organization, unless the user already is one (an existing membership is kept as it is). Returns
	// ECONFLICT when the invitation changed (or vanished) since it was read: the caller re-reads and
	// re-applies its change.
	SaveInvitation(ctx context.Context, before, inv Invitation, join *NewMembership) error

	// ListInvitations reads the page of list that at names, at now: the list's count (from counters
	// that the writes of invitations keep, never from the invitations themselves) and, beside it, the
	// index entries that place the page, then the page's invitations whole: two sequential calls, one
	// more only where the entries read beside the count fell short (more entries the list hides than
	// it allows for) or where a page number lies deeper than a bounded read from the start reaches.
	// Eventually consistent: an invitation deleted since it was listed is left out.
	ListInvitations(ctx context.Context, list InvitationList, at InvitationPageAt, now time.Time) (InvitationListPage, error)

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
	// DeleteInvitation removes inv if it still has version inv.Version; ECONFLICT when it changed (or
	// is gone) since it was read.
	DeleteInvitation(ctx context.Context, inv Invitation) error
}

// InvitationList names the invitations a list shows: those of any of its sources (which never
// overlap), with the effective status Status when it is set (SPEC §5: a pending invitation past its
// expiry is expired).
type InvitationList struct {
	Sources []InvitationSource
	Status  *InvitationStatus
}

// InvitationSource is a set of invitations a list reads from one index partition: of one organization,
// to one address, to one address from one organization, or, with neither set, everyone's. Except leaves
// out the invitations of those organizations (a member's list reads them from the organization's own).
type InvitationSource struct {
	OrganizationID string
	Email          string
	Except         []string
}

// StatusCounts counts invitations by stored status.
type StatusCounts [StatusRevoked + 1]int

// Sum is the count of every status.
func (c StatusCounts) Sum() int {
	n := 0
	for _, v := range c {
		n += v
	}
	return n
}

// InvitationCount is what counting a list found: its count, and what its pages are read by.
type InvitationCount struct {
	List  InvitationList
	Total int
	// Listed counts each source's invitations by stored status; Hidden those of its Except
	// organizations, which its partition holds but the list does not show.
	Listed, Hidden []StatusCounts
	// Expired are the list's sources' pending invitations past their expiry that no write has recorded
	// (only read for a list filtered by status 0 or 3).
	Expired []InvitationEntry
}

// InvitationPageAt is the part of a list a request shows, named before its count is known: page
// Number (from 1) of Size invitations, the last page (Last), or, with From set, the Size invitations
// strictly after From in the list's order (Backward: strictly before it; Included: at or after, at or
// before), as a continuation names them.
type InvitationPageAt struct {
	Size     int
	Number   int
	Last     bool
	From     *InvitationPosition
	Backward bool
	Included bool
	// Hints, which only the store interprets, are what the page a continuation came from found of the
	// list's streams (InvitationListPage.Hints): what a page From reads of each; nil, or another list's,
	// and it reads what any mix of them could need.
	Hints []int
}

// InvitationPosition is a place in a list: lists order by creation time, newest first, then by id, so
// a creation time and an id place any invitation, present, changed or gone.
type InvitationPosition struct {
	CreatedAt time.Time
	ID        string
}

// PositionOf is where inv stands in a list.
func PositionOf(inv Invitation) InvitationPosition {
	return InvitationPosition{CreatedAt: inv.CreatedAt, ID: inv.ID}
}

// String is p as a continuation carries it: its creation time (TimeLayout) and id.
func (p InvitationPosition) String() string { return FormatTime(p.CreatedAt) + " " + p.ID }

// ParseInvitationPosition reads what String wrote; ok is false for anything else.
func ParseInvitationPosition(s string) (InvitationPosition, bool) {
	created, id, found := strings.Cut(s, " ")
	t, err := time.Parse(TimeLayout, created)
	if !found || err != nil || id == "" || strings.ContainsAny(id, " #") {
		return InvitationPosition{}, false
	}
	return InvitationPosition{CreatedAt: Stamp(t), ID: id}, true
}

// InvitationListPage is what ListInvitations read: the list's count and the page's invitations in the
// list's order. With a window From a position, More says whether the list holds invitations beyond
// the page in the reading direction (after its last, or, Backward, before its first).
type InvitationListPage struct {
	Count       int
	Invitations []Invitation
	More        bool
	// Hints are what the page's links carry for the store to read their pages by (InvitationPageAt);
	// nil when it shows nothing.
	Hints []int
}

// InvitationEntry is an invitation as an index entry names it: enough to place it in a list (and, for
// a pending one, its expiry).
type InvitationEntry struct {
	ID, OrganizationID, Email string
	CreatedAt, ExpiryDate     time.Time
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

// ExpiryStore is what the scheduled expiries function needs from storage.
type ExpiryStore interface {
	// RecordExpiries stores status 3 on pending invitations whose expiry has passed at now, each with
	// the counts it changes, in one write per invitation, and reports how many it recorded. One that a
	// save changed meanwhile is left to that save (which stores 3 itself, SPEC §5).
	RecordExpiries(ctx context.Context, now time.Time) (int, error)
}
