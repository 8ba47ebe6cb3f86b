// Command lambda is the CommentsFunction of template.yaml: wiring only.
package main

import (
	"github.com/aws/aws-lambda-go/lambda"
	"github.com/awslabs/aws-lambda-go-api-proxy/httpadapter"
	"github.com/reportingplatform/api/functions/comments"
	"github.com/reportingplatform/api/shared/service"
)

func main() {
	env := service.MustLoad()
	h := comments.New(env.Store, env.Log, env.Now)
	h.AllowOrigins(env.Config.CORSAllowedOrigins)
	lambda.Start(httpadapter.New(h).ProxyWithContext)
}
