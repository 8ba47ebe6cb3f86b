package domain

// The seed's length limits, in characters as Django counts them (code points), defined once: the
// handlers validate bodies with them and the fixture loader refuses entries beyond them.
const (
	MaxUserFirstName = 50      // a user's first_name
	MaxUserLastName  = 100     // a user's last_name
	MaxInviteeName   = 25      // an invitation's first_name and last_name
	MaxCommentType   = 25      // a comment's content_type
	MaxCommentTag    = 50      // a comment's tag
	MaxCommentText   = 100_000 // a comment's text
)

// MaxThreadDepth is how deep a thread may go (SPEC §6): a top-level comment is at depth 0, a reply one
// deeper than its parent, so a thread holds a root and at most this many levels of replies below it. It
// also bounds the ancestors each comment carries, so that no write walks a thread.
const MaxThreadDepth = 100

// MaxPortfolioIDs bounds an invitation's accessible_portfolio_ids (SPEC §9, "Lists in bodies"): a body
// names at most this many, so that what a request reads for them is bounded too.
const MaxPortfolioIDs = 100
