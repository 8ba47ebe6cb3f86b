package dynamo

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/reportingplatform/api/shared/domain"
)

var _ domain.ContinuationKeyStore = (*Store)(nil)

// continuationKeySize is the HMAC-SHA256 key's length: the hash's block of randomness.
const continuationKeySize = 32

// attrContinuationKey holds the key's bytes.
const attrContinuationKey = "secret"

// ContinuationKey reads the key that signs list continuations (strongly consistent: a process that
// starts just after another made it must find it) and makes it when there is none: 32 random bytes put
// on the condition that no key exists. A creator that loses the race gets the winner's key back with the
// refusal, so every process signs with the first key stored. The put needs no settling of its own: a
// copy sent after a lost answer is refused with whichever key landed, this one's included.
func (s *Store) ContinuationKey(ctx context.Context) ([]byte, error) {
	if key, err := s.StoredContinuationKey(ctx); key != nil || err != nil {
		return key, err
	}
	return s.MakeContinuationKey(ctx)
}

// MakeContinuationKey puts 32 random bytes as the key unless one exists, and returns the key stored.
func (s *Store) MakeContinuationKey(ctx context.Context) ([]byte, error) {
	k := continuationKeyKey()
	fresh := make([]byte, continuationKeySize)
	if _, err := rand.Read(fresh); err != nil {
		return nil, fmt.Errorf("make continuation key: %w", err)
	}
	cond, err := expression.NewBuilder().WithCondition(expression.AttributeNotExists(expression.Name(attrPK))).Build()
	if err != nil {
		return nil, fail("build continuation key condition", err)
	}
	put := &dynamodb.PutItemInput{
		TableName: aws.String(s.table),
		Item: withEntry[types.AttributeValue](k.av(), attrContinuationKey,
			&types.AttributeValueMemberB{Value: fresh}),
		ConditionExpression:                 cond.Condition(),
		ExpressionAttributeNames:            cond.Names(),
		ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
	}
	for attempt := 1; ; attempt++ {
		_, err := s.db.PutItem(ctx, put, writeRetries)
		var ccf *types.ConditionalCheckFailedException
		switch {
		case err == nil:
			return fresh, nil
		case errors.As(err, &ccf) && ccf.Item != nil:
			return decodeContinuationKey(ccf.Item)
		case errors.As(err, &ccf):
			return getDecoded(ctx, s, "get continuation key", k, readOptions{}, decodeContinuationKey)
		case !unknownOutcome(err) || !s.anotherCopy(ctx, attempt):
			return nil, fail("put continuation key", err)
		}
	}
}

// StoredContinuationKey reads the key, strongly consistent; nil when none has been made yet.
func (s *Store) StoredContinuationKey(ctx context.Context) ([]byte, error) {
	item, found, err := s.getItem(ctx, "get continuation key", continuationKeyKey(), readOptions{})
	if err != nil || !found {
		return nil, err
	}
	return decodeContinuationKey(item)
}

func decodeContinuationKey(item map[string]types.AttributeValue) ([]byte, error) {
	b, ok := item[attrContinuationKey].(*types.AttributeValueMemberB)
	if !ok || len(b.Value) != continuationKeySize {
		return nil, fail("decode continuation key", errors.New("not a key of 32 bytes"))
	}
	return b.Value, nil
}
