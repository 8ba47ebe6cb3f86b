// Package auth serves POST /api/v1/auth/login (SPEC §2) and POST /api/v1/auth/logout (SPEC §10).
// Login: email and password in, the user record with a new Bearer token out. Failed logins are counted
// per email and per source address and throttled (SPEC §9, domain.LoginFailuresPerEmail): every attempt
// claims its place in both windows before its password is checked, in the same round trip as the read
// of the email's claim, which carries the credentials; the user is read while the password is hashed;
// a successful login gives its place back in its one atomic write. Every refused login checks one hash
// of the same kind.
package auth

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/reportingplatform/api/shared/domain"
	"github.com/reportingplatform/api/shared/httpapi"
	"github.com/reportingplatform/api/shared/password"
)

// The seed's login path and SPEC §10's logout; the router also serves them with a trailing slash.
const (
	LoginPath  = "/api/v1/auth/login"
	LogoutPath = "/api/v1/auth/logout"
)

type handler struct {
	users    domain.LoginStore
	auth     *httpapi.Authenticator
	tokenTTL time.Duration
	clock    domain.Clock
	verify   verifier
}

// verifier checks a password against a stored hash (password.Verify).
type verifier func(plain, encoded string) (ok, needsRehash bool, err error)

// New returns the auth function's HTTP handler.
func New(users domain.LoginStore, log *slog.Logger, tokenTTL time.Duration, now func() time.Time) *httpapi.Router {
	return newRouter(users, log, tokenTTL, now, password.Verify)
}

func newRouter(users domain.LoginStore, log *slog.Logger, tokenTTL time.Duration, now func() time.Time,
	verify verifier) *httpapi.Router {
	h := &handler{users: users, auth: &httpapi.Authenticator{Sessions: users, Now: now}, tokenTTL: tokenTTL,
		clock: now, verify: verify}
	rt := httpapi.NewRouter(log)
	rt.UseAuthenticator(h.auth)
	rt.HandleOpen(http.MethodPost, LoginPath, h.login)
	rt.Handle(http.MethodPost, LogoutPath, h.logout)
	return rt
}

// logout serves POST /api/v1/auth/logout (SPEC §10): the token it is called with stops authenticating;
// the caller's other tokens stay valid (each login is its own session, as with knox's logout). No body is
// read. Two round trips: the session, then the delete.
func (h *handler) logout(w http.ResponseWriter, r *http.Request) error {
	if _, err := h.auth.Authenticate(r); err != nil {
		return err
	}
	ref, err := httpapi.Bearer(r)
	if err != nil {
		return err
	}
	// A delete that meets a transaction on the token (ECONFLICT) is sent again as it is.
	revoke := func(int) error { return h.users.RevokeToken(r.Context(), ref) }
	if err := domain.RetryOnConflict(r.Context(), maxAttempts, revoke); err != nil {
		return err
	}
	httpapi.WriteNoContent(w)
	return nil
}

// loginResponse is the seed's User (login response), in the seed's field order.
type loginResponse struct {
	ID              string  `json:"id"`
	Token           string  `json:"token"`
	Organizations   string  `json:"organizations"`
	Password        string  `json:"password"`
	LastLogin       *string `json:"last_login"`
	IsSuperuser     bool    `json:"is_superuser"`
	IsStaff         bool    `json:"is_staff"`
	IsActive        bool    `json:"is_active"`
	DateJoined      string  `json:"date_joined"`
	CreatedAt       string  `json:"created_at"`
	UpdatedAt       string  `json:"updated_at"`
	Email           string  `json:"email"`
	FirstName       string  `json:"first_name"`
	LastName        string  `json:"last_name"`
	Groups          []int   `json:"groups"`
	UserPermissions []int   `json:"user_permissions"`
}

type organizationEntry struct {
	ID   string      `json:"id"`
	Name string      `json:"name"`
	Role domain.Role `json:"role"`
}

