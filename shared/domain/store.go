package domain

import "context"

// UserStore is what login, user creation and authentication need from storage.
type UserStore interface {
	// CreateUser stores a new user and claims its email (case-insensitively) in one atomic write.
	// Returns EINVALID under "email" when the email is taken.
	CreateUser(ctx context.Context, u User) error
	// UserByEmail finds a user by email, case-insensitively. Returns ENOTFOUND when there is none.
	UserByEmail(ctx context.Context, email string) (User, error)
	// TokenUser reads a token and its user in one call. Returns ENOTFOUND when either is missing or the
	// token belongs to another user.
	TokenUser(ctx context.Context, userID, tokenHash string) (User, Token, error)
	// RecordLogin stores a new token and the user's last_login, and the password hash when it is not
	// empty (a hash upgraded at login), in one atomic write.
	RecordLogin(ctx context.Context, u User, t Token, newPasswordHash string) error
}
