// Package testkit is what every test of the service uses: a fresh table in a real DynamoDB Local, a
// DynamoDB call counter, requests sent through the API Gateway event → proxy adapter → handler path,
// and every response checked against openapi.yaml.
package testkit

import (
	"context"
	"fmt"
	"github.com/reportingplatform/api/infra/roundtrips"
	"os"
	"reflect"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go/middleware"
	"github.com/google/uuid"
	"github.com/reportingplatform/api/shared/dynamo"
)

// DB is a fresh table of the test's own in DynamoDB Local.
type DB struct {
	Client *dynamodb.Client
	Table  string
	Store  *dynamo.Store
	Calls  *Calls

	endpoint string
}

// Endpoint is the DynamoDB Local the tests use, DYNAMODB_ENDPOINT. Without it the test fails rather than
// skips, so that a run without a database can never pass, and says how to run it: through make, which
// starts a DynamoDB Local of the run's own, or beside one started by hand. Tests do not start one
// themselves: `go test ./...` runs every package's binary at once, and a JVM each would be slow and
// leave the machine's ports and memory to chance.
func Endpoint(tb testing.TB) string {
	tb.Helper()
	endpoint := os.Getenv("DYNAMODB_ENDPOINT")
	if endpoint == "" {
		tb.Fatal("DYNAMODB_ENDPOINT is not set: the tests need a DynamoDB Local. Run them with `make test`, " +
			"or `make test PKG=./functions/comments/ RUN=TestName` for some, which start one of their own; or " +
			"start one (infra/scripts/dynamodb-local.sh start 8814 memory .local/ddb.pid .local/ddb.log) and run " +
			"DYNAMODB_ENDPOINT=http://127.0.0.1:8814 go test ./...")
	}
	return endpoint
}

// NewDB creates a table with the store's definition under a random name in the DynamoDB Local of
// Endpoint, and deletes it when the test ends. The table has no stream: DynamoDB Local's stream makes
// each write much slower (NewDBWithStream).
func NewDB(tb testing.TB) *DB {
	tb.Helper()
	return newDB(tb, false, "")
}

// NewDBWithStream is NewDB with the table's stream on, as template.yaml declares it, for the tests that
// read it (MailFunction's).
func NewDBWithStream(tb testing.TB) *DB {
	tb.Helper()
	return newDB(tb, true, "")
}

// NewDBWithout is NewDB with its table made without the index named index, as a table made before
// that index was designed is: for the tests of adding an index in place (fixture.EnsureTable).
func NewDBWithout(tb testing.TB, index string) *DB {
	tb.Helper()
	return newDB(tb, false, index)
}

func newDB(tb testing.TB, stream bool, without string) *DB {
	tb.Helper()
	endpoint := Endpoint(tb)
	ctx := context.Background()
	client, calls := countingClient(tb, endpoint)
	table := "test-" + uuid.NewString()
	def := dynamo.TableDefinition(table)
	if !stream {
		def.StreamSpecification = nil
	}
	if n := len(def.GlobalSecondaryIndexes); without != "" {
		if WithoutIndex(def, without); len(def.GlobalSecondaryIndexes) != n-1 {
			tb.Fatalf("the table definition has no index %s", without)
		}
	}
	if _, err := client.CreateTable(ctx, def); err != nil {
		tb.Fatalf("create table %s at %s: %v", table, endpoint, err)
	}
	tb.Cleanup(func() {
		_, _ = client.DeleteTable(context.Background(), &dynamodb.DeleteTableInput{TableName: aws.String(table)})
	})
	calls.Reset()
	return &DB{Client: client, Table: table, Store: dynamo.New(client, table), Calls: calls, endpoint: endpoint}
}

func countingClient(tb testing.TB, endpoint string) (*dynamodb.Client, *Calls) {
	tb.Helper()
	calls := &Calls{}
	return Client(tb, endpoint, func(o *dynamodb.Options) { o.APIOptions = append(o.APIOptions, calls.middleware) }),
		calls
}

// Client is the tests' DynamoDB client of endpoint: the Lambda mains' (dynamo.NewClient) with time
// limits a busy machine cannot break, and optFns after (a recorder's middleware, say). Every test's
// client is built here or by ProductionClient, never by hand (TestTestsBuildNoClientOfTheirOwn).
//
// Tests share two cores with DynamoDB Local, the race detector and each other, where a call can take
// longer than the production client's attempt timeout and a retried CreateTable finds the table its
// timed-out first attempt made. Their subject is behaviour; the production time limits are held by the
// tests that ask for ProductionClient.
func Client(tb testing.TB, endpoint string, optFns ...func(*dynamodb.Options)) *dynamodb.Client {
	tb.Helper()
	return ProductionClient(tb, endpoint, append([]func(*dynamodb.Options){func(o *dynamodb.Options) {
		o.Logger = sdkLogger
		o.HTTPClient = awshttp.NewBuildableClient().WithTimeout(time.Minute)
		// For the same reason a transient failure gets more attempts than production's 3: DynamoDB Local
		// can close its connections under a call several attempts in a row ("use of closed network
		// connection", aws-sdk-go-v2#2737), which would fail a test's own look at the table.
		o.RetryMaxAttempts = 8
	}}, optFns...)...)
}

