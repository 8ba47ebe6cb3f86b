package main

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/reportingplatform/api/infra/wiring"
	"github.com/reportingplatform/api/shared/metrics"
	"github.com/reportingplatform/api/shared/service"
)

// streamPoll is how often make run reads the stream; Lambda polls a shard several times a second, and
// the handler waits mail.Window for a save anyway.
const streamPoll = time.Second

// streams starts, for the function the table's stream invokes in AWS (MailFunction's event source
// mapping), a goroutine that reads DynamoDB Local's stream of the table as Lambda does and hands each
// batch to the function's handler, until ctx ends. Its metrics go to standard output, as in Lambda.
func streams(ctx context.Context, env service.Env) ([]string, error) {
	rec := metrics.New(os.Stdout, "MailFunction")
	handlers, err := wiring.Streamed(env.Store, env.Log, env.Config, rec, env.Now)
	if err != nil {
		return nil, err
	}
	client, err := wiring.NewStreamsClient(env.Config.DynamoDBEndpoint)
	if err != nil {
		return nil, err
	}
	var names []string
	for name, h := range handlers {
		r, err := wiring.NewStreamReader(ctx, env.Client, client, env.Config.TableName, h.Handle, env.Log)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		go r.Run(ctx, streamPoll)
		names = append(names, name)
	}
	return names, nil
}
