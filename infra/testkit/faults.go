package testkit

import (
	"context"
	"os"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/reportingplatform/api/infra/faultproxy"
	"github.com/reportingplatform/api/shared/dynamo"
)

// BehindProxy is a DynamoDB client built as the Lambda mains build it (dynamo.NewClient: its timeouts
// and retries), reaching the tests' DynamoDB Local only through a fault proxy, which the test closes.
func BehindProxy(tb testing.TB) (*dynamodb.Client, *faultproxy.Proxy) {
	tb.Helper()
	proxy, err := faultproxy.New(os.Getenv("DYNAMODB_ENDPOINT"))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = proxy.Close() })
	client, err := dynamo.NewClient(context.Background(), proxy.URL)
	if err != nil {
		tb.Fatal(err)
	}
	return client, proxy
}
