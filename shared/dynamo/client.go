package dynamo

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"syscall"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"
	smithyhttp "github.com/aws/smithy-go/transport/http"
	"github.com/reportingplatform/api/shared/awsenv"
	"github.com/reportingplatform/api/shared/domain"
)

// The time limits of every DynamoDB call (SPEC §9). A slow store is not a down store: while each call
// takes up to 700 ms, requests succeed as usual, so one attempt waits well past that before it is given
// up. A store that does not answer still gets its 503 within 6 s: the request carries the overall
// deadline (httpapi.RequestBudget), within which MaxAttempts attempts of AttemptTimeout fit.
const (
	// AttemptTimeout bounds one HTTP exchange, from dialling to the last byte of the body.
	AttemptTimeout = 1400 * time.Millisecond
	connectTimeout = 300 * time.Millisecond
	// MaxAttempts is the SDK's attempts per call: the first and two retries of throttling, 5xx
	// answers and connection faults. A write whose answer was lost is sent again by the store (send),
	// with its token, while the request's budget lasts.
	MaxAttempts = 3
	// maxBackoff caps the SDK's jittered exponential backoff (its default, 20 s, is for batch jobs,
	// not for a client waiting on an API).
	maxBackoff = 100 * time.Millisecond
)

// NewClient builds the DynamoDB client once per process (Lambda cold start), with the timeouts and retry
// budget above. Region and credentials come from the environment alone (awsenv); with endpoint set
// (DynamoDB Local) it uses dummy credentials. ctx is not used: nothing is looked up.
func NewClient(ctx context.Context, endpoint string, optFns ...func(*dynamodb.Options)) (*dynamodb.Client, error) {
	cfg, err := environmentConfig(endpoint)
	if err != nil {
		return nil, err
	}
	cfg.HTTPClient = httpClient(AttemptTimeout, connectTimeout, 0)
	cfg.Retryer = func() aws.Retryer {
		return retry.NewStandard(func(o *retry.StandardOptions) {
			o.MaxAttempts = MaxAttempts
			o.MaxBackoff = maxBackoff
		})
	}
	return newFromConfig(cfg, endpoint, optFns...), nil
}

// httpClient bounds each HTTP exchange to attempt (from dialling to the last byte of the body) and each
// connection's set-up to connect; idle connections kept per host, when not 0, for clients whose calls
// run in parallel.
func httpClient(attempt, connect time.Duration, idle int) *awshttp.BuildableClient {
	return awshttp.NewBuildableClient().
		WithTimeout(attempt).
		WithDialerOptions(func(d *net.Dialer) { d.Timeout = connect }).
		WithTransportOptions(func(t *http.Transport) {
			t.TLSHandshakeTimeout = connect
			t.ResponseHeaderTimeout = attempt
			if idle > 0 {
				t.MaxIdleConnsPerHost = idle
			}
		})
}

// newFromConfig is the client of cfg (its HTTP client and retryer set), sent to endpoint when it is set
// (DynamoDB Local).
func newFromConfig(cfg aws.Config, endpoint string, optFns ...func(*dynamodb.Options)) *dynamodb.Client {
	opts := optFns
	if endpoint != "" {
		opts = append([]func(*dynamodb.Options){func(o *dynamodb.Options) {
			o.BaseEndpoint = aws.String(endpoint)
			// DynamoDB Local's CRC32 header does not match its bodies of cancelled transactions, which
			// makes the SDK warn on every one; AWS's does, so validation stays on there.
			o.DisableValidateResponseChecksum = true
		}}, optFns...)
	}
	return dynamodb.NewFromConfig(cfg, opts...)
}

func environmentConfig(endpoint string) (aws.Config, error) {
	cfg, err := awsenv.Config(endpoint != "")
	if err != nil {
		return aws.Config{}, fmt.Errorf("dynamodb client: %w, or DYNAMODB_ENDPOINT for DynamoDB Local", err)
	}
	return cfg, nil
}

