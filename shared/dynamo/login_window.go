package dynamo

import (
	"context"
	"errors"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/reportingplatform/api/shared/domain"
)

// A failure window (keys.go: loginFailureEmailKey, loginFailureIPKey) counts the login attempts of one
// email or one source address in the window that started with the first of them: failed ones, and
// those still being checked (SPEC §9, "Login limit under load"). DynamoDB's TTL removes it some time
// after the window ends; until then window_ends tells that it is over.
const (
	attrFailures   = "failures"
	attrWindowEnds = "window_ends" // Unix milliseconds
)

// windowItem is a failure window as stored. Pointers: an attribute may be missing from an item that
// was not written by claimWindow (such an item counts as an ended window).
type windowItem struct {
	Failures   *int   `dynamodbav:"failures"`
	WindowEnds *int64 `dynamodbav:"window_ends"`
}

// windowClaimAttempts bounds how often a claim starts over after another attempt changed the window
// between its two writes (an ended window restarted by someone else).
const windowClaimAttempts = 3

// conflictAttempts bounds how often a window's write is sent again after meeting a transaction on the
// window (another login giving its claim back): DynamoDB refuses such a write (ECONFLICT).
const conflictAttempts = 3

// claimWindow counts one attempt in the window of k, before its password is checked, and returns the
// window with the attempt in it. A window that holds limit claims nothing: wait is how long it still
// runs. The count is one conditional UpdateItem while a window is open below its limit or there is
// none; an ended window (the item outlives it until TTL removes it) is restarted by a second write,
// conditional on the window it saw, so that of attempts that arrive at once only one restarts it and
// the others count in the new window.
func (s *Store) claimWindow(ctx context.Context, k key, limit int,
	now time.Time) (claimed domain.FailureWindow, wait time.Duration, err error) {
	end := now.Add(domain.LoginWindow)
	failures, ends := expression.Name(attrFailures), expression.Name(attrWindowEnds)
	count := expression.Add(failures, expression.Value(1)).
		Set(ends, ends.IfNotExists(expression.Value(end.UnixMilli()))).
		Set(expression.Name(attrTTL), expression.Name(attrTTL).IfNotExists(expression.Value(end.Unix())))
	belowLimit := expression.AttributeNotExists(expression.Name(attrPK)).Or(expression.And(
		ends.GreaterThan(expression.Value(now.UnixMilli())),
		failures.GreaterThanEqual(expression.Value(1)), failures.LessThan(expression.Value(limit))))
	for range windowClaimAttempts {
		out, err := s.updateWindow(ctx, k, count, belowLimit)
		if err == nil {
			claimed, err = decodeWindow(out)
			return claimed, 0, err
		}
		if !conditionalCheckFailed(err) {
			return domain.FailureWindow{}, 0, fail("claim login window", err)
		}
		seen, err := s.windowSeen(ctx, k, err)
		if err != nil {
			return domain.FailureWindow{}, 0, err
		}
		if seen == nil {
			continue // removed since: counted as none on the next try
		}
		if seen.WindowEnds != nil && *seen.WindowEnds > now.UnixMilli() && seen.Failures != nil && *seen.Failures >= limit {
			return domain.FailureWindow{}, time.UnixMilli(*seen.WindowEnds).Sub(now), nil
		}
		// The window ended, or holds nothing (its attempts all given back): this attempt starts a new
		// one, unless another attempt changed it since it was seen.
		restart := expression.Set(failures, expression.Value(1)).
			Set(ends, expression.Value(end.UnixMilli())).Set(expression.Name(attrTTL), expression.Value(end.Unix()))
		out, err = s.updateWindow(ctx, k, restart, unchanged(*seen))
		if err == nil {
			claimed, err = decodeWindow(out)
			return claimed, 0, err
		}
		if !conditionalCheckFailed(err) {
			return domain.FailureWindow{}, 0, fail("restart login window", err)
		}
	}
	return domain.FailureWindow{}, 0, &domain.Error{Code: domain.ECONFLICT, Detail: "login window kept changing"}
}

// unchanged is the condition that the window is still as seen.
func unchanged(seen windowItem) expression.ConditionBuilder {
	same := func(name string, v any, present bool) expression.ConditionBuilder {
		if !present {
			return expression.AttributeNotExists(expression.Name(name))
		}
		return expression.Name(name).Equal(expression.Value(v))
	}
	return expression.And(expression.AttributeExists(expression.Name(attrPK)),
		same(attrFailures, seen.Failures, seen.Failures != nil),
		same(attrWindowEnds, seen.WindowEnds, seen.WindowEnds != nil))
}

