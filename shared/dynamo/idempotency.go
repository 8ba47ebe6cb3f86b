package dynamo

import (
	"context"
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/reportingplatform/api/shared/domain"
)

// The record of an Idempotency-Key (SPEC §9): claimed in progress by a create before its work, completed
// by the create's own transaction, released by a create that failed. ACCESS_PATTERNS.md has its rows.

const (
	keyInProgress = "in_progress"
	keyDone       = "done"
)

// idempotencyItem is IDEMPOTENCY#<user>#<key> / KEY.
type idempotencyItem struct {
	PK          string `dynamodbav:"PK"`
	SK          string `dynamodbav:"SK"`
	Owner       string `dynamodbav:"owner"`
	Fingerprint string `dynamodbav:"fingerprint"`
	State       string `dynamodbav:"state"`
	LeaseEnds   int64  `dynamodbav:"lease_ends"` // Unix ms
	ResourceID  string `dynamodbav:"resource_id,omitempty"`
	Status      int    `dynamodbav:"status,omitempty"`
	CreatedAt   string `dynamodbav:"created_at"`
	TTL         int64  `dynamodbav:"expires_at_epoch"`
}

func toIdempotencyItem(c domain.IdempotencyClaim) idempotencyItem {
	k := idempotencyKey(c.UserID, c.Key)
	return idempotencyItem{
		PK: k.PK, SK: k.SK, Owner: c.Owner, Fingerprint: c.Fingerprint, State: keyInProgress,
		LeaseEnds: c.LeaseEnds().UnixMilli(), CreatedAt: domain.FormatTime(c.At), TTL: c.Expires().Unix(),
	}
}

// ClaimIdempotencyKey puts the record in progress on the condition that the key is free: no record,
// one past its time to live (DynamoDB removes those late), or one in progress whose lease ran out (its
// request died; that request's transaction, conditioned on its own claim, can no longer land). A record
// that holds the key comes back with the failed condition, so a refusal costs no read of its own.
func (s *Store) ClaimIdempotencyKey(ctx context.Context,
	c domain.IdempotencyClaim) (domain.IdempotencyRecord, bool, error) {
	av, err := attributevalue.MarshalMap(toIdempotencyItem(c))
	if err != nil {
		return domain.IdempotencyRecord{}, false, fail("encode idempotency key", err)
	}
	free := expression.AttributeNotExists(expression.Name(attrPK)).
		Or(expression.Name(attrTTL).LessThanEqual(expression.Value(c.At.Unix()))).
		Or(expression.Name("state").Equal(expression.Value(keyInProgress)).
			And(expression.Name("lease_ends").LessThanEqual(expression.Value(c.At.UnixMilli()))))
	cond, err := expression.NewBuilder().WithCondition(free).Build()
	if err != nil {
		return domain.IdempotencyRecord{}, false, fail("build idempotency claim", err)
	}
	_, err = s.db.PutItem(ctx, &dynamodb.PutItemInput{
		TableName: aws.String(s.table), Item: av, ConditionExpression: cond.Condition(),
		ExpressionAttributeNames: cond.Names(), ExpressionAttributeValues: cond.Values(),
		ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
	})
	var ccf *types.ConditionalCheckFailedException
	if !errors.As(err, &ccf) {
		return domain.IdempotencyRecord{}, false, fail("claim idempotency key", err)
	}
	var held idempotencyItem
	if err := attributevalue.UnmarshalMap(ccf.Item, &held); err != nil {
		return domain.IdempotencyRecord{}, false, fail("decode idempotency key", err)
	}
	if held.PK == "" {
		return domain.IdempotencyRecord{}, false, fail("claim idempotency key",
			errors.New("the refused claim brought no record back"))
	}
	if held.Owner == c.Owner {
		// The SDK sent the claim again after its first answer was lost: the record is this claim.
		return domain.IdempotencyRecord{}, false, nil
	}
	return domain.IdempotencyRecord{
		Fingerprint: held.Fingerprint, Done: held.State == keyDone, ResourceID: held.ResourceID, Status: held.Status,
	}, true, nil
}

// ReleaseIdempotencyKey deletes the record if it is still c's claim in progress. One completed by c's
// transaction (whose answer was lost), taken over, or already released stays as it is.
func (s *Store) ReleaseIdempotencyKey(ctx context.Context, c domain.IdempotencyClaim) error {
	mine := expression.Name("owner").Equal(expression.Value(c.Owner)).
		And(expression.Name("state").Equal(expression.Value(keyInProgress)))
	cond, err := expression.NewBuilder().WithCondition(mine).Build()
	if err != nil {
		return fail("build idempotency release", err)
	}
	_, err = s.db.DeleteItem(ctx, &dynamodb.DeleteItemInput{
		TableName: aws.String(s.table), Key: idempotencyKey(c.UserID, c.Key).av(),
		ConditionExpression: cond.Condition(), ExpressionAttributeNames: cond.Names(),
		ExpressionAttributeValues: cond.Values(),
	})
	if conditionalCheckFailed(err) {
		return nil
	}
	return fail("release idempotency key", err)
}

// withDone appends to a create's writes the completion of done's claim (nothing when done is nil): the
// record, done, with what the create made, on the condition that the claim is still this request's. It
// returns the writes and the completion's position (-1 for none), which idempotencyLost reads.
func withDone(writes []types.TransactWriteItem, done *domain.IdempotencyDone) ([]types.TransactWriteItem, int, error) {
	if done == nil {
		return writes, -1, nil
	}
	it := toIdempotencyItem(done.Claim)
	it.State, it.ResourceID, it.Status = keyDone, done.ResourceID, done.Status
	av, err := attributevalue.MarshalMap(it)
	if err != nil {
		return nil, -1, fail("encode idempotency record", err)
	}
	cond, err := expression.NewBuilder().
		WithCondition(expression.Name("owner").Equal(expression.Value(done.Claim.Owner))).Build()
	if err != nil {
		return nil, -1, fail("build idempotency record", err)
	}
	writes = append(writes, types.TransactWriteItem{Put: &types.Put{
		Item: av, ConditionExpression: cond.Condition(),
		ExpressionAttributeNames: cond.Names(), ExpressionAttributeValues: cond.Values(),
	}})
	return writes, len(writes) - 1, nil
}

// transactDone sends a create's writes as transact does, in one transaction with the completion of
// done's claim (withDone, after writes: their positions stay). A claim no longer its own is
// domain.ErrIdempotencyKeyLost; other failures are transact's.
func (s *Store) transactDone(ctx context.Context, step string, writes []types.TransactWriteItem,
	done *domain.IdempotencyDone) error {
	writes, doneAt, err := withDone(writes, done)
	if err != nil {
		return err
	}
	err = s.transact(ctx, step, writes)
	if idempotencyLost(err, doneAt) {
		return fmt.Errorf("%s: %w", step, domain.ErrIdempotencyKeyLost)
	}
	return err
}

// idempotencyLost reports whether a create's transaction was cancelled because its claim, at position
// at (withDone), is no longer its own.
func idempotencyLost(err error, at int) bool { return at >= 0 && conditionFailed(err, at) }