// ProductionClient is the DynamoDB client exactly as the Lambda mains build it (dynamo.NewClient: its
// attempt timeout, attempts and backoff), with optFns after. Only for what is about those limits: a
// test proving them against a fault proxy (BehindProxy), whose every wait is one the proxy imposes, not
// one a busy machine makes; or a unit test of a recorder against a server of its own. Anything else
// takes Client: under load a call of DynamoDB Local can outlast the production attempt timeout, and a
// test on this client would answer 503 for it.
func ProductionClient(tb testing.TB, endpoint string, optFns ...func(*dynamodb.Options)) *dynamodb.Client {
	tb.Helper()
	client, err := dynamo.NewClient(context.Background(), endpoint, optFns...)
	if err != nil {
		tb.Fatalf("dynamodb client: %v", err)
	}
	return client
}

// BulkClient is the fixture loader's client (dynamo.NewLocalBulkClient: long attempts, many retries
// with backoff), which no busy machine outlasts, for tests of the loader as `make seed` runs it.
func BulkClient(tb testing.TB, endpoint string) *dynamodb.Client {
	tb.Helper()
	client, err := dynamo.NewLocalBulkClient(endpoint)
	if err != nil {
		tb.Fatalf("bulk dynamodb client: %v", err)
	}
	return client
}

// ClientWith is another client of the table's own (its calls counted by db.Calls) with optFns added:
// a test's recorder of what the answers hold, say.
func (db *DB) ClientWith(optFns ...func(*dynamodb.Options)) *dynamodb.Client {
	opts := db.Client.Options()
	// A slice of its own: appending to the table client's could write into another client's.
	opts.APIOptions = slices.Clone(opts.APIOptions)
	return dynamodb.New(opts, optFns...)
}

// View returns another store over the same table with a call recorder of its own, so that a test can
// tell apart the calls of different functions (each Lambda function has its own client in AWS).
func (db *DB) View(tb testing.TB) (*dynamo.Store, *Calls) {
	tb.Helper()
	client, calls := countingClient(tb, db.endpoint)
	return dynamo.New(client, db.Table), calls
}

// Calls records every DynamoDB operation the store makes, with its start and end, so tests can hold
// requests to a budget of calls (SDK middleware at the Initialize step: one per logical call, whatever
// the SDK's retries).
type Calls struct {
	mu      sync.Mutex
	calls   []call
	latency time.Duration
	held    map[string]*hold // by operation: the next call of it waits (Hold)
}

type hold struct{ arrived, release chan struct{} }

// Hold makes the next call of op wait, before it is sent, until release is called (or its context
// ends); arrived is closed once it waits. A test holds one request at a step, deterministically, while
// it sends another.
func (c *Calls) Hold(op string) (arrived <-chan struct{}, release func()) {
	h := &hold{arrived: make(chan struct{}), release: make(chan struct{})}
	c.mu.Lock()
	if c.held == nil {
		c.held = map[string]*hold{}
	}
	c.held[op] = h
	c.mu.Unlock()
	var once sync.Once
	return h.arrived, func() { once.Do(func() { close(h.release) }) }
}

// wait holds a call of op while Hold asks for it.
func (c *Calls) wait(ctx context.Context, op string) {
	c.mu.Lock()
	h := c.held[op]
	delete(c.held, op)
	c.mu.Unlock()
	if h == nil {
		return
	}
	close(h.arrived)
	select {
	case <-h.release:
	case <-ctx.Done():
	}
}

// SimulateLatency makes every call wait d before it is sent, as a network round trip would. Budget
// tests turn it on: against DynamoDB Local on loopback a call takes about a millisecond, less than a
// busy machine may take to schedule the goroutine of a parallel call, which would then look sequential.
// With d well above scheduling delays, calls made in parallel reliably overlap and Sequential is exact.
func (c *Calls) SimulateLatency(d time.Duration) {
	c.mu.Lock()
	c.latency = d
	c.mu.Unlock()
}

type call struct {
	op         string
	input      any // the operation's input, e.g. *dynamodb.QueryInput
	start, end time.Time
	read       float64 // the read capacity units the answer reports (calls that ask for them)
	scanned    int     // the items or index entries a Query or Scan read, before any filter
}

func (c *Calls) middleware(stack *middleware.Stack) error {
	return stack.Initialize.Add(middleware.InitializeMiddlewareFunc("testkit.count",
		func(ctx context.Context, in middleware.InitializeInput,
			next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
			start := time.Now()
			c.mu.Lock()
			latency := c.latency
			c.mu.Unlock()
			if latency > 0 {
				time.Sleep(latency)
			}
			c.wait(ctx, middleware.GetOperationName(ctx))
			out, md, err := next.HandleInitialize(ctx, in)
			c.mu.Lock()
			c.calls = append(c.calls,
				call{op: middleware.GetOperationName(ctx), input: in.Parameters, start: start, end: time.Now(),
					read: readUnits(out.Result), scanned: scanned(out.Result)})
			c.mu.Unlock()
			secrets.harvestHashes(reflect.ValueOf(in.Parameters), 0)
			secrets.harvestHashes(reflect.ValueOf(out.Result), 0)
			return out, md, err
		}), middleware.Before)
}

