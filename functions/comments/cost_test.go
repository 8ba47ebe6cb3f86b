package comments_test

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go/middleware"
	"github.com/reportingplatform/api/infra/fixture"
	"github.com/reportingplatform/api/infra/testkit"
	"github.com/reportingplatform/api/shared/dynamo"
)

// reads is what DynamoDB reported for the reads of one request: the consumed capacity of Queries and
// BatchGetItems (the store asks for it with ReturnConsumedCapacity TOTAL), the index entries the
// Queries scanned, and the items the BatchGetItems returned. The Queries of the keys-only comment
// indexes (GSI1, GSI2: the list's walk to its page) are counted apart from those of GSI6 (the page's
// comments as shown).
type reads struct {
	queryUnits, batchUnits                float64
	scanned, queries, batches, batchItems int
	pageUnits                             float64
	pageEntries, pageQueries              int
}

// readCost collects reads from an SDK middleware on the store's client.
type readCost struct {
	mu sync.Mutex
	r  reads
}

func (c *readCost) reset() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.r = reads{}
}

func (c *readCost) snapshot() reads {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.r
}

func units(cc *types.ConsumedCapacity) float64 {
	if cc == nil {
		return 0
	}
	return aws.ToFloat64(cc.CapacityUnits)
}

func (c *readCost) middleware(stack *middleware.Stack) error {
	return stack.Initialize.Add(middleware.InitializeMiddlewareFunc("comments.readCost",
		func(ctx context.Context, in middleware.InitializeInput,
			next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
			out, md, err := next.HandleInitialize(ctx, in)
			c.mu.Lock()
			defer c.mu.Unlock()
			switch o := out.Result.(type) {
			case *dynamodb.QueryOutput:
				if q, ok := in.Parameters.(*dynamodb.QueryInput); ok && aws.ToString(q.IndexName) == "GSI6" {
					c.r.pageQueries++
					c.r.pageUnits += units(o.ConsumedCapacity)
					c.r.pageEntries += int(o.ScannedCount)
					break
				}
				c.r.queries++
				c.r.queryUnits += units(o.ConsumedCapacity)
				c.r.scanned += int(o.ScannedCount)
			case *dynamodb.BatchGetItemOutput:
				c.r.batches++
				for _, cc := range o.ConsumedCapacity {
					c.r.batchUnits += units(&cc)
				}
				for _, items := range o.Responses {
					c.r.batchItems += len(items)
				}
			}
			return out, md, err
		}), middleware.After)
}

// setupCosted is setup with the handler's store on a client of its own whose reads cost records.
func setupCosted(t *testing.T) (*env, *readCost) {
	t.Helper()
	db := testkit.NewDB(t)
	cost := &readCost{}
	client := db.ClientWith(func(o *dynamodb.Options) { o.APIOptions = append(o.APIOptions, cost.middleware) })
	return setupOn(t, db, dynamo.New(client, db.Table)), cost
}

// TestListCostDoesNotGrowWithTheObject is the cost test: page 1 of an object with 5,000
// comments reads no more than page 1 of an object with 100, with and without a tag filter, in both
// orderings, measured by what DynamoDB reports.
func TestListCostDoesNotGrowWithTheObject(t *testing.T) {
	e, cost := setupCosted(t)
	big, small := e.thread("report"), e.thread("report")
	for i := range 5000 {
		big.add([]string{"t", "u"}[i%2], "")
	}
	for i := range 100 {
		small.add([]string{"t", "u"}[i%2], "")
	}
	e.load(t, fixture.File{Comments: append(big.comments, small.comments...)})

	measure := func(t *testing.T, th *thread, extra ...string) (reads, map[string]any) {
		t.Helper()
		cost.reset()
		resp := e.do(t, "GET", listPath("report", th.objectID, extra...), "alice", "")
		if resp.Status != 200 {
			t.Fatalf("%d %s", resp.Status, resp.Body)
		}
		return cost.snapshot(), resp.Object(t)
	}
	for _, extra := range [][]string{
		nil, {"ordering=-created_at"}, {"tag=t"}, {"tag=u", "ordering=-created_at"}, {"page_size=100"},
	} {
		t.Run(strings.Join(append([]string{"page 1"}, extra...), " "), func(t *testing.T) {
			bigCost, bigBody := measure(t, big, extra...)
			smallCost, smallBody := measure(t, small, extra...)
			t.Logf("5,000: %+v; 100: %+v", bigCost, smallCost)
			// The page is a Query of GSI6, with a tag too: one comment in two has each.
			if bigCost.queries != 1 || bigCost.scanned == 0 || bigCost.queryUnits == 0 || bigCost.batchUnits == 0 ||
				bigCost.pageQueries != 1 || bigCost.pageUnits == 0 {
				t.Fatalf("nothing measured: %+v", bigCost)
			}
			if bigCost.scanned > smallCost.scanned || bigCost.queryUnits > smallCost.queryUnits ||
				bigCost.batchUnits > smallCost.batchUnits || bigCost.batchItems > smallCost.batchItems ||
				bigCost.pageEntries > smallCost.pageEntries || bigCost.pageUnits > smallCost.pageUnits {
				t.Fatalf("page 1 of 5,000 comments read more than page 1 of 100:\n  5,000: %+v\n  100:   %+v", bigCost, smallCost)
			}
			if len(bigBody["results"].([]any)) != len(smallBody["results"].([]any)) {
				t.Fatalf("pages of different sizes")
			}
		})
	}

	// Deep pages: from the start after the count (page 50, 60), from the end after the count, and the
	// last page; each must hold exactly the right comments and scan no more index
	// entries than reading from the nearer end needs.
	for _, tc := range []struct {
		name       string
		tag        string
		desc       bool
		extra      []string
		offset     int
		maxScanned int
	}{
		{"page 50 is read from the start", "", false, []string{"page=50"}, 980, 1000},
		{"page 60 is read from the start", "", false, []string{"page=60"}, 1180, 1200},
		{"page 200 is read from the end", "", false, []string{"page=200"}, 3980, 1020},
		{"page 200 newest first", "", true, []string{"page=200"}, 3980, 1020},
		{"last page", "", false, []string{"page=last", "page_size=30"}, 4980, 30},
		{"last tagged page, newest first", "t", true, []string{"page=last", "page_size=100"}, 2400, 100},
		{"deep tagged page", "u", false, []string{"page=100", "page_size=20"}, 1980, 520},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want := slices.Clone(big.comments)
			if tc.tag != "" {
				want = taggedWith(big.comments, tc.tag)
			}
			extra := tc.extra
			if tc.desc {
				slices.Reverse(want)
				extra = append(extra, "ordering=-created_at")
			}
			if tc.tag != "" {
				extra = append(extra, "tag="+tc.tag)
			}
			want = want[tc.offset:min(len(want), tc.offset+20)]
			c, body := measure(t, big, extra...)
			results := body["results"].([]any)
			if len(results) < len(want) {
				t.Fatalf("%d results, want at least %d", len(results), len(want))
			}
			for i, w := range want {
				if got := results[i].(map[string]any)["id"]; got != w.ID {
					t.Fatalf("result %d is %v, want %s", i, got, w.ID)
				}
			}
			if c.scanned > tc.maxScanned {
				t.Fatalf("scanned %d index entries, at most %d needed", c.scanned, tc.maxScanned)
			}
			// A tag's page reads the range its comments span: one comment in two has each tag.
			spans := 1
			if tc.tag != "" {
				spans = 2
			}
			if c.pageEntries > spans*len(results) {
				t.Fatalf("read %d entries of GSI6 for a page of %d", c.pageEntries, len(results))
			}
		})
	}
}
