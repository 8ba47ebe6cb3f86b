package testkit

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/reportingplatform/api/infra/faultproxy"
	"github.com/reportingplatform/api/shared/dynamo"
)

// BehindProxy is a DynamoDB client built as the Lambda mains build it (ProductionClient: its timeouts
// and retries), reaching the tests' DynamoDB Local only through a fault proxy, which the test closes:
// for the tests that hold the service to SPEC §9's time limits under the proxy's faults.
func BehindProxy(tb testing.TB) (*dynamodb.Client, *faultproxy.Proxy) {
	tb.Helper()
	proxy := newProxy(tb, Endpoint(tb))
	return ProductionClient(tb, proxy.URL), proxy
}

// ViewBehindProxy is View with the store's client reaching the table through a fault proxy of its
// own, which the test closes: to see the calls of a path only a fault takes (a lost answer's read-back).
func (db *DB) ViewBehindProxy(tb testing.TB) (*dynamo.Store, *Calls, *faultproxy.Proxy) {
	tb.Helper()
	proxy := newProxy(tb, db.endpoint)
	client, calls := countingClient(tb, proxy.URL)
	return dynamo.New(client, db.Table), calls, proxy
}

// ClientBehindProxy is Client reaching the tests' DynamoDB Local only through a fault proxy, which the
// test closes: for what a fault does to behaviour, where the production time limits are not the subject.
func ClientBehindProxy(tb testing.TB) (*dynamodb.Client, *faultproxy.Proxy) {
	tb.Helper()
	proxy := newProxy(tb, Endpoint(tb))
	return Client(tb, proxy.URL), proxy
}

func newProxy(tb testing.TB, endpoint string) *faultproxy.Proxy {
	tb.Helper()
	proxy, err := faultproxy.New(endpoint)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = proxy.Close() })
	return proxy
}
