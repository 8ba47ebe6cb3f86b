package testkit

import (
	"context"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
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
