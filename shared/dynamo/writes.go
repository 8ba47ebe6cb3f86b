package dynamo

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/reportingplatform/api/shared/domain"
	"github.com/reportingplatform/api/shared/metrics"
)

// Writes whose answer is lost (SPEC §9). DynamoDB may do a write and its answer never arrive: the
// attempt times out, the connection drops, a 5xx comes back; on a slow store the write may even still be
// queued inside DynamoDB when its caller has given up on it. A read settles nothing then: it can run
// before the queued write lands. So every write of several items is one TransactWriteItems with a
// ClientRequestToken of its own, and after a lost answer it is sent again, identical and with the same
// token, until DynamoDB answers it: DynamoDB does a token's transaction at most once in ten minutes and
// answers every copy with that one outcome (a copy that arrives while another is running gets
// TransactionInProgressException, and is sent again). Whichever copy DynamoDB meets first decides; a
// definite answer to a later copy is the answer to them all. Only when the request's time ends before
// DynamoDB answers any copy does the outcome stay open: EOPEN, the one 503 that says the change may
// have been saved. DynamoDB Local honours the token as AWS does (an identical copy after the commit
// succeeds without writing again; another transaction under the same token gets
// IdempotentParameterMismatchException), which the store's tests hold.
//
// A write of one item goes out as the item's own conditional write, which takes no token and settles a
// lost answer its own way (single.go); so does a login's claim in its failure window (login_window.go).

// write is one TransactWriteItems with its ClientRequestToken (for a single item: its write id).
type write struct {
	token string
	items []types.TransactWriteItem
}

// newWrite is a write of items under a new random token.
func newWrite(items []types.TransactWriteItem) (write, error) {
	token, err := newToken()
	if err != nil {
		return write{}, err
	}
	// A copy: a caller may send the same items again, as a write of its own.
	return write{token: token, items: slices.Clone(items)}, nil
}

// newToken is a new random id, as hex digits: within a ClientRequestToken's 36 characters.
func newToken() (string, error) {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("write token: %w", err)
	}
	return hex.EncodeToString(b), nil
}

// send sends w until DynamoDB answers it (see above). Before any answer was lost, DynamoDB's answer is
// the outcome as it is (outcome). After one was lost, only an answer that settles the token's
// transaction counts: success, or a cancellation for a failed condition. A conflict may be a copy of w
// itself still running, and a throttled, failed or timed-out copy says nothing of the others, so those
// are sent again while ctx lasts, as many as anotherCopy allows: a store that fails every copy at once has
// not answered either.
func (s *Store) send(ctx context.Context, step string, w write) error {
	if len(w.items) == 1 {
		return s.sendOne(ctx, step, w)
	}
	return s.resend(ctx, step, func() error { return s.writeOnce(ctx, w) }, func(err error) (error, bool) {
		if !settles(err) {
			return nil, false
		}
		return outcome(step, err), true
	})
}

// resend sends copies of a write with once until DynamoDB answers one for sure. Before any answer was
// lost, DynamoDB's answer is the outcome as it is; after one was lost, only an answer that settle
// says settles the write (with its outcome) counts, and the rest are sent again while ctx lasts, as
// many as anotherCopy allows, before the outcome is left open.
func (s *Store) resend(ctx context.Context, step string, once func() error, settle func(error) (error, bool)) error {
	var lost error // the last copy whose answer was lost
	for attempt := 1; ; attempt++ {
		err := once()
		if err == nil {
			if lost != nil {
				s.metrics.Count(metrics.OutcomeSettled, "")
			}
			return nil
		}
		if lost == nil && !unknownOutcome(err) {
			return outcome(step, err)
		}
		if lost != nil {
			if result, ok := settle(err); ok {
				s.metrics.Count(metrics.OutcomeSettled, "")
				return result
			}
		}
		if unknownOutcome(err) {
			lost = err
		}
		if !s.anotherCopy(ctx, attempt) {
			return s.open(step, lost)
		}
	}
}

// anotherCopy waits before sending copy attempt+1 of a write whose answer was lost; false when none may
// be sent: twice the attempts of any other call are spent, or ctx ended.
func (s *Store) anotherCopy(ctx context.Context, attempt int) bool {
	return attempt < 2*s.attempts && sleep(ctx, backoff(min(attempt, 3))) == nil
}

// open is the outcome of a write that DynamoDB answered none of the copies of (lost: the last lost answer).
func (s *Store) open(step string, lost error) error {
	s.metrics.Count(metrics.OutcomeOpen, "")
	return &domain.Error{Code: domain.EOPEN, Err: fmt.Errorf("%s: answer lost, outcome unknown: %w", step, lost)}
}

// settles tells an answer that decides a token's transaction: one that a copy of it could not have
// been given while another copy was, or may yet be, done. A cancellation for a failed condition
// settles: had any copy been done, DynamoDB would answer this one with its success.
func settles(err error) bool {
	var tce *types.TransactionCanceledException
	if errors.As(err, &tce) {
		for _, r := range tce.CancellationReasons {
			if aws.ToString(r.Code) == "ConditionalCheckFailed" {
				return true
			}
		}
		return false
	}
	// A copy still running; a mismatch (another transaction under the token) is a fault of ours, final.
	var inProgress *types.TransactionInProgressException
	return !errors.As(err, &inProgress) && !unknownOutcome(err) && !unavailable(err) && !conflict(err)
}

func conflict(err error) bool {
	var c *types.TransactionConflictException
	return errors.As(err, &c)
}

// writeOnce sends w as one TransactWriteItems, which the SDK repeats only after failures that surely
// did not write (writeRetries). It returns the SDK's error as it is, for send to judge.
func (s *Store) writeOnce(ctx context.Context, w write) error {
	_, err := s.db.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{
		TransactItems: w.items, ClientRequestToken: aws.String(w.token),
	}, writeRetries)
	return err
}

// outcome is what DynamoDB's answer to a write means to the callers of transact: a condition that failed
// is *cancelled naming its items, a concurrent transaction on the items ECONFLICT, the rest as fail.
func outcome(step string, err error) error {
	if conditionalCheckFailed(err) {
		return &cancelled{failed: map[int]bool{0: true}, err: fmt.Errorf("%s: %w", step, err)}
	}
	var tce *types.TransactionCanceledException
	if errors.As(err, &tce) {
		c := &cancelled{failed: map[int]bool{}, err: fmt.Errorf("%s: %w", step, err)}
		conflict := false
		for i, r := range tce.CancellationReasons {
			switch aws.ToString(r.Code) {
			case "ConditionalCheckFailed":
				c.failed[i] = true
			case "TransactionConflict":
				conflict = true
			case "ThrottlingError", "ProvisionedThroughputExceeded":
				return &domain.Error{Code: domain.EUNAVAILABLE, Err: c.err}
			}
		}
		if len(c.failed) == 0 && conflict {
			return &domain.Error{Code: domain.ECONFLICT, Err: c.err}
		}
		return c
	}
	var inProgress *types.TransactionInProgressException
	if errors.As(err, &inProgress) {
		return &domain.Error{Code: domain.ECONFLICT, Err: fmt.Errorf("%s: %w", step, err)}
	}
	return fail(step, err)
}
