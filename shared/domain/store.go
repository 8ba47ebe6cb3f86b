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
	// StoredContinuationKey reads the key; nil when none has been made yet. It writes nothing, so a
	// request may send it before its token is verified (SPEC §9).
	StoredContinuationKey(ctx context.Context) ([]byte, error)
	// MakeContinuationKey stores a new key unless one exists and returns the one stored: creators that
	// race all get the one that was stored first.
	MakeContinuationKey(ctx context.Context) ([]byte, error)
}