// updateWindow sends one conditional UpdateItem of a window and returns the window it left. A failed
// condition brings the item as it was (ReturnValuesOnConditionCheckFailure), which windowSeen reads.
// Like every write of the store it carries a write id and is never sent again by the SDK after an
// attempt whose answer was lost: the window is read back instead, and the update landed when the window
// carries its id (the window as read is then the one it left, or a later one). Not landed, or not
// read, the claim fails, and no password is checked.
func (s *Store) updateWindow(ctx context.Context, k key, upd expression.UpdateBuilder,
	cond expression.ConditionBuilder) (map[string]types.AttributeValue, error) {
	id, err := newWriteID()
	if err != nil {
		return nil, err
	}
	upd = upd.Set(expression.Name(attrWriteID), expression.Value(id))
	expr, err := expression.NewBuilder().WithUpdate(upd).WithCondition(cond).Build()
	if err != nil {
		return nil, fail("build login window update", err)
	}
	in := &dynamodb.UpdateItemInput{
		TableName: aws.String(s.table), Key: k.av(),
		UpdateExpression: expr.Update(), ConditionExpression: expr.Condition(),
		ExpressionAttributeNames: expr.Names(), ExpressionAttributeValues: expr.Values(),
		ReturnValues:                        types.ReturnValueAllNew,
		ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
	}
	wctx, cancel := writeContext(ctx)
	defer cancel()
	out, err := s.db.UpdateItem(wctx, in, writeRetries)
	if err == nil {
		return out.Attributes, nil
	}
	if !unknownOutcome(err) {
		return nil, err
	}
	item, found, readErr := s.getItem(ctx, "read back login window", k)
	if readErr == nil && found && stringAttr(item, attrWriteID) == id {
		return item, nil
	}
	return nil, err
}

// windowSeen is the window a failed condition met: the item the failure brought back, read again
// (consistently) when it brought none; nil when there is no item.
func (s *Store) windowSeen(ctx context.Context, k key, condErr error) (*windowItem, error) {
	var ccf *types.ConditionalCheckFailedException
	item := map[string]types.AttributeValue(nil)
	if errors.As(condErr, &ccf) {
		item = ccf.Item
	}
	if item == nil {
		got, found, err := s.getItem(ctx, "read login window", k)
		if err != nil || !found {
			return nil, err
		}
		item = got
	}
	var w windowItem
	if err := attributevalue.UnmarshalMap(item, &w); err != nil {
		return nil, fail("decode login window", err)
	}
	return &w, nil
}

// decodeWindow reads the window a claim's write left.
func decodeWindow(item map[string]types.AttributeValue) (domain.FailureWindow, error) {
	var w windowItem
	if err := attributevalue.UnmarshalMap(item, &w); err != nil {
		return domain.FailureWindow{}, fail("decode login window", err)
	}
	if w.Failures == nil || w.WindowEnds == nil {
		return domain.FailureWindow{}, fail("decode login window", errors.New("a claimed window lacks its count or end"))
	}
	return domain.FailureWindow{Failures: *w.Failures, Ends: time.UnixMilli(*w.WindowEnds).UTC()}, nil
}

// giveBack is the write that takes a claimed attempt out of its window, rung by rung: rung 0 deletes
// the window when the attempt was its only one (so that the next login, say tomorrow's, finds none and
// claims in one call); rung 1 takes one off the count, in the same window only (never creating an
// item); past that the window is gone or restarted, and there is nothing to give back (nil).
func giveBack(k key, w domain.FailureWindow, rung int) (*types.TransactWriteItem, error) {
	failures, ends := expression.Name(attrFailures), expression.Name(attrWindowEnds)
	sameWindow := ends.Equal(expression.Value(w.Ends.UnixMilli()))
	if rung == 0 && w.Failures != 1 {
		rung = 1
	}
	switch rung {
	case 0:
		expr, err := expression.NewBuilder().WithCondition(sameWindow.And(failures.Equal(expression.Value(1)))).Build()
		if err != nil {
			return nil, fail("build login window delete", err)
		}
		return &types.TransactWriteItem{Delete: &types.Delete{Key: k.av(), ConditionExpression: expr.Condition(),
			ExpressionAttributeNames: expr.Names(), ExpressionAttributeValues: expr.Values()}}, nil
	case 1:
		cond := sameWindow.And(failures.GreaterThanEqual(expression.Value(1)))
		item, err := updateItem(k, expression.Add(failures, expression.Value(-1)), &cond)
		return &item, err
	}
	return nil, nil
}

// claimedWindow is one window a claim counted in.
type claimedWindow struct {
	k key
	w domain.FailureWindow
}

func claimedWindows(c domain.LoginClaim) []claimedWindow {
	var out []claimedWindow
	if c.Email != "" && c.EmailWindow.Failures > 0 {
		out = append(out, claimedWindow{loginFailureEmailKey(c.Email), c.EmailWindow})
	}
	if c.SourceIP != "" && c.IPWindow.Failures > 0 {
		out = append(out, claimedWindow{loginFailureIPKey(c.SourceIP), c.IPWindow})
	}
	return out
}

// ReleaseLogin gives back both windows' claims at once, each as its own write (giveBack).
func (s *Store) ReleaseLogin(ctx context.Context, c domain.LoginClaim) error {
	windows := claimedWindows(c)
	errs := make([]error, len(windows))
	inParallel(len(windows), func(i int) {
		for rung := 0; ; rung++ {
			item, err := giveBack(windows[i].k, windows[i].w, rung)
			if item == nil || err != nil {
				errs[i] = err
				return
			}
			setTable(item, s.table)
			err = domain.RetryOnConflict(ctx, conflictAttempts, func(int) error {
				return s.transact(ctx, "give back login claim", []types.TransactWriteItem{*item})
			})
			if !conditionFailed(err, 0) {
				errs[i] = err
				return
			}
		}
	})
	return errors.Join(errs...)
}
