// Package expiries is ExpiriesFunction of template.yaml: on EventBridge's schedule it records as
// expired (status 3) the pending invitations whose expiry_date has passed, so that the lists filtered
// by status 0 or 3 find few unrecorded expiries to read beside their counts (SPEC §5, §11).
package expiries

import (
	"context"
	"log/slog"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-lambda-go/lambdacontext"
	"github.com/reportingplatform/api/shared/domain"
)

// RunBudget is how long one run may wait for DynamoDB in all: the client's own attempt timeouts bound
// each call, this bounds the run's many calls together, so nothing DynamoDB does hangs it. What a run
// cut short leaves is the next run's (each expiry is recorded in a write of its own). It stays below
// the function's Lambda timeout (TestTimeLimitsNest).
const RunBudget = 8 * time.Second

// answerMargin is kept free before the Lambda invocation's own deadline, to log the run's outcome.
const answerMargin = 200 * time.Millisecond

// Result is what a run answers: how many expiries it recorded. EventBridge does not read it; `sam local
// invoke` and the tests do.
type Result struct {
	Recorded int `json:"recorded"`
}

// Handler is the function's handler: one run per scheduled event.
type Handler struct {
	store  domain.ExpiryStore
	log    *slog.Logger
	clock  domain.Clock
	budget time.Duration
}

// New returns the handler, recording what is past its expiry at now().
func New(store domain.ExpiryStore, log *slog.Logger, now func() time.Time) *Handler {
	return &Handler{store: store, log: log, clock: domain.Clock(now), budget: RunBudget}
}

// SetBudget replaces RunBudget for this handler (the tests' hung DynamoDB); a deployment keeps it.
func (h *Handler) SetBudget(d time.Duration) { h.budget = d }

// Handle records the expiries past the clock's now and logs one line with how many it recorded. An
// error (the store unavailable, or the budget ended first) fails the invocation, which the function's
// errors alarm reports; the expiries it had recorded stay recorded.
func (h *Handler) Handle(ctx context.Context, ev events.EventBridgeEvent) (Result, error) {
	start := time.Now()
	log := h.log.With("request_id", requestID(ctx, ev), "event_id", ev.ID)
	ctx, cancel := context.WithDeadline(ctx, h.deadline(ctx, start))
	defer cancel()
	n, err := h.store.RecordExpiries(ctx, h.clock.Now())
	attrs := []any{"recorded", n, "duration_ms", time.Since(start).Milliseconds()}
	if err != nil {
		log.Error("expiries", append(attrs, "error", err.Error())...)
		return Result{Recorded: n}, err
	}
	log.Info("expiries", attrs...)
	return Result{Recorded: n}, nil
}

// deadline is the end of the run's budget, or earlier when the Lambda invocation ends sooner.
func (h *Handler) deadline(ctx context.Context, start time.Time) time.Time {
	d := start.Add(h.budget)
	if lambda, ok := ctx.Deadline(); ok && lambda.Add(-answerMargin).Before(d) {
		d = lambda.Add(-answerMargin)
	}
	return d
}

// requestID is the Lambda invocation's id, as the other functions log theirs; the event's own id
// where there is no invocation (make run's schedule).
func requestID(ctx context.Context, ev events.EventBridgeEvent) string {
	if lc, ok := lambdacontext.FromContext(ctx); ok && lc.AwsRequestID != "" {
		return lc.AwsRequestID
	}
	return ev.ID
}
