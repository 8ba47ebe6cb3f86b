package dynamo

import (
	"context"
	"strconv"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// LoginWindowKey is the key of an email's failure window, for tests that put windows as an earlier
// writer (or none of ours) left them.
func LoginWindowKey(email string) map[string]types.AttributeValue {
	return loginFailureEmailKey(email).av()
}

// AddToCounter is a transaction of the store's own kind that adds n to a counter item (partition pk)
// and puts a marker item (partition marker): a write that would count twice if it were done twice,
// for the tests of lost answers.
func (s *Store) AddToCounter(ctx context.Context, pk, marker string, n int) error {
	return s.transact(ctx, "add to counter", counterItems(pk, marker, n))
}

// AddToCounterWithToken sends AddToCounter's transaction (its marker named by the token) once, under
// token, and returns DynamoDB's answer as it is.
func (s *Store) AddToCounterWithToken(ctx context.Context, pk, token string, n int) error {
	items := counterItems(pk, pk+"#"+token, n)
	for i := range items {
		setTable(&items[i], s.table)
	}
	return s.writeOnce(ctx, write{token: token, items: items})
}

func counterItems(pk, marker string, n int) []types.TransactWriteItem {
	add := types.TransactWriteItem{Update: &types.Update{
		Key:                       key{PK: pk, SK: pk}.av(),
		UpdateExpression:          aws.String("ADD n :n"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":n": &types.AttributeValueMemberN{Value: strconv.Itoa(n)}},
	}}
	put := types.TransactWriteItem{Put: &types.Put{
		Item:                map[string]types.AttributeValue{attrPK: &types.AttributeValueMemberS{Value: marker}, attrSK: &types.AttributeValueMemberS{Value: marker}},
		ConditionExpression: aws.String("attribute_not_exists(PK)"),
	}}
	return []types.TransactWriteItem{add, put}
}
