package bench

import (
	"context"
	"github.com/reportingplatform/api/infra/testkit"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

func capacity(units float64) *types.ConsumedCapacity {
	return &types.ConsumedCapacity{CapacityUnits: aws.Float64(units)}
}

func keys(n int) []map[string]types.AttributeValue {
	return make([]map[string]types.AttributeValue, n)
}

func TestBilled(t *testing.T) {
	for _, tc := range []struct {
		name        string
		in, out     any
		read, write float64
	}{
		{"GetItem as reported", &dynamodb.GetItemInput{}, &dynamodb.GetItemOutput{ConsumedCapacity: capacity(0.5)}, 0.5, 0},
		{"Query as reported", &dynamodb.QueryInput{}, &dynamodb.QueryOutput{ConsumedCapacity: capacity(1)}, 1, 0},
		{"UpdateItem as reported", &dynamodb.UpdateItemInput{},
			&dynamodb.UpdateItemOutput{ConsumedCapacity: capacity(2)}, 0, 2},
		{"failed call", &dynamodb.PutItemInput{}, nil, 0, 0},
		{"no capacity returned", &dynamodb.PutItemInput{}, &dynamodb.PutItemOutput{}, 0, 0},
		{"BatchGetItem: absent keys cost a unit each, strongly consistent",
			&dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{"t": {Keys: keys(3),
				ConsistentRead: aws.Bool(true)}}},
			&dynamodb.BatchGetItemOutput{ConsumedCapacity: []types.ConsumedCapacity{*capacity(1)},
				Responses: map[string][]map[string]types.AttributeValue{"t": keys(1)}},
			3, 0},
		{"BatchGetItem: half a unit eventually consistent; unprocessed keys are not absent",
			&dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{"t": {Keys: keys(4)}}},
			&dynamodb.BatchGetItemOutput{ConsumedCapacity: []types.ConsumedCapacity{*capacity(1)},
				Responses:       map[string][]map[string]types.AttributeValue{"t": keys(2)},
				UnprocessedKeys: map[string]types.KeysAndAttributes{"t": {Keys: keys(1)}}},
			1.5, 0},
		{"TransactWriteItems: two units per item, whatever Local reports",
			&dynamodb.TransactWriteItemsInput{TransactItems: make([]types.TransactWriteItem, 3)},
			&dynamodb.TransactWriteItemsOutput{ConsumedCapacity: []types.ConsumedCapacity{*capacity(2)}}, 0, 6},
		{"TransactWriteItems: Local's figure when larger (an item over 1 KB)",
			&dynamodb.TransactWriteItemsInput{TransactItems: make([]types.TransactWriteItem, 1)},
			&dynamodb.TransactWriteItemsOutput{ConsumedCapacity: []types.ConsumedCapacity{*capacity(4)}}, 0, 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			read, write := Billed(tc.in, tc.out)
			if read != tc.read || write != tc.write {
				t.Fatalf("Billed = %v read, %v write; want %v, %v", read, write, tc.read, tc.write)
			}
		})
	}
}

func TestAskForCapacity(t *testing.T) {
	for _, in := range []any{&dynamodb.GetItemInput{}, &dynamodb.BatchGetItemInput{}, &dynamodb.QueryInput{},
		&dynamodb.UpdateItemInput{}, &dynamodb.TransactWriteItemsInput{}} {
		askForCapacity(in)
		read, _ := Billed(in, nil) // the input alone bills nothing
		if read != 0 {
			t.Fatalf("%T billed %v without an output", in, read)
		}
	}
	in := &dynamodb.TransactWriteItemsInput{}
	askForCapacity(in)
	if in.ReturnConsumedCapacity != types.ReturnConsumedCapacityTotal {
		t.Fatalf("ReturnConsumedCapacity %q", in.ReturnConsumedCapacity)
	}
}

func TestCostPerMillion(t *testing.T) {
	if got := CostPerMillion(2, 1); got != 2*DollarsPerMillionReadUnits+DollarsPerMillionWriteUnits {
		t.Fatalf("CostPerMillion(2, 1) = %v", got)
	}
}

// at makes a call that runs from ms a to ms b.
func at(a, b int) Call {
	t0 := time.Unix(0, 0)
	return Call{Start: t0.Add(time.Duration(a) * time.Millisecond), End: t0.Add(time.Duration(b) * time.Millisecond)}
}

func TestSequentialAndInFlight(t *testing.T) {
	for _, tc := range []struct {
		name       string
		calls      []Call
		sequential int
		inFlight   time.Duration
	}{
		{"none", nil, 0, 0},
		{"one", []Call{at(0, 2)}, 1, 2 * time.Millisecond},
		{"two in parallel, then one", []Call{at(5, 7), at(0, 3), at(0, 4)}, 2, 6 * time.Millisecond},
		{"overlapping chain counts once", []Call{at(0, 3), at(2, 5)}, 1, 5 * time.Millisecond},
		{"one starting as the other ends", []Call{at(0, 2), at(2, 3)}, 2, 3 * time.Millisecond},
		{"a long call hides a short one", []Call{at(0, 10), at(1, 2), at(3, 4)}, 2, 10 * time.Millisecond},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Sequential(tc.calls); got != tc.sequential {
				t.Errorf("Sequential = %d, want %d", got, tc.sequential)
			}
			if got := inFlight(tc.calls); got != tc.inFlight {
				t.Errorf("inFlight = %v, want %v", got, tc.inFlight)
			}
		})
	}
}

