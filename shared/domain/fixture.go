package domain

// The fixture loader (infra/fixture, SPEC §7) creates what the API cannot: organizations, members,
// portfolios, invitations and comments. It validates a whole file against what is stored before it
// writes anything, so it reads the state of everything the file names at once: these are the terms of
// that read and of its comment writes, shared by the loader and the store that implements them.

// MemberKey names a membership by organization and user: a user is a member of an organization at most
// once.
type MemberKey struct{ OrganizationID, UserID string }

// CommentTag is one tag of a commented object: what a tag counter counts.
type CommentTag struct {
	Object CommentObject
	Tag    string
}

// FixtureRefs lists what the loader wants to know about the table. Every list may be empty; ids that
// are not UUIDs are simply not found.
type FixtureRefs struct {
	UserIDs         []string
	Emails          []string // owners of these email claims, matched case-insensitively
	OrganizationIDs []string
	MemberIDs       []string // members by their own id, whatever their organization and user
	MemberKeys      []MemberKey
	PortfolioIDs    []string // portfolios by their own id, whatever their organization
	InvitationIDs   []string
	CommentIDs      []string
	Objects         []CommentObject // comment counters
	Tags            []CommentTag    // tag counters
}

// FixtureState is what the store found of FixtureRefs. Absent entries do not exist.
type FixtureState struct {
	Users         map[string]User
	EmailOwners   map[string]string // EmailKey(email) → user id
	Organizations map[string]Organization
	Members       map[string]Member // by member id
	MembersByKey  map[MemberKey]Member
	Portfolios    map[string]Portfolio
	Invitations   map[string]Invitation
	Comments      map[string]Comment
	Objects       map[CommentObject]CommentCount
	Tags          map[CommentTag]int
}

// FixtureComment is one comment the loader writes: its new state and, when it replaces a stored
// comment, the stored one (whose counters and parent's reply count it gives back).
type FixtureComment struct {
	Comment  Comment // Replies and Version are the store's: ignored here
	Previous *Comment
}