// unusablePasswordPrefix marks Django's set_unusable_password() hashes: a user who cannot log in with a
// password, not a damaged hash.
const unusablePasswordPrefix = "!"

// maxAttempts bounds how often a login's write is sent again after DynamoDB cancelled it for meeting
// another transaction on the same items.
const maxAttempts = 3

var errBadCredentials = domain.FieldError(domain.NonFieldErrors, domain.MsgBadCredentials)

func (h *handler) login(w http.ResponseWriter, r *http.Request) error {
	body, err := httpapi.DecodeObject(r)
	if err != nil {
		return err
	}
	username, _ := body.String("username", httpapi.Text{Required: true})
	plain, _ := body.String("password", httpapi.Text{Required: true, NoTrim: true})
	if err := body.Err(); err != nil {
		return err
	}
	ctx := r.Context()
	now := h.clock.Now()
	email := *username
	// No account has an email longer than the seed's 255 characters; such a name is not even looked up
	// (it could exceed DynamoDB's key size), and only its source address counts its failure.
	if utf8.RuneCountInString(email) > domain.MaxEmailLength {
		email = ""
	}
	ip := httpapi.SourceIP(ctx)
	// The attempt counts before its password is checked (SPEC §9, "Login limit under load"): a login
	// that could not be counted, or whose window is full, checks nothing.
	attempt, err := h.users.BeginLogin(ctx, email, ip, now)
	if err == nil && attempt.Wait > 0 {
		err = domain.Throttled(attempt.Wait)
	}
	if err != nil {
		h.release(ctx, attempt.Claim)
		return err
	}
	user, token, err := h.admit(ctx, attempt, *plain, now)
	if errors.Is(err, errRefused) {
		// A failed login: its claim stays, counted. Not recorded, it lapses (domain.LoginClaimLife),
		// and the answer says the store failed rather than count a failure it may not keep.
		if err := h.users.RecordFailure(ctx, attempt.Claim); err != nil {
			return err
		}
		return errBadCredentials
	}
	if err != nil {
		h.release(ctx, attempt.Claim) // no verdict: the attempt did not fail
		return err
	}
	resp, err := newLoginResponse(user, token)
	if err != nil {
		return err
	}
	httpapi.WriteJSON(w, http.StatusCreated, resp)
	return nil
}

// errRefused is a login refused as DRF refuses it (errBadCredentials), whichever check failed: a
// password that does not match, an inactive or unknown account, one without a usable password, or one
// deleted while it logged in.
var errRefused = errors.New("refused")

// admit checks the password of the attempt and, when it passes, records the login (giving back the
// attempt's claim in the same write) and returns the user to answer with and its new token.
func (h *handler) admit(ctx context.Context, attempt domain.LoginAttempt, plain string,
	now time.Time) (domain.User, string, error) {
	acct := attempt.Account
	user, upgraded, err := h.checkPassword(ctx, acct, plain)
	if err != nil {
		return domain.User{}, "", err
	}
	token, hash, err := domain.NewTokenString(acct.UserID)
	if err != nil {
		return domain.User{}, "", err
	}
	user.LastLogin = &now
	write := domain.LoginWrite{
		User: user, NewPasswordHash: upgraded, Claim: attempt.Claim,
		Token: domain.Token{Hash: hash, UserID: acct.UserID, CreatedAt: now, ExpiresAt: now.Add(h.tokenTTL)},
	}
	// DynamoDB cancels one of two transactions that meet on an item (ECONFLICT): logins of one account
	// from parallel workers both write its user. The write holds nothing read that a retry must read
	// again, so it is sent again as it is.
	err = domain.RetryOnConflict(ctx, maxAttempts, func(int) error { return h.users.RecordLogin(ctx, write) })
	if domain.ErrorCode(err) == domain.ENOTFOUND {
		return domain.User{}, "", errRefused // the account was deleted while it logged in
	}
	return user, token, err
}

