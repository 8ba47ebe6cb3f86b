// Command lambda is the InvitationsFunction of template.yaml: wiring only.
package main

import (
	"github.com/reportingplatform/api/functions/invitations"
	"github.com/reportingplatform/api/shared/mail"
	"github.com/reportingplatform/api/shared/service"
)

func main() {
	env := service.MustLoad()
	mailer := service.Must(mail.FromConfig(env.Config, env.Log, env.Now))
	env.Serve(invitations.New(env.Store, mailer, env.Log, env.Config.InvitationTTL, env.Now))
}
