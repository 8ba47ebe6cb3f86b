// Command lambda is the UsersFunction of template.yaml: wiring only.
package main

import (
	"github.com/reportingplatform/api/functions/users"
	"github.com/reportingplatform/api/shared/password"
	"github.com/reportingplatform/api/shared/service"
)

func main() {
	env := service.MustLoad()
	password.Prepare() // the first hash's memory, faulted in while the first request reads
	env.Serve(users.New(env.Store, env.Log, env.Now))
}
