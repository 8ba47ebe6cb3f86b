package testkit

import (
	"context"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// TestCallsSumReadUnits: the counter sums the read units the answers report, for the calls that ask
// for them, and Reset forgets them.
func TestCallsSumReadUnits(t *testing.T) {
	db := NewDB(t)
	ctx := context.Background()
	key := map[string]types.AttributeValue{"PK": &types.AttributeValueMemberS{Value: "READ#UNITS"},
		"SK": &types.AttributeValueMemberS{Value: "ITEM"}}
	if _, err := db.Client.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(db.Table), Item: key}); err != nil {
		t.Fatal(err)
	}
	query := &dynamodb.QueryInput{TableName: aws.String(db.Table), KeyConditionExpression: aws.String("PK = :pk"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":pk": key["PK"]}, ConsistentRead: aws.Bool(true),
		ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal}
	db.Calls.Reset()
	for range 2 {
		if _, err := db.Client.Query(ctx, query); err != nil {
			t.Fatal(err)
		}
	}
	// Not asked for: reports nothing.
	if _, err := db.Client.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(db.Table), Key: key}); err != nil {
		t.Fatal(err)
	}
	if got := db.Calls.ReadUnits(); got != 2 {
		t.Fatalf("ReadUnits = %v after two strongly consistent queries of one small item and an unasked GetItem, "+
			"want 2 (%v)", got, db.Calls)
	}
	db.Calls.Reset()
	if got := db.Calls.ReadUnits(); got != 0 {
		t.Fatalf("ReadUnits = %v after Reset, want 0", got)
	}
}
