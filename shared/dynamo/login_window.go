package dynamo

import (
	"context"
	"errors"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/reportingplatform/api/shared/domain"
	"github.com/reportingplatform/api/shared/metrics"
)

// A failure window (keys.go: loginFailureEmailKey, loginFailureIPKey) counts the login attempts of one
// email or one source address in the window that started with the first of them: failed ones, and
// those still being checked (SPEC §9, "Login limit under load"). DynamoDB's TTL removes it some time
// after the window ends; until then window_ends tells that it is over.
//
// An attempt still being checked is pending: besides its place in failures it has an attribute of its
// own, pending_<claim id>, holding the time it lapses (domain.LoginClaimLife after the claim). Its
// login takes the attribute away when it is answered: a failure keeps its place (RecordFailure), any
// other answer gives it back (RecordLogin, ReleaseLogin). An attempt answered 503 may not get that far
// on a failing store; its place then lapses, and the next claim that finds the window full takes the
// lapsed places back before it refuses (dropLapsed), so a slow store never locks an owner out.
const (
	attrFailures   = "failures"
	attrWindowEnds = "window_ends" // Unix milliseconds
	pendingPrefix  = "pending_"
)

// pendingName is the attribute that marks claim id pending in a window.
func pendingName(id string) string { return pendingPrefix + id }

// windowItem is a failure window as stored. Pointers: an attribute may be missing from an item that
// was not written by claimWindow (such an item counts as an ended window).
type windowItem struct {
	Failures   *int   `dynamodbav:"failures"`
	WindowEnds *int64 `dynamodbav:"window_ends"`
}

// windowClaimAttempts bounds how often a claim starts over after another attempt changed the window
// between its two writes (an ended window restarted by someone else, lapsed places taken back).
const windowClaimAttempts = 3

// conflictAttempts bounds how often a window's write is sent again after meeting a transaction on the
// window (another login giving its claim back): DynamoDB refuses such a write (ECONFLICT).
const conflictAttempts = 3

