package testkit

import (
	"context"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Items reads, strongly consistent, every item of the table whose partition key starts with prefix,
// as Go values, keyed by "PK SK": how a test counts what a request wrote. It scans the test's own small
// table with a client of its own, so the store's recorded calls (Calls) stay the handler's.
func (db *DB) Items(tb testing.TB, prefix string) map[string]map[string]any {
	tb.Helper()
	client, _ := countingClient(tb, db.endpoint)
	items := map[string]map[string]any{}
	p := dynamodb.NewScanPaginator(client,
		&dynamodb.ScanInput{TableName: aws.String(db.Table), ConsistentRead: aws.Bool(true)})
	for p.HasMorePages() {
		page, err := p.NextPage(context.Background())
		if err != nil {
			tb.Fatalf("scan %s: %v", db.Table, err)
		}
		var got []map[string]any
		if err := attributevalue.UnmarshalListOfMaps(page.Items, &got); err != nil {
			tb.Fatalf("scan %s: %v", db.Table, err)
		}
		for _, it := range got {
			pk, _ := it["PK"].(string)
			sk, _ := it["SK"].(string)
			if strings.HasPrefix(pk, prefix) {
				items[pk+" "+sk] = it
			}
		}
	}
	return items
}

// RemoveAttribute removes attr from the item pk/sk, with a client of its own: how a test makes the
// table look as a write that did not set it yet (an older version of the code) would have left it.
func (db *DB) RemoveAttribute(tb testing.TB, pk, sk, attr string) {
	tb.Helper()
	client, _ := countingClient(tb, db.endpoint)
	_, err := client.UpdateItem(context.Background(), &dynamodb.UpdateItemInput{
		TableName: aws.String(db.Table),
		Key: map[string]types.AttributeValue{
			"PK": &types.AttributeValueMemberS{Value: pk}, "SK": &types.AttributeValueMemberS{Value: sk}},
		UpdateExpression:         aws.String("REMOVE #m"),
		ExpressionAttributeNames: map[string]string{"#m": attr},
	})
	if err != nil {
		tb.Fatalf("remove %s from %s %s: %v", attr, pk, sk, err)
	}
}
