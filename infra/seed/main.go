// Command seed loads a fixture (SPEC §7) into the table: `make seed FILE=…`, or
// `go run ./infra/seed [-target aws] FILE`.
//
// The target decides where it writes, and only the command line sets it (SPEC §7: writing to a
// deployed table "is never implied by an environment variable"):
//
//   - local, the default: the table `make run` serves, from the same environment: DYNAMODB_ENDPOINT
//     (DynamoDB Local at http://127.0.0.1:8000, make run's, when unset) and TABLE_NAME (or its
//     default). The table is created when it is missing.
//   - aws: the deployed table named by TABLE_NAME, which must be set, with the usual AWS credentials
//     and region. It prints the region and table before anything is written, and never creates the
//     table (it is the SAM stack's).
//
// It also reads INVITATION_TTL. A refused fixture exits with status 1, its problems on stderr, and
// nothing written.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsconfig "github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/reportingplatform/api/infra/fixture"
	"github.com/reportingplatform/api/shared/config"
	"github.com/reportingplatform/api/shared/dynamo"
)

// Targets of -target.
const (
	targetLocal = "local"
	targetAWS   = "aws"
)

// localEndpoint is the DynamoDB Local `make run` starts when DYNAMODB_ENDPOINT is unset
// (infra/scripts/run.sh), so that `make seed` and `make run` name the same table.
const localEndpoint = "http://127.0.0.1:8000"

func main() {
	target := flag.String("target", targetLocal,
		"where to write: local (make run's DynamoDB) or aws (the deployed table TABLE_NAME)")
	flag.Usage = func() {
		fmt.Fprintln(flag.CommandLine.Output(), "usage: seed [-target local|aws] FIXTURE.json")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() != 1 {
		flag.Usage()
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, flag.Arg(0), *target, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "seed:", err)
		stop()
		os.Exit(1)
	}
}

// destination is where a load writes.
type destination struct {
	target   string
	endpoint string // DynamoDB Local's URL; empty for AWS
	table    string
}

// chooseDestination decides where the target writes, from the environment (getenv). A target of aws
// needs the table named explicitly, and refuses a DYNAMODB_ENDPOINT, which names a DynamoDB Local.
func chooseDestination(target string, getenv func(string) string) (destination, error) {
	switch target {
	case targetLocal:
		d := destination{target: targetLocal, endpoint: getenv("DYNAMODB_ENDPOINT"), table: getenv("TABLE_NAME")}
		if d.endpoint == "" {
			d.endpoint = localEndpoint
		}
		if d.table == "" {
			d.table = config.DefaultTableName
		}
		return d, nil
	case targetAWS:
		if ep := getenv("DYNAMODB_ENDPOINT"); ep != "" {
			return destination{}, fmt.Errorf("TARGET=aws writes to a table in AWS, but DYNAMODB_ENDPOINT=%s names a "+
				"DynamoDB Local: unset it, or leave TARGET out to load into that DynamoDB Local", ep)
		}
		table := getenv("TABLE_NAME")
		if table == "" {
			return destination{}, errors.New("TARGET=aws needs the deployed table named: make seed FILE=<path> " +
				"TARGET=aws TABLE_NAME=<the stack's TableName output>")
		}
		return destination{target: targetAWS, table: table}, nil
	}
	return destination{}, fmt.Errorf("TARGET=%q: want %s (the default, make run's DynamoDB) or %s", target,
		targetLocal, targetAWS)
}

// run loads the fixture at path into the target's table and prints what it did to out; for AWS, the
// region and table come first.
func run(ctx context.Context, path, target string, out io.Writer) error {
	dest, err := chooseDestination(target, os.Getenv)
	if err != nil {
		return err
	}
	cfg, err := config.FromEnv()
	if err != nil {
		return err
	}
	client, err := newClient(ctx, dest)
	if err != nil {
		return err
	}
	if dest.target == targetAWS {
		region := client.Options().Region
		if region == "" {
			return errors.New("TARGET=aws: no AWS region: set AWS_REGION (or a profile with a region)")
		}
		fmt.Fprintf(out, "writing to DynamoDB table %s in AWS region %s", dest.table, region)
		if ep := aws.ToString(client.Options().BaseEndpoint); ep != "" {
			// AWS_ENDPOINT_URL(_DYNAMODB) in the environment or the AWS config sends the SDK elsewhere.
			fmt.Fprintf(out, " through endpoint %s", ep)
		}
		fmt.Fprintln(out)
	} else {
		created, err := fixture.EnsureTable(ctx, client, dest.table)
		if err != nil {
			return fmt.Errorf("DynamoDB Local at %s: %w", dest.endpoint, err)
		}
		if created {
			fmt.Fprintf(out, "created table %s at %s\n", dest.table, dest.endpoint)
		}
	}
	file, err := fixture.ParseFile(path)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	m := startMeter(out, file.Entries())
	sum, err := fixture.LoadReporting(ctx, dynamo.New(client, dest.table), file, time.Now(), cfg.InvitationTTL, m.wrote)
	took := m.finish()
	if err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("%s: interrupted; what was written stays, and running the load again completes it: %w", path, err)
		}
		return fmt.Errorf("%s: %w", path, err)
	}
	n := file.Entries()
	fmt.Fprintf(out, "loaded %s into table %s: %d entries in %s (%.0f/s)\n%s", path, dest.table, n,
		took.Round(time.Millisecond), perSecond(n, took), sum)
	return nil
}

// newClient is the loader's bulk client (dynamo.NewBulkClient: long attempts, many retries with
// backoff, no request budget), for DynamoDB Local, or for AWS with the SDK's whole chain of region and
// credentials (environment, profiles, single sign-on), which the functions' own client leaves out
// (it reads Lambda's environment only).
func newClient(ctx context.Context, dest destination) (*dynamodb.Client, error) {
	if dest.target != targetAWS {
		return dynamo.NewLocalBulkClient(dest.endpoint)
	}
	cfg, err := awsconfig.LoadDefaultConfig(ctx)
	if err != nil {
		return nil, fmt.Errorf("load AWS config: %w", err)
	}
	return dynamo.NewBulkClient(cfg, ""), nil
}
