// Package stack wires the four functions of template.yaml to one store, keyed by their logical ids, the
// way their Lambda mains do one by one. The local server serves it and the consistency tests inspect it;
// Lambda never imports it.
package stack

import (
	"log/slog"
	"time"

	"github.com/reportingplatform/api/functions/auth"
	"github.com/reportingplatform/api/functions/comments"
	"github.com/reportingplatform/api/functions/invitations"
	"github.com/reportingplatform/api/functions/users"
	"github.com/reportingplatform/api/shared/config"
	"github.com/reportingplatform/api/shared/dynamo"
	"github.com/reportingplatform/api/shared/httpapi"
)

// Handlers returns each function's router by its template.yaml logical id, allowing cfg's CORS origins.
func Handlers(store *dynamo.Store, log *slog.Logger, cfg config.Config, now func() time.Time) map[string]*httpapi.Router {
	handlers := map[string]*httpapi.Router{
		"AuthFunction":        auth.New(store, log, cfg.TokenTTL, now),
		"UsersFunction":       users.New(store, log, now),
		"InvitationsFunction": invitations.New(store, log, cfg.InvitationTTL, now),
		"CommentsFunction":    comments.New(store, log, now),
	}
	for _, h := range handlers {
		h.AllowOrigins(cfg.CORSAllowedOrigins)
	}
	return handlers
}
