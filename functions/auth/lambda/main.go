// Command lambda is the AuthFunction of template.yaml: wiring only.
package main

import (
	"github.com/aws/aws-lambda-go/lambda"
	"github.com/awslabs/aws-lambda-go-api-proxy/httpadapter"
	"github.com/reportingplatform/api/functions/auth"
	"github.com/reportingplatform/api/shared/password"
	"github.com/reportingplatform/api/shared/service"
)

func main() {
	env := service.MustLoad()
	password.Prepare() // the first hash's memory, faulted in while the first request reads
	h := auth.New(env.Store, env.Log, env.Config.TokenTTL, env.Now)
	h.AllowOrigins(env.Config.CORSAllowedOrigins)
	lambda.Start(httpadapter.New(h).ProxyWithContext)
}