func TestStats(t *testing.T) {
	var s Stats
	for i := 100; i >= 1; i-- {
		calls := []Call{at(0, 1), at(1, 2)}
		if i%2 == 0 {
			calls = []Call{at(0, 1), at(0, 1), at(1, 2)}
		}
		calls[0].Read, calls[1].Write = 1, 2
		s.Add(time.Duration(i)*time.Millisecond, calls)
	}
	if p50, p99, p100 := s.Percentile(50), s.Percentile(99), s.Percentile(100); p50 != 50*time.Millisecond ||
		p99 != 99*time.Millisecond || p100 != 100*time.Millisecond {
		t.Errorf("percentiles %v %v %v", p50, p99, p100)
	}
	if s.RoundTrips() != 2 || s.MaxRoundTrips() != 2 || s.Calls() != 3 {
		t.Errorf("round trips %d–%d, calls %d", s.RoundTrips(), s.MaxRoundTrips(), s.Calls())
	}
	if read, write := s.Units(); read != 1 || write != 2 {
		t.Errorf("units %v read, %v write", read, write)
	}
	var one Stats
	one.Add(time.Millisecond, nil)
	if one.Percentile(99) != time.Millisecond || one.Percentile(1) != time.Millisecond {
		t.Errorf("percentile of one sample")
	}
}

// TestOwnTime: a request's own time is what it took apart from its waits for DynamoDB's answers on the
// wire, parallel exchanges counted once (the SDK's work before and after an exchange is its own); a
// row's overhead is that beyond the work its target allows.
func TestOwnTime(t *testing.T) {
	t0 := time.Unix(0, 0)
	at := func(ms float64) time.Time { return t0.Add(time.Duration(ms * float64(time.Millisecond))) }
	span := func(a, b float64) Span { return Span{at(a), at(b)} }
	var s Stats
	// 10 ms: two parallel calls over 1-4 ms and 2-5 ms, on the wire over 1.5-3.5 and 2.5-4.5 (3 ms of
	// waiting); then one over 6-8 ms that took two attempts, on the wire over 6.5-7 and 7.25-7.75.
	s.Add(10*time.Millisecond, []Call{
		{Op: "BatchGetItem", Start: at(1), End: at(4), Wire: []Span{span(1.5, 3.5)}},
		{Op: "Query", Start: at(2), End: at(5), Wire: []Span{span(2.5, 4.5)}},
		{Op: "UpdateItem", Start: at(6), End: at(8), Wire: []Span{span(6.5, 7), span(7.25, 7.75)}},
	})
	if got, want := s.Own(50), 6*time.Millisecond; got != want {
		t.Errorf("Own(50) = %v, want %v", got, want)
	}
	if got, want := percentile(s.sdk, 50), 3*time.Millisecond; got != want {
		t.Errorf("SDK time = %v, want %v (1 + 1 + 1 ms)", got, want)
	}
	r := Row{Stats: &s, Work: 3 * time.Millisecond}
	if got, want := r.Overhead(), 3*time.Millisecond; got != want {
		t.Errorf("Overhead() = %v, want %v", got, want)
	}
	// The floor: 4 ms on the wire (3 + 1) and the 3 ms of work allowed.
	if got, want := r.Floor(), 7*time.Millisecond; got != want {
		t.Errorf("Floor() = %v, want %v", got, want)
	}
	for _, tc := range []struct {
		target time.Duration
		below  bool
	}{{6 * time.Millisecond, true}, {7 * time.Millisecond, false}, {9 * time.Millisecond, false}, {0, false}} {
		r.Target = tc.target
		if r.BelowFloor() != tc.below {
			t.Errorf("target %v: BelowFloor() = %v, want %v", tc.target, r.BelowFloor(), tc.below)
		}
	}
	var out strings.Builder
	if err := WriteBreakdown(&out, []Row{{Name: "op", Stats: &s}}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"1 BatchGetItem 3.00 (2.00)", "2 Query 3.00 (2.00)", "3 UpdateItem 2.00 (1.00)"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("breakdown lacks %q:\n%s", want, out.String())
		}
	}
}

// TestRecorderTimesTheWire sends a call through a real SDK client to a server whose answer takes
// 20 ms to arrive: the call's span on the wire covers the answer's last byte, and the SDK still
// decodes the answer whole.
func TestRecorderTimesTheWire(t *testing.T) {
	const delay = 20 * time.Millisecond
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/x-amz-json-1.0")
		io.WriteString(w, `{"Item":{"PK":{"S":"a"},`)
		w.(http.Flusher).Flush()
		time.Sleep(delay)
		io.WriteString(w, `"SK":{"S":"b"}}}`)
	}))
	defer srv.Close()
	t.Setenv("AWS_REGION", "us-east-1")
	rec := &Recorder{}
	client := testkit.Client(t, srv.URL, rec.Register)
	out, err := client.GetItem(context.Background(), &dynamodb.GetItemInput{TableName: aws.String("t"),
		Key: map[string]types.AttributeValue{"PK": &types.AttributeValueMemberS{Value: "a"},
			"SK": &types.AttributeValueMemberS{Value: "b"}}})
	if err != nil {
		t.Fatal(err)
	}
	if sk, ok := out.Item["SK"].(*types.AttributeValueMemberS); !ok || sk.Value != "b" {
		t.Fatalf("decoded item %v", out.Item)
	}
	calls := rec.Calls()
	if len(calls) != 1 || len(calls[0].Wire) != 1 {
		t.Fatalf("calls %+v, want one with one exchange", calls)
	}
	c, wire := calls[0], calls[0].Wire[0]
	if wire.End.Sub(wire.Start) < delay {
		t.Errorf("on the wire %v, want at least the answer's %v", wire.End.Sub(wire.Start), delay)
	}
	if wire.Start.Before(c.Start) || wire.End.After(c.End) || c.SDK() < 0 {
		t.Errorf("exchange %v–%v outside its call %v–%v", wire.Start, wire.End, c.Start, c.End)
	}
}
