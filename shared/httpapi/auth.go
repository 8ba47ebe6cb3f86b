package httpapi

import (
	"context"
	"net/http"
	"strings"
	"time"

	"github.com/reportingplatform/api/shared/domain"
)

// SessionReader is the part of a store authentication needs when it reads the session on its own.
type SessionReader interface {
	Session(ctx context.Context, ref domain.TokenRef) (domain.Session, error)
}

// Authenticator checks `Authorization: Bearer <token>` with DRF TokenAuthentication's rules and
// messages (SPEC §2), in two steps so that authentication is never a round trip of its own: Bearer reads
// the header (no I/O), the handler reads the session together with the first data it needs, and Check
// decides. Authenticate does both for a handler that needs nothing else first.
type Authenticator struct {
	Sessions SessionReader
	Now      func() time.Time
}

// Bearer returns the token the request carries, or EUNAUTHENTICATED with DRF's message for a header that
// carries none or a malformed one.
func Bearer(r *http.Request) (domain.TokenRef, error) {
	words := headerWords(r.Header.Get("Authorization"))
	if len(words) == 0 || !strings.EqualFold(words[0], "bearer") {
		return domain.TokenRef{}, domain.Errorf(domain.EUNAUTHENTICATED, domain.MsgNoCredentials)
	}
	switch {
	case len(words) == 1:
		return domain.TokenRef{}, domain.Errorf(domain.EUNAUTHENTICATED, "Invalid token header. No credentials provided.")
	case len(words) > 2:
		return domain.TokenRef{}, domain.Errorf(domain.EUNAUTHENTICATED,
			"Invalid token header. Token string should not contain spaces.")
	}
	userID, hash, ok := domain.ParseTokenString(words[1])
	if !ok {
		return domain.TokenRef{}, invalidToken()
	}
	return domain.TokenRef{UserID: userID, Hash: hash}, nil
}

// Check returns the caller of a session as read, or EUNAUTHENTICATED: unknown or expired token, or a
// user made inactive.
func (a *Authenticator) Check(s domain.Session) (domain.User, error) {
	if !s.Found || !a.Now().Before(s.Token.ExpiresAt) {
		return domain.User{}, invalidToken()
	}
	if !s.User.IsActive {
		return domain.User{}, domain.Errorf(domain.EUNAUTHENTICATED, "User inactive or deleted.")
	}
	return s.User, nil
}

// Authenticate returns the caller, reading the session on its own (one call).
func (a *Authenticator) Authenticate(r *http.Request) (domain.User, error) {
	ref, err := Bearer(r)
	if err != nil {
		return domain.User{}, err
	}
	s, err := a.Sessions.Session(r.Context(), ref)
	if err != nil {
		return domain.User{}, err
	}
	return a.Check(s)
}

// AuthenticateWith authenticates r with its session read by read in the same call as the first data the
// request needs, and returns that data: authentication is never a round trip of its own. idErr is what
// the path's id was found to be wrong with (nil when it is an id, or there is none); with it nothing but
// the session is read, and idErr comes only after authentication (SPEC §2: 401, then 404).
func AuthenticateWith[T any](a *Authenticator, r *http.Request, idErr error,
	read func(ctx context.Context, ref domain.TokenRef) (domain.Session, T, error)) (domain.User, T, error) {
	var none T
	if idErr != nil {
		if _, err := a.Authenticate(r); err != nil {
			return domain.User{}, none, err
		}
		return domain.User{}, none, idErr
	}
	ref, err := Bearer(r)
	if err != nil {
		return domain.User{}, none, err
	}
	s, data, err := read(r.Context(), ref)
	if err != nil {
		return domain.User{}, none, err
	}
	caller, err := a.Check(s)
	if err != nil {
		return domain.User{}, none, err
	}
	return caller, data, nil
}

func invalidToken() error { return domain.Errorf(domain.EUNAUTHENTICATED, domain.MsgInvalidToken) }

// headerWords splits a header as DRF's get_authorization_header(request).split() does: the header as
// bytes, split at ASCII white space only (a no-break space is part of a word).
func headerWords(h string) []string {
	return strings.FieldsFunc(h, func(r rune) bool {
		switch r {
		case ' ', '\t', '\n', '\r', '\v', '\f':
			return true
		}
		return false
	})
}
