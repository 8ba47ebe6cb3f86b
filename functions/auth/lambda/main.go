// Command lambda is the AuthFunction of template.yaml: wiring only.
package main

import (
	"github.com/reportingplatform/api/functions/auth"
	"github.com/reportingplatform/api/shared/password"
	"github.com/reportingplatform/api/shared/service"
)

func main() {
	env := service.MustLoad()
	password.Prepare() // the first hash's memory, faulted in while the first request reads
	env.Serve(auth.New(env.Store, env.Log, env.Config.TokenTTL, env.Now))
}
