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

// MaxPortfolioIDs bounds an invitation's accessible_portfolio_ids (SPEC §9, "Lists in bodies"): a body
// names at most this many, so that what a request reads for them is bounded too.
const MaxPortfolioIDs = 100
