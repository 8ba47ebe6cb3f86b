package main

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/reportingplatform/api/infra/faultproxy"
	"github.com/reportingplatform/api/shared/dynamo"
	"github.com/reportingplatform/api/shared/service"
)

// slowEnv is DYNAMODB_SLOW: "MIN-MAX" (Go durations, as "100ms-700ms") makes every DynamoDB call of the
// API's functions wait a random time in that range before DynamoDB does it, whether or not the function
// still waits for its answer (faultproxy's Queued mode): the slow store of SPEC §9, for trying the API,
// or a load against it, as it behaves in AWS on a bad day. The start-up's own calls (the table, the demo
// data) are not slowed.
const slowEnv = "DYNAMODB_SLOW"

// slowStore puts, when DYNAMODB_SLOW is set, a fault proxy in Queued mode between the API's store and
// DynamoDB: env's client and store are replaced by ones that reach DynamoDB through it. It returns
// what the banner says of it ("" when not set) and the proxy's Close.
func slowStore(ctx context.Context, env *service.Env) (string, func(), error) {
	spec := os.Getenv(slowEnv)
	if spec == "" {
		return "", func() {}, nil
	}
	lo, hi, err := parseRange(spec)
	if err != nil {
		return "", nil, fmt.Errorf("%s=%q: %w", slowEnv, spec, err)
	}
	proxy, err := faultproxy.New(env.Config.DynamoDBEndpoint)
	if err != nil {
		return "", nil, err
	}
	proxy.Set(faultproxy.Fault{Mode: faultproxy.Queued, Delay: lo, MaxDelay: hi})
	client, err := dynamo.NewClient(ctx, proxy.URL)
	if err != nil {
		_ = proxy.Close()
		return "", nil, err
	}
	env.Client, env.Store = client, dynamo.New(client, env.Config.TableName)
	return fmt.Sprintf("each DynamoDB call of the API waits %s to %s first (%s)", lo, hi, slowEnv),
		func() { _ = proxy.Close() }, nil
}

// parseRange reads "MIN-MAX", or a single duration for both.
func parseRange(s string) (lo, hi time.Duration, err error) {
	a, b, found := strings.Cut(s, "-")
	if !found {
		b = a
	}
	if lo, err = time.ParseDuration(strings.TrimSpace(a)); err != nil {
		return 0, 0, err
	}
	if hi, err = time.ParseDuration(strings.TrimSpace(b)); err != nil {
		return 0, 0, err
	}
	if lo < 0 || hi < lo {
		return 0, 0, fmt.Errorf("want MIN-MAX with 0 <= MIN <= MAX, as 100ms-700ms")
	}
	return lo, hi, nil
}
