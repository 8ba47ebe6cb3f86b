package bench

import (
	"bytes"
	"context"
	"github.com/reportingplatform/api/infra/roundtrips"
	"io"
	"net/http"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go/middleware"
)

// On-demand throughput prices of a Standard table in us-east-1, in dollars per million request units:
// AWS's DynamoDB on-demand pricing page (https://aws.amazon.com/dynamodb/pricing/on-demand/), the
// prices in force since AWS halved on-demand throughput prices on 1 November 2024 (they were $1.25 and
// $0.25); looked up 2026-11-23. One read request unit is a strongly consistent read of up to 4 KB (an
// eventually consistent one is half, a transactional one two); one write request unit a write of up to
// 1 KB (a transactional one two).
const (
	DollarsPerMillionReadUnits  = 0.125
	DollarsPerMillionWriteUnits = 0.625
)

// CostPerMillion is what a million requests that each consume read and write request units cost.
func CostPerMillion(read, write float64) float64 {
	return read*DollarsPerMillionReadUnits + write*DollarsPerMillionWriteUnits
}

// Call is one DynamoDB call: its operation, when it started and ended, the request units AWS bills for
// it, and its HTTP exchanges (one per attempt).
type Call struct {
	Op          string
	Start, End  time.Time
	Read, Write float64
	Wire        []Span
}

// Span is one HTTP exchange of a call: from handing the request to the HTTP client to having read the
// whole answer. What a call takes beyond its spans is the SDK's work in the process: validating,
// serializing and signing the request, and decoding the answer.
type Span struct{ Start, End time.Time }

// SDK is the part of the call spent in the process rather than waiting for DynamoDB.
func (c Call) SDK() time.Duration {
	d := c.End.Sub(c.Start)
	for _, s := range c.Wire {
		d -= s.End.Sub(s.Start)
	}
	return d
}

// Recorder is an SDK middleware (Register it in the client's options) that asks DynamoDB for the
// consumed capacity of every call (ReturnConsumedCapacity TOTAL) and records the call. It sits at the
// Initialize step, as testkit's call counter does: one record per logical call, whatever the SDK's
// retries. It also wraps the client's HTTP client to time each exchange on the wire.
type Recorder struct {
	mu    sync.Mutex
	calls []Call
}

// Register adds the recorder to a DynamoDB client's options.
func (r *Recorder) Register(o *dynamodb.Options) {
	o.APIOptions = append(o.APIOptions, r.middleware)
	o.HTTPClient = timedClient{next: o.HTTPClient}
}

// exchangesKey carries a call's *exchanges from the middleware to the HTTP client, through the
// request's context (the SDK builds each attempt's *http.Request with the call's context).
type exchangesKey struct{}

type exchanges struct {
	mu    sync.Mutex
	spans []Span
}

func (r *Recorder) middleware(stack *middleware.Stack) error {
	return stack.Initialize.Add(middleware.InitializeMiddlewareFunc("bench.capacity",
		func(ctx context.Context, in middleware.InitializeInput,
			next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
			askForCapacity(in.Parameters)
			ex := &exchanges{}
			start := time.Now()
			out, md, err := next.HandleInitialize(context.WithValue(ctx, exchangesKey{}, ex), in)
			end := time.Now()
			read, write := Billed(in.Parameters, out.Result)
			ex.mu.Lock()
			spans := ex.spans
			ex.mu.Unlock()
			r.mu.Lock()
			r.calls = append(r.calls,
				Call{Op: middleware.GetOperationName(ctx), Start: start, End: end, Read: read, Write: write, Wire: spans})
			r.mu.Unlock()
			return out, md, err
		}), middleware.Before)
}

// timedClient times each exchange to the last byte of the answer. It reads the body whole before the
// SDK sees it: the SDK's JSON decoder reads the body as it decodes, which would otherwise put decoding
// on the wire.
type timedClient struct {
	next interface {
		Do(*http.Request) (*http.Response, error)
	}
}

func (c timedClient) Do(req *http.Request) (*http.Response, error) {
	start := time.Now()
	resp, err := c.next.Do(req)
	if err == nil {
		var body []byte
		body, err = io.ReadAll(resp.Body)
		resp.Body.Close()
		resp.Body = io.NopCloser(bytes.NewReader(body))
		if err != nil {
			resp = nil
		}
	}
	end := time.Now()
	if ex, ok := req.Context().Value(exchangesKey{}).(*exchanges); ok {
		ex.mu.Lock()
		ex.spans = append(ex.spans, Span{start, end})
		ex.mu.Unlock()
	}
	return resp, err
}

// Reset forgets the calls recorded so far.
func (r *Recorder) Reset() {
	r.mu.Lock()
	r.calls = r.calls[:0]
	r.mu.Unlock()
}

// Calls returns the calls recorded since the last Reset.
func (r *Recorder) Calls() []Call {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Call(nil), r.calls...)
}

