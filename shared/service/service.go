// Package service builds what every function's main needs, once per process (a Lambda cold start): the
// configuration, the logger and the DynamoDB store, and what serves the handler they build with them.
// Handlers never see it; mains pass its parts in.
package service

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"time"

	"github.com/aws/aws-lambda-go/lambda"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/awslabs/aws-lambda-go-api-proxy/httpadapter"
	"github.com/reportingplatform/api/shared/config"
	"github.com/reportingplatform/api/shared/dynamo"
	"github.com/reportingplatform/api/shared/httpapi"
	"github.com/reportingplatform/api/shared/metrics"
)

// Env is the wired process.
type Env struct {
	Config  config.Config
	Log     *slog.Logger
	Metrics *metrics.Recorder
	Client  *dynamodb.Client
	Store   *dynamo.Store
	Now     func() time.Time
}

// Load reads the environment and connects the store. optFns reach the DynamoDB client (tests add a
// call-counting middleware there).
func Load(ctx context.Context, optFns ...func(*dynamodb.Options)) (Env, error) {
	cfg, err := config.FromEnv()
	if err != nil {
		return Env{}, err
	}
	client, err := dynamo.NewClient(ctx, cfg.DynamoDBEndpoint, optFns...)
	if err != nil {
		return Env{}, fmt.Errorf("dynamodb client: %w", err)
	}
	// EMF lines go to standard output with the logs: Lambda sends both to CloudWatch Logs.
	rec := metrics.New(os.Stdout, os.Getenv("AWS_LAMBDA_FUNCTION_NAME"))
	store := dynamo.New(client, cfg.TableName)
	store.SetMetrics(rec)
	return Env{
		Config:  cfg,
		Log:     httpapi.NewLogger(os.Stdout, cfg.LogFormat),
		Metrics: rec,
		Client:  client,
		Store:   store,
		Now:     time.Now,
	}, nil
}

// MustLoad is Load for a Lambda main: a function that cannot read its settings must not start.
func MustLoad() Env { return Must(Load(context.Background())) }

// Must is v of a Lambda main's start-up step, or, when it failed, the end of the process: a function
// that cannot set itself up must not start, and says why in its log.
func Must[T any](v T, err error) T {
	if err != nil {
		slog.Error("start-up failed", "error", err.Error())
		os.Exit(1)
	}
	return v
}

// Serve answers the function's API Gateway events with h, which lets browsers on the configured
// origins call it (CORS). It returns only when the Lambda runtime stops the process.
func (env Env) Serve(h *httpapi.Router) {
	h.AllowOrigins(env.Config.CORSAllowedOrigins)
	h.SetMetrics(env.Metrics)
	lambda.Start(httpadapter.New(h).ProxyWithContext)
}