// writeRetries is the retry policy of the store's writes: the SDK sends a write again only after a
// failure that surely did not write (throttling, a connection that was never made), never after one
// whose outcome is unknown (unknownOutcome), which the store settles itself (send).
func writeRetries(o *dynamodb.Options) { o.Retryer = writeRetryer{o.Retryer} }

type writeRetryer struct{ aws.Retryer }

func (r writeRetryer) IsErrorRetryable(err error) bool {
	return !unknownOutcome(err) && r.Retryer.IsErrorRetryable(err)
}

// GetAttemptToken keeps the client's retryer's rate limiting of attempts.
func (r writeRetryer) GetAttemptToken(ctx context.Context) (func(error) error, error) {
	if v2, ok := r.Retryer.(aws.RetryerV2); ok {
		return v2.GetAttemptToken(ctx)
	}
	return r.GetInitialToken(), nil
}

// unknownOutcome tells a failed write that DynamoDB may have done: a 5xx answer (DynamoDB's own
// fault, which its documentation says may follow a write that succeeded), a transaction still in
// progress under the same token, and every failure without an answer once the connection was made (a
// timeout, a dropped connection, an answer cut short, the deadline). An answer of 4xx is DynamoDB's
// decision, and a connection that could not be made sent nothing.
func unknownOutcome(err error) bool {
	if err == nil {
		return false
	}
	var respErr *awshttp.ResponseError
	if errors.As(err, &respErr) && respErr.HTTPStatusCode() != 0 { // 0: the SDK's wrapping of no answer
		var inProgress *types.TransactionInProgressException
		return respErr.HTTPStatusCode() >= 500 || errors.As(err, &inProgress)
	}
	var opErr *net.OpError
	if errors.As(err, &opErr) && opErr.Op == "dial" {
		return false
	}
	var sendErr *smithyhttp.RequestSendError
	var deserErr *smithy.DeserializationError
	var netErr net.Error
	return errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) ||
		errors.As(err, &sendErr) || errors.As(err, &deserErr) || errors.As(err, &netErr) ||
		errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) || errors.Is(err, syscall.ECONNRESET)
}

// fail wraps err with the failing step. A store that is throttled, failing or unreachable (after the
// SDK's own retries) becomes EUNAVAILABLE, which the API answers with 503 and Retry-After; a write that
// met a transaction on its item becomes ECONFLICT; the rest
// (a refused request, a missing table, a decoding error) is a fault of ours and stays internal.
func fail(step string, err error) error {
	if err == nil {
		return nil
	}
	var de *domain.Error
	if errors.As(err, &de) {
		return err
	}
	wrapped := fmt.Errorf("%s: %w", step, err)
	if unavailable(err) {
		return &domain.Error{Code: domain.EUNAVAILABLE, Err: wrapped}
	}
	// A single write to an item that a transaction is changing at that moment: a race lost, like a
	// transaction cancelled for a conflict (transact), which the handlers retry or answer with 503.
	var conflict *types.TransactionConflictException
	if errors.As(err, &conflict) {
		return &domain.Error{Code: domain.ECONFLICT, Err: wrapped}
	}
	return wrapped
}

// unavailable tells the store's faults from ours (SPEC §9): throttling, any 5xx answer, a connection
// that could not be made or was dropped, an answer cut short, and the request's deadline.
func unavailable(err error) bool {
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		return true
	}
	var apiErr smithy.APIError
	if errors.As(err, &apiErr) {
		switch apiErr.ErrorCode() {
		case "ProvisionedThroughputExceededException", "ThrottlingException", "RequestLimitExceeded",
			"InternalServerError", "ServiceUnavailable", "ServiceUnavailableException", "LimitExceededException":
			return true
		}
	}
	var respErr *awshttp.ResponseError
	if errors.As(err, &respErr) && respErr.HTTPStatusCode() >= 500 {
		return true
	}
	var sendErr *smithyhttp.RequestSendError
	var deserErr *smithy.DeserializationError
	var netErr net.Error
	return errors.As(err, &sendErr) || errors.As(err, &deserErr) || errors.As(err, &netErr) ||
		errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) || errors.Is(err, syscall.ECONNRESET) ||
		errors.Is(err, syscall.ECONNREFUSED)
}
