package domain

import "context"

// UserStore is what user creation and authentication need from storage.
type UserStore interface {
	IdempotencyStore
	// CreateUser stores a new user and claims its email (case-insensitively) in one atomic write, which
	// also completes done's claim when it is set (ErrIdempotencyKeyLost when that claim is gone).
	// Returns ErrEmailTaken when the email is taken.
	CreateUser(ctx context.Context, u User, done *IdempotencyDone) error
	// User reads one user, strongly consistent. Returns ENOTFOUND when it does not exist.
	User(ctx context.Context, id string) (User, error)
	// Session reads a token and its user in one call, for authentication alone.
	Session(ctx context.Context, ref TokenRef) (Session, error)
}

// ContinuationKeyStore holds the key that signs list continuations (SPEC §6): one key for the whole
// table, made on first use, so that every process signs and checks with the same one.
type ContinuationKeyStore interface {
	// ContinuationKey returns the key, creating it when none exists yet; creators that race all get the
	// one that was stored first.
	ContinuationKey(ctx context.Context) ([]byte, error)
}
