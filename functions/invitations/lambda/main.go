// Command lambda is the InvitationsFunction of template.yaml: wiring only.
package main

import (
	"log/slog"
	"os"

	"github.com/reportingplatform/api/functions/invitations"
	"github.com/reportingplatform/api/shared/mail"
	"github.com/reportingplatform/api/shared/service"
)

func main() {
	env := service.MustLoad()
	mailer, err := mail.FromConfig(env.Config, env.Log, env.Now)
	if err != nil {
		slog.Error("start-up failed", "error", err.Error())
		os.Exit(1)
	}
	env.Serve(invitations.New(env.Store, mailer, env.Log, env.Config.InvitationTTL, env.Now))
}
