package wiring

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams/types"
	"github.com/reportingplatform/api/functions/mail"
	"github.com/reportingplatform/api/shared/awsenv"
	"github.com/reportingplatform/api/shared/config"
	"github.com/reportingplatform/api/shared/domain"
	sharedmail "github.com/reportingplatform/api/shared/mail"
	"github.com/reportingplatform/api/shared/metrics"
)

// StreamHandler is what Lambda invokes for a batch of a DynamoDB Stream's records.
type StreamHandler func(context.Context, events.DynamoDBEvent) (events.DynamoDBEventResponse, error)

// Streamed returns the handler of each function the table's stream invokes (an event source mapping of
// template.yaml), by its logical id, wired as its Lambda main wires it: the e-mail goes where cfg says
// (mail.FromConfig), its metrics to the log's output.
func Streamed(store domain.MailStore, log *slog.Logger, cfg config.Config, rec *metrics.Recorder,
	now func() time.Time) (map[string]*mail.Handler, error) {
	mailer, err := sharedmail.FromConfig(cfg, log, now)
	if err != nil {
		return nil, err
	}
	return map[string]*mail.Handler{"MailFunction": mail.New(store, mailer, log, rec, now)}, nil
}

// NewStreamsClient is a DynamoDB Streams client of DynamoDB Local at endpoint (the same port serves
// both APIs).
func NewStreamsClient(endpoint string) (*dynamodbstreams.Client, error) {
	cfg, err := awsenv.Config(true)
	if err != nil {
		return nil, fmt.Errorf("streams client: %w", err)
	}
	return dynamodbstreams.NewFromConfig(cfg, func(o *dynamodbstreams.Options) {
		o.BaseEndpoint = aws.String(endpoint)
	}), nil
}

// StreamReader reads a DynamoDB Local table's stream as Lambda's event source mapping reads the
// table's stream in AWS: each shard from its oldest record (TRIM_HORIZON), in order, in batches of at
// most BatchSize handed to Handle as the events.DynamoDBEvent Lambda sends. A batch answered with a
// failure (ReportBatchItemFailures) is read again from the failed record at the next Poll, at most
// MaxRetries times, then passed over as the event source mapping does after its on-failure destination
// took it. Not safe for concurrent Polls.
type StreamReader struct {
	streams    *dynamodbstreams.Client
	arn        string
	handle     StreamHandler
	log        *slog.Logger
	BatchSize  int32
	MaxRetries int

	shards map[string]*shardState
}

type shardState struct {
	iterator *string                      // the next GetRecords; nil once the shard is closed and read
	pending  []events.DynamoDBEventRecord // records read but not yet delivered (a failure's retry)
	retries  int
}

// NewStreamReader reads the stream of table (its latest, which DescribeTable names).
func NewStreamReader(ctx context.Context, db *dynamodb.Client, streams *dynamodbstreams.Client, table string,
	handle StreamHandler, log *slog.Logger) (*StreamReader, error) {
	out, err := db.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(table)})
	if err != nil {
		return nil, fmt.Errorf("stream of %s: %w", table, err)
	}
	arn := aws.ToString(out.Table.LatestStreamArn)
	if arn == "" {
		return nil, fmt.Errorf("table %s has no stream", table)
	}
	return &StreamReader{streams: streams, arn: arn, handle: handle, log: log, BatchSize: 10, MaxRetries: 10,
		shards: map[string]*shardState{}}, nil
}

// Poll reads every shard to its end once, handing each batch over, and returns how many records it
// handed over for the first time. A stream with nothing new returns 0: a caller that polls until then
// has seen every change made before it started.
func (r *StreamReader) Poll(ctx context.Context) (int, error) {
	if err := r.discover(ctx); err != nil {
		return 0, err
	}
	total := 0
	for id, sh := range r.shards {
		n, err := r.drain(ctx, id, sh)
		total += n
		if err != nil {
			return total, err
		}
	}
	return total, nil
}