// Reset forgets the calls recorded so far.
func (c *Calls) Reset() {
	c.mu.Lock()
	c.calls = nil
	c.mu.Unlock()
}

// Ops lists the operations made since the last Reset, in the order they ended.
func (c *Calls) Ops() []string { return eachCall(c, func(cl call) string { return cl.op }) }

// Count is how many of the calls made since the last Reset were op ("Query").
func (c *Calls) Count(op string) int {
	n := 0
	for _, o := range c.Ops() {
		if o == op {
			n++
		}
	}
	return n
}

// Inputs returns the inputs of the calls made since the last Reset, in the order they ended.
func (c *Calls) Inputs() []any { return eachCall(c, func(cl call) any { return cl.input }) }

// eachCall is what of each call made since the last Reset, in the order they ended.
func eachCall[T any](c *Calls, what func(call) T) []T {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]T, len(c.calls))
	for i, cl := range c.calls {
		out[i] = what(cl)
	}
	return out
}

// ReadUnits is the read capacity units DynamoDB reported for the calls made since the last Reset,
// summed: the calls that ask for their consumed capacity (ReturnConsumedCapacity TOTAL) count, others
// report none. It is DynamoDB Local's figure, not AWS's bill (infra/bench's Billed tells them apart).
func (c *Calls) ReadUnits() float64 {
	var total float64
	for _, units := range eachCall(c, func(cl call) float64 { return cl.read }) {
		total += units
	}
	return total
}

// Scanned is how many items and index entries the Queries and Scans made since the last Reset read
// (their ScannedCount, summed): what a read walks through, whether or not it returns it.
func (c *Calls) Scanned() int {
	total := 0
	for _, n := range eachCall(c, func(cl call) int { return cl.scanned }) {
		total += n
	}
	return total
}

// scanned is the ScannedCount of a Query's or Scan's answer (nil for a failed call: none).
func scanned(result any) int {
	switch out := result.(type) {
	case *dynamodb.QueryOutput:
		return int(out.ScannedCount)
	case *dynamodb.ScanOutput:
		return int(out.ScannedCount)
	}
	return 0
}

// readUnits is the read capacity a call's answer reports (nil for a failed call: none).
func readUnits(result any) float64 {
	var reported []types.ConsumedCapacity
	switch out := result.(type) {
	case *dynamodb.GetItemOutput:
		reported = optional(out.ConsumedCapacity)
	case *dynamodb.QueryOutput:
		reported = optional(out.ConsumedCapacity)
	case *dynamodb.ScanOutput:
		reported = optional(out.ConsumedCapacity)
	case *dynamodb.BatchGetItemOutput:
		reported = out.ConsumedCapacity
	case *dynamodb.TransactGetItemsOutput:
		reported = out.ConsumedCapacity
	}
	var total float64
	for _, cc := range reported {
		total += aws.ToFloat64(cc.CapacityUnits)
	}
	return total
}

func optional(cc *types.ConsumedCapacity) []types.ConsumedCapacity {
	if cc == nil {
		return nil
	}
	return []types.ConsumedCapacity{*cc}
}

// Sequential is the length of the longest chain of calls each of which started after the previous one
// ended: the round trips a request waits for (roundtrips.Sequential). Calls made in parallel count once.
func (c *Calls) Sequential() int {
	return roundtrips.Sequential(eachCall(c, func(cl call) roundtrips.Span {
		return roundtrips.Span{Start: cl.start, End: cl.end}
	}))
}

func (c *Calls) String() string { return fmt.Sprint(c.Ops()) }

// BudgetLatency is the round trip budget tests simulate (Calls.SimulateLatency): far above goroutine
// scheduling delays on a loaded 2-core machine, far below what makes tests slow.
const BudgetLatency = 20 * time.Millisecond

// WithoutIndex removes the index named name from def, and the attribute definitions no key uses then
// (CreateTable refuses them): the table a build of an earlier design made, for the tests of what a
// table gains in place.
func WithoutIndex(def *dynamodb.CreateTableInput, name string) {
	def.GlobalSecondaryIndexes = slices.DeleteFunc(def.GlobalSecondaryIndexes, func(g types.GlobalSecondaryIndex) bool {
		return aws.ToString(g.IndexName) == name
	})
	used := map[string]bool{}
	for _, k := range def.KeySchema {
		used[aws.ToString(k.AttributeName)] = true
	}
	for _, g := range def.GlobalSecondaryIndexes {
		for _, k := range g.KeySchema {
			used[aws.ToString(k.AttributeName)] = true
		}
	}
	def.AttributeDefinitions = slices.DeleteFunc(def.AttributeDefinitions, func(a types.AttributeDefinition) bool {
		return !used[aws.ToString(a.AttributeName)]
	})
}