// claimWindow counts attempt id in the window of k, before its password is checked, and returns the
// window with the attempt in it. A window that holds limit claims nothing: wait is how long it still
// runs. The count is one conditional UpdateItem while a window is open below its limit or there is
// none; an ended window (the item outlives it until TTL removes it) is restarted by a second write,
// conditional on the window it saw, so that of attempts that arrive at once only one restarts it and
// the others count in the new window. Every write of a claim is conditioned on its pending attribute
// being absent, so that copies of it sent after a lost answer exclude each other, and a copy refused
// with the attribute present in the item it met knows that another copy was done (updateWindow).
func (s *Store) claimWindow(ctx context.Context, k key, limit int, id string,
	now time.Time) (claimed domain.FailureWindow, wait time.Duration, err error) {
	end := now.Add(domain.LoginWindow)
	failures, ends, mine := expression.Name(attrFailures), expression.Name(attrWindowEnds), expression.Name(pendingName(id))
	lapses := expression.Value(now.Add(domain.LoginClaimLife).UnixMilli())
	notYet := expression.AttributeNotExists(mine)
	count := expression.Add(failures, expression.Value(1)).
		Set(ends, ends.IfNotExists(expression.Value(end.UnixMilli()))).
		Set(expression.Name(attrTTL), expression.Name(attrTTL).IfNotExists(expression.Value(end.Unix()))).
		Set(mine, lapses)
	belowLimit := expression.AttributeNotExists(expression.Name(attrPK)).Or(expression.And(
		ends.GreaterThan(expression.Value(now.UnixMilli())),
		failures.GreaterThanEqual(expression.Value(1)), failures.LessThan(expression.Value(limit)))).And(notYet)
	for range windowClaimAttempts {
		out, err := s.updateWindow(ctx, k, count, belowLimit)
		if err == nil {
			claimed, err = decodeWindow(out)
			return claimed, 0, err
		}
		if !conditionalCheckFailed(err) {
			return domain.FailureWindow{}, 0, fail("claim login window", err)
		}
		seen, item, err := s.windowSeen(ctx, k, err)
		if err != nil {
			return domain.FailureWindow{}, 0, err
		}
		if item[pendingName(id)] != nil { // a copy sent before was done
			claimed, err = decodeWindow(item)
			return claimed, 0, err
		}
		if seen == nil {
			continue // removed since: counted as none on the next try
		}
		if seen.WindowEnds != nil && *seen.WindowEnds > now.UnixMilli() && seen.Failures != nil && *seen.Failures >= limit {
			if lapsed := lapsedClaims(item, now); len(lapsed) > 0 {
				if err := s.dropLapsed(ctx, k, *seen.WindowEnds, lapsed); err != nil {
					return domain.FailureWindow{}, 0, err
				}
				continue
			}
			// Full: available when its window ends (DRF's wait), though a place still pending may lapse
			// sooner, if its attempt is never answered.
			return domain.FailureWindow{}, time.UnixMilli(*seen.WindowEnds).Sub(now), nil
		}
		// The window ended, or holds nothing (its attempts all given back): this attempt starts a new
		// one, unless another attempt changed it since it was seen. The ended window's pending places
		// go with it.
		restart := expression.Set(failures, expression.Value(1)).
			Set(ends, expression.Value(end.UnixMilli())).Set(expression.Name(attrTTL), expression.Value(end.Unix())).
			Set(mine, lapses)
		for name := range item {
			if strings.HasPrefix(name, pendingPrefix) {
				restart = restart.Remove(expression.Name(name))
			}
		}
		out, err = s.updateWindow(ctx, k, restart, unchanged(*seen).And(notYet))
		if err == nil {
			claimed, err = decodeWindow(out)
			return claimed, 0, err
		}
		if !conditionalCheckFailed(err) {
			return domain.FailureWindow{}, 0, fail("restart login window", err)
		}
		var ccf *types.ConditionalCheckFailedException
		if errors.As(err, &ccf) && ccf.Item[pendingName(id)] != nil {
			claimed, err = decodeWindow(ccf.Item)
			return claimed, 0, err
		}
	}
	return domain.FailureWindow{}, 0, &domain.Error{Code: domain.ECONFLICT, Detail: "login window kept changing"}
}

