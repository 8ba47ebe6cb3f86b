package dynamo

import (
	"math/rand/v2"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/ratelimit"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
)

// The limits of the loader's client (make seed, SPEC §11 "The loader"). A bulk job has nobody waiting
// on an answer within seconds: SPEC §9's request budget is for API requests, not for it. What it must
// not do is give up on a table that is busy (throttling, a DynamoDB Local writing a large transaction)
// and leave a load half done, nor hang forever on a connection that died.
const (
	// bulkAttemptTimeout bounds one HTTP exchange: long enough for a full transaction on a busy table,
	// short enough that a dead connection is noticed and retried rather than waited on.
	bulkAttemptTimeout = 60 * time.Second
	bulkConnectTimeout = 10 * time.Second
	// BulkMaxAttempts is the SDK's attempts per call. With bulkBackoff's cap, a call keeps trying
	// through throttling that lasts far longer than a burst before the load stops.
	BulkMaxAttempts = 20
	// bulkBaseBackoff and bulkMaxBackoff shape the jittered exponential backoff: DynamoDB throttles per
	// partition and second, so the first retries come quickly and later ones wait whole seconds.
	bulkBaseBackoff = 25 * time.Millisecond
	bulkMaxBackoff  = 5 * time.Second
)

// NewBulkClient builds the loader's DynamoDB client: the region and credentials of cfg, and, when
// endpoint is set (DynamoDB Local), that endpoint. Unlike NewClient it is made for a long job of many
// calls rather than a request with a budget:
//   - attempts may take long (bulkAttemptTimeout), and no deadline spans the calls;
//   - the SDK's standard retryer retries throttling, 5xx answers and connection faults up to
//     BulkMaxAttempts times with jittered exponential backoff (bulkBackoff), each call on its own.
//     Not the adaptive retryer: its client-wide rate limit starts from the rate it has measured, which
//     at the start of a load is low, and throttling there held the whole load to a crawl long after
//     the table recovered;
//   - there is no retry quota (ratelimit.None): the standard retryer's quota fails every call once a
//     few hundred retries have happened in the process, which a bulk job against a throttled table
//     reaches by design.
func NewBulkClient(cfg aws.Config, endpoint string, optFns ...func(*dynamodb.Options)) *dynamodb.Client {
	// The loader's writers run in parallel: a connection is kept for each.
	cfg.HTTPClient = httpClient(bulkAttemptTimeout, bulkConnectTimeout, 64)
	cfg.Retryer = func() aws.Retryer {
		return retry.NewStandard(func(so *retry.StandardOptions) {
			so.MaxAttempts = BulkMaxAttempts
			so.MaxBackoff = bulkMaxBackoff
			so.Backoff = retry.BackoffDelayerFunc(bulkBackoff)
			so.RateLimiter = ratelimit.None
		})
	}
	return newFromConfig(cfg, endpoint, optFns...)
}

// NewLocalBulkClient is NewBulkClient for DynamoDB Local at endpoint, with its dummy credentials.
func NewLocalBulkClient(endpoint string, optFns ...func(*dynamodb.Options)) (*dynamodb.Client, error) {
	cfg, err := environmentConfig(endpoint)
	if err != nil {
		return nil, err
	}
	return NewBulkClient(cfg, endpoint, optFns...), nil
}

// bulkBackoff is "full jitter" exponential backoff: a random wait up to bulkBaseBackoff·2^(attempt-1),
// capped at bulkMaxBackoff, so that parallel writers throttled together do not retry together.
func bulkBackoff(attempt int, _ error) (time.Duration, error) {
	ceiling := bulkMaxBackoff
	if attempt < 16 {
		ceiling = min(bulkMaxBackoff, bulkBaseBackoff<<max(attempt-1, 0))
	}
	return time.Duration(rand.Int64N(int64(ceiling)) + 1), nil
}
