// Package awsenv is how every AWS client of the service gets its region and credentials: from the
// environment alone, as Lambda sets it (AWS_REGION, and the function role's AWS_ACCESS_KEY_ID,
// AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN). No file, profile or metadata lookups at cold start, and
// none of the SDK's credential chain (SSO, STS, IMDS) in the binaries.
package awsenv

import (
	"errors"
	"os"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
)

// Config is the region and credentials of the environment. local (an endpoint such as DynamoDB Local
// is set) gives fixed dummy credentials and a default region, so no AWS set-up is needed locally.
func Config(local bool) (aws.Config, error) {
	region := os.Getenv("AWS_REGION")
	if region == "" {
		region = os.Getenv("AWS_DEFAULT_REGION")
	}
	if local {
		if region == "" {
			region = "us-east-1"
		}
		return aws.Config{Region: region, Credentials: credentials.NewStaticCredentialsProvider("local", "local", "")}, nil
	}
	key, secret := os.Getenv("AWS_ACCESS_KEY_ID"), os.Getenv("AWS_SECRET_ACCESS_KEY")
	if region == "" || key == "" || secret == "" {
		return aws.Config{}, errors.New("AWS_REGION, AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY must be set " +
			"(Lambda sets them)")
	}
	return aws.Config{
		Region: region,
		Credentials: aws.NewCredentialsCache(credentials.NewStaticCredentialsProvider(key, secret,
			os.Getenv("AWS_SESSION_TOKEN"))),
	}, nil
}