// lapsedClaims are the pending places of item whose attempts lapsed before now.
func lapsedClaims(item map[string]types.AttributeValue, now time.Time) []string {
	var out []string
	for name, v := range item {
		n, ok := v.(*types.AttributeValueMemberN)
		if !strings.HasPrefix(name, pendingPrefix) || !ok {
			continue
		}
		if ms, err := strconv.ParseInt(n.Value, 10, 64); err == nil && ms <= now.UnixMilli() {
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out
}

// dropLapsed takes the places of lapsed claims out of the window that ends at ends, in one write
// conditioned on each of them still being pending there: of two attempts that find them at once, one
// takes them back, and the other finds the window changed and looks again.
func (s *Store) dropLapsed(ctx context.Context, k key, ends int64, lapsed []string) error {
	cond := expression.Name(attrWindowEnds).Equal(expression.Value(ends))
	upd := expression.Add(expression.Name(attrFailures), expression.Value(-len(lapsed)))
	for _, name := range lapsed {
		cond = cond.And(expression.AttributeExists(expression.Name(name)))
		upd = upd.Remove(expression.Name(name))
	}
	item, err := updateItem(k, upd, &cond)
	if err != nil {
		return err
	}
	setTable(&item, s.table)
	err = s.transact(ctx, "take back lapsed login claims", []types.TransactWriteItem{item})
	if conditionFailed(err, 0) || domain.ErrorCode(err) == domain.ECONFLICT {
		return nil // taken back by another attempt, or changed: the claim looks again
	}
	return err
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
// After an attempt whose answer was lost the same update is sent again (as send does): its condition
// on the claim's pending attribute lets only one copy count, and a copy that finds the attribute was
// preceded by one that was done (claimWindow). An outcome that stays open fails the claim, and no
// password is checked; the place it may hold lapses (domain.LoginClaimLife).
func (s *Store) updateWindow(ctx context.Context, k key, upd expression.UpdateBuilder,
	cond expression.ConditionBuilder) (map[string]types.AttributeValue, error) {
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
	lost := false
	for attempt := 1; ; attempt++ {
		out, err := s.db.UpdateItem(ctx, in, writeRetries)
		if err == nil {
			if lost {
				s.metrics.Count(metrics.OutcomeSettled, "")
			}
			return out.Attributes, nil
		}
		if lost && conditionalCheckFailed(err) {
			s.metrics.Count(metrics.OutcomeSettled, "")
		}
		if !unknownOutcome(err) && !(lost && (unavailable(err) || conflict(err))) {
			return nil, err
		}
		lost = lost || unknownOutcome(err)
		if !s.anotherCopy(ctx, attempt) {
			return nil, err
		}
	}
}

// windowSeen is the window a failed condition met: the item the failure brought back, read again
// (consistently) when it brought none; nil when there is no item.
func (s *Store) windowSeen(ctx context.Context, k key,
	condErr error) (*windowItem, map[string]types.AttributeValue, error) {
	var ccf *types.ConditionalCheckFailedException
	item := map[string]types.AttributeValue(nil)
	if errors.As(condErr, &ccf) {
		item = ccf.Item
	}
	if item == nil {
		got, found, err := s.getItem(ctx, "read login window", k, readOptions{})
		if err != nil || !found {
			return nil, nil, err
		}
		item = got
	}
	var w windowItem
	if err := attributevalue.UnmarshalMap(item, &w); err != nil {
		return nil, nil, fail("decode login window", err)
	}
	return &w, item, nil
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

// giveBack is the write that takes claim id out of its window, rung by rung: rung 0 deletes the window
// when the attempt was its only one (so that the next login, say tomorrow's, finds none and claims in
// one call); rung 1 takes one off the count, in the same window only (never creating an item); past
// that the window is gone or restarted, or the place lapsed and was taken back, and there is nothing to
// give back (nil). Each rung is conditioned on the place still pending, so it is given back once.
func giveBack(k key, id string, w domain.FailureWindow, rung int) (*types.TransactWriteItem, error) {
	failures, ends, mine := expression.Name(attrFailures), expression.Name(attrWindowEnds), expression.Name(pendingName(id))
	sameWindow := ends.Equal(expression.Value(w.Ends.UnixMilli())).And(expression.AttributeExists(mine))
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
		item, err := updateItem(k, expression.Add(failures, expression.Value(-1)).Remove(mine), &cond)
		return &item, err
	}
	return nil, nil
}

// keepFailure is the write that makes claim id a failure that counts for the rest of its window: its
// place stays, its pending mark goes (so it never lapses). Conditioned on the mark, so that a place
// that lapsed and was taken back is not marked again.
func keepFailure(k key, id string, w domain.FailureWindow) (types.TransactWriteItem, error) {
	mine := expression.Name(pendingName(id))
	cond := expression.Name(attrWindowEnds).Equal(expression.Value(w.Ends.UnixMilli())).And(expression.AttributeExists(mine))
	return updateItem(k, expression.Remove(mine), &cond)
}

// RecordFailure keeps a failed attempt's places in both windows, each by its own write (keepFailure), at
// once. A place that is no longer pending (lapsed and taken back) is left as it is.
func (s *Store) RecordFailure(ctx context.Context, c domain.LoginClaim) error {
	windows := claimedWindows(c)
	errs := make([]error, len(windows))
	inParallel(len(windows), func(i int) {
		item, err := keepFailure(windows[i].k, c.ID, windows[i].w)
		if err != nil {
			errs[i] = err
			return
		}
		setTable(&item, s.table)
		err = domain.RetryOnConflict(ctx, conflictAttempts, func(int) error {
			return s.transact(ctx, "keep login failure", []types.TransactWriteItem{item})
		})
		if !conditionFailed(err, 0) {
			errs[i] = err
		}
	})
	return errors.Join(errs...)
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
			item, err := giveBack(windows[i].k, c.ID, windows[i].w, rung)
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
