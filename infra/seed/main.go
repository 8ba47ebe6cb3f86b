// Command seed loads a fixture (SPEC §7) into the table: `go run ./infra/seed FILE`, or `make seed
// FILE=…`. It reads TABLE_NAME, DYNAMODB_ENDPOINT and INVITATION_TTL from the environment. With
// DYNAMODB_ENDPOINT set (DynamoDB Local) it first creates the table when it is missing; in AWS the
// table is the SAM stack's and is never created here. A refused fixture exits with status 1, its
// problems on stderr, and nothing written.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"time"

	"github.com/reportingplatform/api/infra/fixture"
	"github.com/reportingplatform/api/shared/config"
	"github.com/reportingplatform/api/shared/dynamo"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: seed FIXTURE.json")
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Args[1], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "seed:", err)
		stop()
		os.Exit(1)
	}
}

// run loads the fixture at path and prints what it did to out.
func run(ctx context.Context, path string, out io.Writer) error {
	cfg, err := config.FromEnv()
	if err != nil {
		return err
	}
	client, err := dynamo.NewClient(ctx, cfg.DynamoDBEndpoint)
	if err != nil {
		return err
	}
	if cfg.DynamoDBEndpoint != "" {
		created, err := fixture.EnsureTable(ctx, client, cfg.TableName)
		if err != nil {
			return err
		}
		if created {
			fmt.Fprintf(out, "created table %s at %s\n", cfg.TableName, cfg.DynamoDBEndpoint)
		}
	}
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("open fixture: %w", err)
	}
	defer f.Close()
	file, err := fixture.Parse(f)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	sum, err := fixture.Load(ctx, dynamo.New(client, cfg.TableName), file, time.Now(), cfg.InvitationTTL)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	fmt.Fprintf(out, "loaded %s into table %s\n%s", path, cfg.TableName, sum)
	return nil
}