// checkPassword checks plain against acct and returns the user to answer with, read while the hash is
// checked (the read then costs no time of its own, and it is done before anything is written, so that
// a failing read leaves the table as it was, SPEC §9). upgraded is a new hash of plain when Verify
// asks for a rehash, else "". errRefused when the password or the account does not pass.
func (h *handler) checkPassword(ctx context.Context, acct *domain.Credentials,
	plain string) (user domain.User, upgraded string, err error) {
	var (
		readErr error
		read    = make(chan struct{})
	)
	// Every login reads a user beside its hash, its own or, for an unknown email, none that exists
	// (the id ""): the same calls and the same work whichever way it fails (SPEC §9, "Login timing").
	var id string
	if acct != nil {
		id = acct.UserID
	}
	go func() {
		defer close(read)
		user, readErr = h.users.User(ctx, id)
	}()
	ok, rehash := h.passwordMatches(ctx, acct, plain)
	<-read
	if !ok {
		return domain.User{}, "", errRefused
	}
	if domain.ErrorCode(readErr) == domain.ENOTFOUND {
		return domain.User{}, "", errRefused // the account was deleted while it logged in
	}
	if readErr != nil {
		return domain.User{}, "", readErr
	}
	if rehash {
		if upgraded, err = password.Hash(plain); err != nil {
			return domain.User{}, "", err
		}
	}
	return user, upgraded, nil
}

// passwordMatches checks plain against the account's hash with one hash of the same kind however the
// login fails (SPEC §9, "Login timing"): an unknown or inactive account, or one whose hash is unusable
// (Django's "!" prefix) or unreadable, which Verify refuses before any work, is checked against the
// dummy argon2id hash instead, as long as a wrong password against a current hash takes.
func (h *handler) passwordMatches(ctx context.Context, acct *domain.Credentials, plain string) (ok, rehash bool) {
	if acct != nil && acct.IsActive {
		ok, rehash, err := h.verify(plain, acct.PasswordHash)
		if err == nil {
			return ok, rehash
		}
		if !strings.HasPrefix(acct.PasswordHash, unusablePasswordPrefix) {
			httpapi.Logger(ctx).Warn("stored password hash unreadable", "user_id", acct.UserID)
		}
	}
	_, _, _ = h.verify(plain, password.DummyHash)
	return false, false
}

// release gives back the claim of an attempt that did not fail. When that cannot be done the attempt
// stays counted: the limit errs towards refusing.
func (h *handler) release(ctx context.Context, c domain.LoginClaim) {
	if !c.Claimed() {
		return
	}
	if err := h.users.ReleaseLogin(ctx, c); err != nil {
		httpapi.Logger(ctx).Warn("login claim not given back", "error", err)
	}
}

func newLoginResponse(u domain.User, token string) (loginResponse, error) {
	orgs := make([]organizationEntry, 0, len(u.Memberships))
	for _, m := range u.Memberships {
		orgs = append(orgs, organizationEntry{ID: m.OrganizationID, Name: m.OrganizationName, Role: m.Role})
	}
	orgsJSON, err := json.Marshal(orgs)
	if err != nil {
		return loginResponse{}, err
	}
	lastLogin := domain.FormatTime(*u.LastLogin)
	return loginResponse{
		ID: u.ID, Token: token, Organizations: string(orgsJSON), Password: "",
		LastLogin: &lastLogin, IsSuperuser: u.IsSuperuser, IsStaff: u.IsStaff, IsActive: u.IsActive,
		DateJoined: domain.FormatTime(u.DateJoined), CreatedAt: domain.FormatTime(u.CreatedAt),
		UpdatedAt: domain.FormatTime(u.UpdatedAt), Email: u.Email,
		FirstName: domain.Deref(u.FirstName), LastName: domain.Deref(u.LastName),
		Groups: []int{}, UserPermissions: []int{},
	}, nil
}