// askForCapacity sets ReturnConsumedCapacity on every input that has it. The input is the caller's
// own struct; the field changes nothing else about the call.
func askForCapacity(input any) {
	total := types.ReturnConsumedCapacityTotal
	switch in := input.(type) {
	case *dynamodb.GetItemInput:
		in.ReturnConsumedCapacity = total
	case *dynamodb.BatchGetItemInput:
		in.ReturnConsumedCapacity = total
	case *dynamodb.QueryInput:
		in.ReturnConsumedCapacity = total
	case *dynamodb.ScanInput:
		in.ReturnConsumedCapacity = total
	case *dynamodb.TransactGetItemsInput:
		in.ReturnConsumedCapacity = total
	case *dynamodb.PutItemInput:
		in.ReturnConsumedCapacity = total
	case *dynamodb.UpdateItemInput:
		in.ReturnConsumedCapacity = total
	case *dynamodb.DeleteItemInput:
		in.ReturnConsumedCapacity = total
	case *dynamodb.BatchWriteItemInput:
		in.ReturnConsumedCapacity = total
	case *dynamodb.TransactWriteItemsInput:
		in.ReturnConsumedCapacity = total
	}
}

// Billed returns the read and write request units AWS bills for a call, from the consumed capacity
// DynamoDB Local returned (output is nil for a failed call, which counts nothing here). DynamoDB Local
// (3.3.0) agrees with AWS on single-item calls (a write that adds or changes an index entry included:
// one more unit per index), on Query, and on BatchGetItem's items, eventually consistent ones at half a
// unit. Where it does not, AWS's rules are applied:
//
//   - TransactWriteItems (and TransactGetItems): Local reports twice the units of the largest item,
//     where AWS bills two units per item (per KB written, per 4 KB read), every ConditionCheck
//     included. Billed takes the larger of Local's figure and two units per item: exact while the
//     items are under 1 KB (4 KB for reads), as the benchmark's are (users, claims, tokens,
//     invitations, comments and counters all are, but a user with many memberships or a long
//     comment), and short by the index entries a transaction changes, of which the benchmark's
//     operations change none (their writes keep the index keys and commenter_id).
//   - BatchGetItem: Local charges nothing for a key that finds no item; AWS processes each key as a
//     GetItem, which consumes its unit (half a unit, eventually consistent) when the item is absent.
//
// Failed conditional writes, which AWS bills too, are not counted.
func Billed(input, output any) (read, write float64) {
	switch out := output.(type) {
	case *dynamodb.GetItemOutput:
		return units(out.ConsumedCapacity), 0
	case *dynamodb.QueryOutput:
		return units(out.ConsumedCapacity), 0
	case *dynamodb.ScanOutput:
		return units(out.ConsumedCapacity), 0
	case *dynamodb.BatchGetItemOutput:
		read = sum(out.ConsumedCapacity)
		if in, ok := input.(*dynamodb.BatchGetItemInput); ok {
			read += absentKeys(in, out)
		}
		return read, 0
	case *dynamodb.TransactGetItemsOutput:
		n := 0
		if in, ok := input.(*dynamodb.TransactGetItemsInput); ok {
			n = len(in.TransactItems)
		}
		return max(sum(out.ConsumedCapacity), 2*float64(n)), 0
	case *dynamodb.PutItemOutput:
		return 0, units(out.ConsumedCapacity)
	case *dynamodb.UpdateItemOutput:
		return 0, units(out.ConsumedCapacity)
	case *dynamodb.DeleteItemOutput:
		return 0, units(out.ConsumedCapacity)
	case *dynamodb.BatchWriteItemOutput:
		return 0, sum(out.ConsumedCapacity)
	case *dynamodb.TransactWriteItemsOutput:
		n := 0
		if in, ok := input.(*dynamodb.TransactWriteItemsInput); ok {
			n = len(in.TransactItems)
		}
		return 0, max(sum(out.ConsumedCapacity), 2*float64(n))
	}
	return 0, 0
}

// absentKeys is what AWS bills for the keys of a batch that found no item (neither returned nor left
// unprocessed): a unit each, half a unit when read eventually consistent.
func absentKeys(in *dynamodb.BatchGetItemInput, out *dynamodb.BatchGetItemOutput) float64 {
	var units float64
	for table, req := range in.RequestItems {
		absent := len(req.Keys) - len(out.Responses[table]) - len(out.UnprocessedKeys[table].Keys)
		if absent <= 0 {
			continue
		}
		unit := 0.5
		if req.ConsistentRead != nil && *req.ConsistentRead {
			unit = 1
		}
		units += float64(absent) * unit
	}
	return units
}

func units(c *types.ConsumedCapacity) float64 {
	if c == nil || c.CapacityUnits == nil {
		return 0
	}
	return *c.CapacityUnits
}

func sum(cs []types.ConsumedCapacity) float64 {
	var total float64
	for i := range cs {
		total += units(&cs[i])
	}
	return total
}

// Sequential is the round trips a request waited for (roundtrips.Sequential, testkit's rule too) over
// these records.
func Sequential(calls []Call) int {
	spans := make([]roundtrips.Span, len(calls))
	for i, c := range calls {
		spans[i] = roundtrips.Span{Start: c.Start, End: c.End}
	}
	return roundtrips.Sequential(spans)
}
