// Command lambda is the ExpiriesFunction of template.yaml: wiring only. EventBridge invokes it on its
// schedule with a Scheduled Event; it is behind no API.
package main

import (
	"github.com/aws/aws-lambda-go/lambda"
	"github.com/reportingplatform/api/functions/expiries"
	"github.com/reportingplatform/api/shared/service"
)

func main() {
	env := service.MustLoad()
	lambda.Start(expiries.New(env.Store, env.Log, env.Now).Handle)
}
