package httpapi

import (
	"context"
	"net/http"
	"strings"
	"time"

	"github.com/reportingplatform/api/shared/domain"
)

// TokenReader is the part of the user store authentication needs.
type TokenReader interface {
	TokenUser(ctx context.Context, userID, tokenHash string) (domain.User, domain.Token, error)
}

// Authenticator checks `Authorization: Bearer <token>` with DRF TokenAuthentication's rules and
// messages (SPEC §2). It costs one DynamoDB call: the token names its user, and both are read together.
type Authenticator struct {
	Tokens TokenReader
	Now    func() time.Time
}

// Authenticate returns the caller, or EUNAUTHENTICATED with DRF's message for what is wrong.
func (a *Authenticator) Authenticate(r *http.Request) (domain.User, error) {
	words := strings.Fields(r.Header.Get("Authorization"))
	if len(words) == 0 || !strings.EqualFold(words[0], "bearer") {
		return domain.User{}, domain.Errorf(domain.EUNAUTHENTICATED, domain.MsgNoCredentials)
	}
	switch {
	case len(words) == 1:
		return domain.User{}, domain.Errorf(domain.EUNAUTHENTICATED, "Invalid token header. No credentials provided.")
	case len(words) > 2:
		return domain.User{}, domain.Errorf(domain.EUNAUTHENTICATED, "Invalid token header. Token string should not contain spaces.")
	}
	invalid := domain.Errorf(domain.EUNAUTHENTICATED, domain.MsgInvalidToken)
	userID, hash, ok := domain.ParseTokenString(words[1])
	if !ok {
		return domain.User{}, invalid
	}
	user, token, err := a.Tokens.TokenUser(r.Context(), userID, hash)
	if domain.ErrorCode(err) == domain.ENOTFOUND {
		return domain.User{}, invalid
	}
	if err != nil {
		return domain.User{}, err
	}
	if !a.Now().Before(token.ExpiresAt) {
		return domain.User{}, invalid
	}
	if !user.IsActive {
		return domain.User{}, domain.Errorf(domain.EUNAUTHENTICATED, "User inactive or deleted.")
	}
	return user, nil
}
