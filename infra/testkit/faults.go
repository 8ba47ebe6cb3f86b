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

// ViewBehindProxy is View with the store's client reaching the table through a fault proxy of its
// own, which the test closes: to see the calls of a path only a fault takes (a lost answer's read-back).
func (db *DB) ViewBehindProxy(tb testing.TB) (*dynamo.Store, *Calls, *faultproxy.Proxy) {
	tb.Helper()
	proxy, err := faultproxy.New(db.endpoint)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = proxy.Close() })
	client, calls := countingClient(tb, proxy.URL)
	return dynamo.New(client, db.Table), calls, proxy
}
