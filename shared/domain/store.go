package domain

import "context"

// UserStore is what user creation and authentication need from storage.
type UserStore interface {
	// CreateUser stores a new user and claims its email (case-insensitively) in one atomic write.
	// Returns ErrEmailTaken when the email is taken.
	CreateUser(ctx context.Context, u User) error
	// Session reads a token and its user in one call, for authentication alone.
	Session(ctx context.Context, ref TokenRef) (Session, error)
}
