// Command lambda is the MailFunction of template.yaml: wiring only. The table's DynamoDB Stream invokes
// it through its event source mapping with batches of records; it is behind no API.
package main

import (
	"os"

	"github.com/aws/aws-lambda-go/lambda"
	"github.com/reportingplatform/api/functions/mail"
	sharedmail "github.com/reportingplatform/api/shared/mail"
	"github.com/reportingplatform/api/shared/metrics"
	"github.com/reportingplatform/api/shared/service"
)

func main() {
	env := service.MustLoad()
	mailer := service.Must(sharedmail.FromConfig(env.Config, env.Log, env.Now))
	rec := metrics.New(os.Stdout, os.Getenv("AWS_LAMBDA_FUNCTION_NAME"))
	lambda.Start(mail.New(env.Store, mailer, env.Log, rec, env.Now).Handle)
}
