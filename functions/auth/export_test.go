package auth

import (
	"log/slog"
	"time"

	"github.com/reportingplatform/api/shared/domain"
	"github.com/reportingplatform/api/shared/httpapi"
)

// NewWithVerifier is New with verify in place of password.Verify: a test sees which hashes a login checks.
func NewWithVerifier(users domain.LoginStore, log *slog.Logger, tokenTTL time.Duration, now func() time.Time,
	verify func(plain, encoded string) (bool, bool, error)) *httpapi.Router {
	return newRouter(users, log, tokenTTL, now, verify)
}
