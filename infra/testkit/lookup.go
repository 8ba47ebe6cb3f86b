package testkit

import (
	"context"
	"testing"

	"github.com/reportingplatform/api/shared/domain"
)

// UserByEmail finds a user the way login does (the email's claim, case-insensitively), then reads the
// user itself. Returns ENOTFOUND when no user has the email.
func (db *DB) UserByEmail(tb testing.TB, email string) (domain.User, error) {
	tb.Helper()
	acct, err := db.Store.Credentials(context.Background(), email)
	if err != nil {
		return domain.User{}, err
	}
	if acct == nil {
		return domain.User{}, domain.NotFound()
	}
	u, err := db.Store.User(context.Background(), acct.UserID)
	if err == nil && (u.PasswordHash != acct.PasswordHash || u.IsActive != acct.IsActive) {
		tb.Fatalf("the claim of %s carries other credentials than user %s", email, u.ID)
	}
	return u, err
}
