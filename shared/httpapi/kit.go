package httpapi

import (
	"log/slog"
	"time"

	"github.com/reportingplatform/api/shared/domain"
)

// KitStore is what a function with a create reads and writes besides its own data: the caller's
// session and the Idempotency-Keys (SPEC §9).
type KitStore interface {
	SessionReader
	domain.IdempotencyStore
}

// Kit is what every function with a create builds the same way from its store: the authenticator of
// its Bearer tokens, the Idempotency-Keys of its create and the clock. Handlers embed it.
type Kit struct {
	Auth  *Authenticator
	Keys  *Idempotency
	Clock domain.Clock
}

// NewKit returns the kit of a function whose create is served at createPath, and a router that
// checks tokens with the kit's authenticator, ready for the function's routes.
func NewKit(store KitStore, log *slog.Logger, now func() time.Time, createPath string) (Kit, *Router) {
	k := Kit{
		Auth:  &Authenticator{Sessions: store, Now: now},
		Keys:  &Idempotency{Store: store, Clock: now, Route: createPath},
		Clock: now,
	}
	rt := NewRouter(log)
	rt.UseAuthenticator(k.Auth)
	return k, rt
}
