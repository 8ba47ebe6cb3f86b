package dynamo

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/reportingplatform/api/shared/domain"
)

// Writes whose answer is lost (SPEC §9). DynamoDB may do a write and its answer never arrive: the
// attempt times out, the connection drops, a 5xx comes back. Sending the write again is no answer: a
// conditional put then fails on its own item ("already exists"), an ADD counts twice. So every write
// carries an id of its own, set on each item it puts or updates (attrWriteID), and the SDK never sends a
// write again after such a failure (writeRetries). The store reads the written items back instead,
// strongly consistent: carrying the write's id (for a write that only deletes: gone), the write landed
// and succeeds as usual; not landed, it is sent again (same id, same ClientRequestToken) while the
// request's budget allows; unreadable, it is EUNAVAILABLE, the one case in which a 503 may hide a write.

// attrWriteID is the attribute every Put and Update of the store sets to the id of its write.
const attrWriteID = "write_id"

// Placeholders of the write id in an update expression: no builder's (#0, :0) nor a projection's (#p0).
const (
	nameWriteID  = "#write_id"
	valueWriteID = ":write_id"
)

// write is one TransactWriteItems (or its single item sent alone) with the id its items carry.
type write struct {
	id    string
	items []types.TransactWriteItem
}

// newWrite tags items with a new random id (newWriteID).
func newWrite(items []types.TransactWriteItem) (write, error) {
	id, err := newWriteID()
	if err != nil {
		return write{}, err
	}
	// Copies: a caller may send the same items again, as a write of its own.
	w := write{id: id, items: slices.Clone(items)}
	tag := &types.AttributeValueMemberS{Value: w.id}
	for i := range w.items {
		switch it := &w.items[i]; {
		case it.Put != nil:
			p := *it.Put
			p.Item = withEntry[types.AttributeValue](p.Item, attrWriteID, tag)
			it.Put = &p
		case it.Update != nil:
			u := *it.Update
			it.Update = &u
			u.UpdateExpression = aws.String(withSet(aws.ToString(u.UpdateExpression), nameWriteID+" = "+valueWriteID))
			u.ExpressionAttributeNames = withEntry(u.ExpressionAttributeNames, nameWriteID, attrWriteID)
			u.ExpressionAttributeValues = withEntry[types.AttributeValue](u.ExpressionAttributeValues, valueWriteID, tag)
		}
	}
	return w, nil
}

// newWriteID is a new random write id, as hex digits: short enough for a ClientRequestToken.
func newWriteID() (string, error) {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("write id: %w", err)
	}
	return hex.EncodeToString(b), nil
}

func withEntry[V any](m map[string]V, k string, v V) map[string]V {
	m = maps.Clone(m)
	if m == nil {
		m = map[string]V{}
	}
	m[k] = v
	return m
}

// withSet adds assignment to the SET clause of an update expression, or adds a SET clause: a clause may
// appear only once. A clause starts with its keyword, at the start or after white space; nothing else of
// an expression is the bare word SET (names and values there are placeholders or attribute names).
func withSet(expr, assignment string) string {
	for i := 0; i+3 < len(expr); i++ {
		if (i == 0 || isSpace(expr[i-1])) && strings.EqualFold(expr[i:i+3], "SET") && isSpace(expr[i+3]) {
			return expr[:i+4] + assignment + ", " + expr[i+4:]
		}
	}
	return strings.TrimSpace(expr + " SET " + assignment)
}

func isSpace(c byte) bool { return c == ' ' || c == '\n' || c == '\t' || c == '\r' }

// writeKeys are the keys w puts or updates (tagged) and deletes.
func (w write) writeKeys() (tagged, deleted []key) {
	for _, it := range w.items {
		switch {
		case it.Put != nil:
			tagged = append(tagged, itemKey(it.Put.Item))
		case it.Update != nil:
			tagged = append(tagged, itemKey(it.Update.Key))
		case it.Delete != nil:
			deleted = append(deleted, itemKey(it.Delete.Key))
		}
	}
	return tagged, deleted
}

// landed reads back, strongly consistent, what w writes: it landed if an item it puts or updates
// carries its id (a transaction lands whole, so one is enough, and a later write over one item still
// leaves the others), or, for a write that only deletes, if every item it deletes is gone.
func (s *Store) landed(ctx context.Context, step string, w write) (bool, error) {
	tagged, deleted := w.writeKeys()
	keys := tagged
	if len(keys) == 0 {
		keys = deleted
	}
	if len(keys) == 0 {
		return false, nil
	}
	p := projectionOf(attrPK, attrSK, attrWriteID)
	found, err := s.batchRead(ctx, step+": read back", keys, readOptions{projection: &p})
	if err != nil {
		return false, err
	}
	if len(tagged) == 0 {
		return len(found) == 0, nil
	}
	for _, item := range found {
		if stringAttr(item, attrWriteID) == w.id {
			return true, nil
		}
	}
	return false, nil
}

// send sends w until DynamoDB answers it, and reads it back after any attempt whose answer was lost
// (unknownOutcome), and after every later attempt whatever its answer: a condition that fails on the
// retry of a write that landed failed on the write itself. Attempts end ReadBackTime before ctx does,
// so that the last one's read-back fits in the request's budget.
func (s *Store) send(ctx context.Context, step string, w write) error {
	wctx, cancel := writeContext(ctx)
	defer cancel()
	var lost error // the last attempt whose answer was lost
	for attempt := 1; ; attempt++ {
		err := s.writeOnce(wctx, w)
		if err == nil {
			return nil
		}
		unknown := unknownOutcome(err)
		if unknown {
			lost = err
		} else if lost == nil {
			return outcome(step, err)
		}
		ok, readErr := s.landed(ctx, step, w)
		switch {
		case readErr != nil:
			return &domain.Error{Code: domain.EUNAVAILABLE,
				Err: fmt.Errorf("%s: answer lost (%w), and not read back: %w", step, lost, readErr)}
		case ok:
			return nil
		case !unknown:
			return outcome(step, err) // DynamoDB's answer to a write that is known not to have landed before
		case attempt >= s.attempts || sleep(wctx, backoff(attempt)) != nil:
			return &domain.Error{Code: domain.EUNAVAILABLE, Err: fmt.Errorf("%s: answer lost, not written: %w", step, lost)}
		}
	}
}

// writeContext is ctx ending ReadBackTime sooner.
func writeContext(ctx context.Context) (context.Context, context.CancelFunc) {
	if d, ok := ctx.Deadline(); ok {
		return context.WithDeadline(ctx, d.Add(-ReadBackTime))
	}
	return context.WithCancel(ctx)
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