// Run polls every interval until ctx ends, logging what fails (the next poll tries again).
func (r *StreamReader) Run(ctx context.Context, every time.Duration) {
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		if _, err := r.Poll(ctx); err != nil && ctx.Err() == nil {
			r.log.Warn("stream poll", "error", err.Error())
		}
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

// discover adds the shards the stream has that the reader does not know yet, each from its oldest record.
func (r *StreamReader) discover(ctx context.Context) error {
	var start *string
	for {
		out, err := r.streams.DescribeStream(ctx, &dynamodbstreams.DescribeStreamInput{
			StreamArn: aws.String(r.arn), ExclusiveStartShardId: start})
		if err != nil {
			return fmt.Errorf("describe stream: %w", err)
		}
		for _, s := range out.StreamDescription.Shards {
			id := aws.ToString(s.ShardId)
			if _, known := r.shards[id]; known {
				continue
			}
			it, err := r.streams.GetShardIterator(ctx, &dynamodbstreams.GetShardIteratorInput{
				StreamArn: aws.String(r.arn), ShardId: s.ShardId, ShardIteratorType: types.ShardIteratorTypeTrimHorizon})
			if err != nil {
				return fmt.Errorf("shard iterator %s: %w", id, err)
			}
			r.shards[id] = &shardState{iterator: it.ShardIterator}
		}
		start = out.StreamDescription.LastEvaluatedShardId
		if start == nil {
			return nil
		}
	}
}

// drain hands sh's pending records over, then reads it until GetRecords has nothing more.
func (r *StreamReader) drain(ctx context.Context, id string, sh *shardState) (int, error) {
	fresh := 0
	for {
		if len(sh.pending) == 0 {
			if sh.iterator == nil {
				return fresh, nil
			}
			out, err := r.streams.GetRecords(ctx, &dynamodbstreams.GetRecordsInput{
				ShardIterator: sh.iterator, Limit: aws.Int32(r.BatchSize)})
			if err != nil {
				var expired *types.ExpiredIteratorException
				if errors.As(err, &expired) {
					delete(r.shards, id) // found again, from its oldest record, by the next discover
				}
				return fresh, fmt.Errorf("get records %s: %w", id, err)
			}
			sh.iterator = out.NextShardIterator
			if len(out.Records) == 0 {
				return fresh, nil
			}
			for _, rec := range out.Records {
				sh.pending = append(sh.pending, lambdaRecord(r.arn, rec))
			}
			fresh += len(out.Records)
		}
		if !r.deliver(ctx, sh) {
			return fresh, nil // retried at the next poll
		}
	}
}

// deliver hands sh's pending records to the handler as one batch. It reports false when a record failed
// and is to be retried later; the records before it are delivered.
func (r *StreamReader) deliver(ctx context.Context, sh *shardState) bool {
	resp, err := r.handle(ctx, events.DynamoDBEvent{Records: sh.pending})
	failedAt := -1
	if err != nil {
		failedAt = 0 // the whole batch failed, as a function error does in Lambda
	}
	for _, f := range resp.BatchItemFailures {
		for i, rec := range sh.pending {
			if rec.Change.SequenceNumber == f.ItemIdentifier && (failedAt < 0 || i < failedAt) {
				failedAt = i
			}
		}
	}
	if failedAt < 0 {
		sh.pending, sh.retries = nil, 0
		return true
	}
	sh.pending = sh.pending[failedAt:]
	if sh.retries++; sh.retries > r.MaxRetries {
		r.log.Error("stream record given up after its retries", "sequence_number",
			sh.pending[0].Change.SequenceNumber, "retries", r.MaxRetries)
		sh.pending, sh.retries = sh.pending[1:], 0
		return true
	}
	return false
}

// lambdaRecord is rec as Lambda's event source mapping hands it to a function.
func lambdaRecord(streamARN string, rec types.Record) events.DynamoDBEventRecord {
	d := rec.Dynamodb
	out := events.DynamoDBEventRecord{
		EventID: aws.ToString(rec.EventID), EventName: string(rec.EventName), EventSource: "aws:dynamodb",
		EventVersion: aws.ToString(rec.EventVersion), AWSRegion: aws.ToString(rec.AwsRegion),
		EventSourceArn: streamARN,
	}
	if d == nil {
		return out
	}
	out.Change = events.DynamoDBStreamRecord{
		Keys: lambdaImage(d.Keys), NewImage: lambdaImage(d.NewImage), OldImage: lambdaImage(d.OldImage),
		SequenceNumber: aws.ToString(d.SequenceNumber), SizeBytes: aws.ToInt64(d.SizeBytes),
		StreamViewType: string(d.StreamViewType),
	}
	if d.ApproximateCreationDateTime != nil {
		out.Change.ApproximateCreationDateTime = events.SecondsEpochTime{Time: *d.ApproximateCreationDateTime}
	}
	return out
}

func lambdaImage(img map[string]types.AttributeValue) map[string]events.DynamoDBAttributeValue {
	if img == nil {
		return nil
	}
	out := make(map[string]events.DynamoDBAttributeValue, len(img))
	for k, v := range img {
		out[k] = lambdaValue(v)
	}
	return out
}

func lambdaValue(v types.AttributeValue) events.DynamoDBAttributeValue {
	switch v := v.(type) {
	case *types.AttributeValueMemberS:
		return events.NewStringAttribute(v.Value)
	case *types.AttributeValueMemberN:
		return events.NewNumberAttribute(v.Value)
	case *types.AttributeValueMemberBOOL:
		return events.NewBooleanAttribute(v.Value)
	case *types.AttributeValueMemberNULL:
		return events.NewNullAttribute()
	case *types.AttributeValueMemberB:
		return events.NewBinaryAttribute(v.Value)
	case *types.AttributeValueMemberSS:
		return events.NewStringSetAttribute(v.Value)
	case *types.AttributeValueMemberNS:
		return events.NewNumberSetAttribute(v.Value)
	case *types.AttributeValueMemberBS:
		return events.NewBinarySetAttribute(v.Value)
	case *types.AttributeValueMemberL:
		list := make([]events.DynamoDBAttributeValue, len(v.Value))
		for i, e := range v.Value {
			list[i] = lambdaValue(e)
		}
		return events.NewListAttribute(list)
	case *types.AttributeValueMemberM:
		return events.NewMapAttribute(lambdaImage(v.Value))
	}
	return events.NewNullAttribute() // a kind the SDK adds later: nothing a handler here reads
}
