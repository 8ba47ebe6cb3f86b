// Package wiring wires the functions of template.yaml to one store, keyed by their logical ids, the way
// their Lambda mains do one by one. The local server serves it and the consistency tests inspect it;
// Lambda never imports it.
package wiring

import (
	"fmt"
	"log/slog"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/reportingplatform/api/functions/auth"
	"github.com/reportingplatform/api/functions/comments"
	"github.com/reportingplatform/api/functions/docs"
	"github.com/reportingplatform/api/functions/invitations"
	"github.com/reportingplatform/api/functions/users"
	"github.com/reportingplatform/api/infra/gateway"
	"github.com/reportingplatform/api/shared/config"
	"github.com/reportingplatform/api/shared/dynamo"
	"github.com/reportingplatform/api/shared/httpapi"
	"github.com/reportingplatform/api/shared/mail"
)

// Handlers returns each function's router by its template.yaml logical id, allowing cfg's CORS origins.
// The docs function serves the checkout's openapi.yaml and the Swagger UI that
// infra/scripts/docs-assets.sh installed, read at its first request.
// The invitation e-mail goes where cfg says (mail.FromConfig): OUTBOX_DIR under make run and in the
// tests that read it; nowhere (email_sent false) when cfg names no outbox or sender.
func Handlers(store *dynamo.Store, log *slog.Logger, cfg config.Config,
	now func() time.Time) map[string]*httpapi.Router {
	mailer, err := mail.FromConfig(cfg, log, now)
	if err != nil {
		panic(fmt.Sprintf("wiring: %v", err)) // local tooling only: a bad mail setting stops it at start
	}
	handlers := map[string]*httpapi.Router{
		"AuthFunction":        auth.New(store, log, cfg.TokenTTL, now),
		"UsersFunction":       users.New(store, log, now),
		"InvitationsFunction": invitations.New(store, mailer, log, cfg.InvitationTTL, now),
		"CommentsFunction":    comments.New(store, log, now),
		"DocsFunction":        docs.New(log, docsFiles()),
	}
	for _, h := range handlers {
		h.AllowOrigins(cfg.CORSAllowedOrigins)
	}
	return handlers
}

// docsFiles are those of the checkout holding the working directory, found as template.yaml is: the
// local server runs at its root, tests in a package's folder.
func docsFiles() docs.Files {
	root := "."
	if tpl, err := gateway.FindTemplate(); err == nil {
		root = filepath.Dir(tpl)
	}
	return docs.InRepo(root)
}

// Route is a route one of the functions serves, with the logical id of that function.
type Route struct {
	httpapi.Route
	Function string
}

// Name is how the tests' lists of routes name one: "METHOD pattern", as "GET /api/v1/comments/{id}/".
func (r Route) Name() string { return r.Method + " " + r.Pattern }

// Routes are the routes of every function Handlers wires, ordered by Name: what infra/routes' list of
// every route is held to (TestEveryServedRouteIsListed), so that a new route cannot be missed.
func Routes() []Route {
	var out []Route
	for fn, h := range Handlers(nil, slog.New(slog.DiscardHandler), config.Config{}, time.Now) {
		for _, r := range h.Routes() {
			out = append(out, Route{Route: r, Function: fn})
		}
	}
	slices.SortFunc(out, func(a, b Route) int { return strings.Compare(a.Name(), b.Name()) })
	return out
}
