package domain

import (
	"context"
	"time"
)

// Login throttling (SPEC §9): failed logins are counted per email and per source IP in windows of
// LoginWindow that start at the first failure; once a window holds its limit, login for that email (or
// from that address) is refused with 429 until the window ends, whatever the password. A successful
// login neither counts nor resets a window (as django-axes by default: an attacker who also knows the
// password gains nothing, and the owner waits at most one window).
const (
	LoginFailuresPerEmail = 10
	LoginFailuresPerIP    = 100
	LoginWindow           = 15 * time.Minute
)

// FailureWindow is the failed logins of one email or one address in the window that started at their
// first failure. The zero value is no window.
type FailureWindow struct {
	Failures int
	Ends     time.Time
}

// Open reports whether the window still runs at now.
func (w FailureWindow) Open(now time.Time) bool { return now.Before(w.Ends) }

// Credentials are what login checks a password against, and the user it answers with: a copy kept on
// the email's claim, so that login finds them with its first read.
type Credentials struct {
	UserID       string
	PasswordHash string
	IsActive     bool
	// Profile is the user as the claim last copied it (PasswordHash and LastLogin left out), nil when the
	// claim holds no copy. A copy may be stale: RecordLogin with FromCopy says so.
	Profile *User
}

// LoginState is everything login decides on, read in one round trip.
type LoginState struct {
	Account       *Credentials // nil when no user has the email
	EmailFailures FailureWindow
	IPFailures    FailureWindow
}

// ThrottledFor returns how long login stays refused at now (0: it is not), the longer of the two
// windows that hold their limit.
func (s LoginState) ThrottledFor(now time.Time) time.Duration {
	var wait time.Duration
	for _, w := range []struct {
		window FailureWindow
		limit  int
	}{{s.EmailFailures, LoginFailuresPerEmail}, {s.IPFailures, LoginFailuresPerIP}} {
		if w.window.Failures >= w.limit && w.window.Open(now) {
			wait = max(wait, w.window.Ends.Sub(now))
		}
	}
	return wait
}

// LoginStore is what login needs from storage.
type LoginStore interface {
	// LoginState reads, in one round trip, the credentials of the user email names and the failed-login
	// windows of email and of sourceIP (either may be empty: its window is then zero). Costs the same
	// whether or not the email has an account.
	LoginState(ctx context.Context, email, sourceIP string) (LoginState, error)
	// RecordLoginFailure counts one failed login against email and sourceIP (either may be empty: not
	// counted), each in its open window or in a new one of LoginWindow from now. seen is the state
	// LoginState read: with it the right write is tried first, so that the count is one round trip.
	RecordLoginFailure(ctx context.Context, email, sourceIP string, seen LoginState, now time.Time) error
	// RecordLogin stores a new token and the user's last_login, and the password hash when it is not
	// empty (a hash upgraded at login), in one atomic write. Returns ENOTFOUND when the user no longer
	// exists, and ErrStaleCopy when w.FromCopy and the user changed since its claim's copy was made.
	RecordLogin(ctx context.Context, w LoginWrite) error
	// User reads one user. Returns ENOTFOUND when it does not exist.
	User(ctx context.Context, id string) (User, error)
	// Session reads a token and its user in one call (logout authenticates).
	Session(ctx context.Context, ref TokenRef) (Session, error)
	// RevokeToken deletes the token of ref, so that it no longer authenticates. Revoking a token that is
	// gone is no error.
	RevokeToken(ctx context.Context, ref TokenRef) error
}

// LoginWrite is what a successful login stores.
type LoginWrite struct {
	// User needs ID, Email, LastLogin and ProfileVersion. Unless FromCopy, it is the whole user as just
	// read, and the email claim's copy is refreshed from it.
	User            User
	Token           Token
	NewPasswordHash string
	// FromCopy: User is the email claim's copy, and the write holds only while the user's
	// ProfileVersion is still the copy's.
	FromCopy bool
}
