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
//
// The limits hold under parallel attempts (SPEC §9, "Login limit under load"): every attempt claims its
// place in both windows before its password is checked (BeginLogin), so at most LoginFailuresPerEmail
// passwords of one email are checked in a window however many attempts arrive at once. An attempt that
// did not fail gives its claim back: a successful login in its own write (RecordLogin), a throttled or
// unanswered one with ReleaseLogin; a failed one keeps it (RecordFailure). A claim whose attempt was
// answered 503 before that (the store failing) lapses after LoginClaimLife.
const (
	LoginFailuresPerEmail = 10
	LoginFailuresPerIP    = 100
	LoginWindow           = 15 * time.Minute
	// LoginClaimLife is how long a claim counts while its attempt is pending (SPEC §9: an attempt answered
	// 503 stops counting within 30 s): longer than any login can take (httpapi.RequestBudget and a
	// hash), so that a live attempt never lapses.
	LoginClaimLife = 20 * time.Second
)

// FailureWindow is the failed logins of one email or one address in the window that started at their
// first failure. The zero value is no window.
type FailureWindow struct {
	Failures int
	Ends     time.Time
}

// Credentials are what login checks a password against: a copy kept on the email's claim, so that
// login finds them with its first read.
type Credentials struct {
	UserID       string
	PasswordHash string
	IsActive     bool
}

// LoginClaim is one login attempt counted in advance against the failure windows of its email and of
// its source address. A window's Failures is its count with this attempt in it; 0 when this attempt
// was not counted there (no email or no address to count against).
type LoginClaim struct {
	// ID names the claim in its windows while its attempt is pending.
	ID              string
	Email, SourceIP string
	EmailWindow     FailureWindow
	IPWindow        FailureWindow
}

// Claimed reports whether the claim counted the attempt anywhere.
func (c LoginClaim) Claimed() bool { return c.EmailWindow.Failures > 0 || c.IPWindow.Failures > 0 }

// LoginAttempt is what login decides on, read and claimed in one round trip.
type LoginAttempt struct {
	Account *Credentials // nil when no user has the email
	Claim   LoginClaim
	// Wait, when positive, is how long login stays refused: a window held its limit, so the attempt was
	// not counted there, and no password is checked (what Claim holds of the other window is to be
	// given back).
	Wait time.Duration
}

// LoginStore is what login needs from storage.
type LoginStore interface {
	// BeginLogin reads the credentials of the user email names and, in the same round trip, claims the
	// attempt in the failure windows of email and of sourceIP (either may be empty: not counted there),
	// each in its open window or in a new one of LoginWindow from now. A window that holds its limit
	// makes the attempt wait (LoginAttempt.Wait) and claims nothing in it. Costs the same whether or
	// not the email has an account. The attempt comes back with what it claimed, also with a Wait or an
	// error, for the caller to give back.
	BeginLogin(ctx context.Context, email, sourceIP string, now time.Time) (LoginAttempt, error)
	// ReleaseLogin gives back the claim of an attempt that did not fail: it no longer counts.
	ReleaseLogin(ctx context.Context, c LoginClaim) error
	// RecordFailure keeps the claim of an attempt that failed: it counts until its windows end. Until
	// then a claim counts for LoginClaimLife only.
	RecordFailure(ctx context.Context, c LoginClaim) error
	// RecordLogin stores a new token and the user's last_login, and the password hash when it is not
	// empty (a hash upgraded at login), and gives back w.Claim, in one atomic write. Returns ENOTFOUND
	// when the user no longer exists.
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
	// User needs ID, Email and LastLogin.
	User            User
	Token           Token
	NewPasswordHash string
	// Claim is the login's claim in the failure windows, given back by the same write: a successful
	// login does not count.
	Claim LoginClaim
}
