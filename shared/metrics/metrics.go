// Package metrics counts what operators watch, as CloudWatch embedded metric format (EMF): one JSON line
// per event on the function's standard output, which Lambda sends to CloudWatch Logs and CloudWatch turns
// into metrics without an API call in the request's path (no PutMetricData, no extra latency, no IAM).
// Locally the lines go to the same output as the logs.
package metrics

import (
	"encoding/json"
	"io"
	"sync"
	"time"
)

// Namespace holds every metric of the API; template.yaml's alarms name it.
const Namespace = "ReportingPlatform"

// The metrics. An alarm in template.yaml watches OutcomeOpen.
const (
	// Unavailable is a 503 answered, with the dimension Cause (see the Cause constants).
	Unavailable = "Unavailable"
	// OutcomeSettled is a write whose answer was lost and whose outcome the store settled before answering.
	OutcomeSettled = "OutcomeSettled"
	// OutcomeOpen is a write whose outcome stayed unknown: its client got the "may have been saved" 503.
	OutcomeOpen = "OutcomeOpen"
	// EmailSentLate is an invitation e-mail sent outside the request that saved its invitation.
	EmailSentLate = "EmailSentLate"
	// EmailFailed is an attempt to send an invitation e-mail that SES refused or did not answer.
	EmailFailed = "EmailFailed"
)

// Causes of Unavailable.
const (
	CauseStore    = "store"    // DynamoDB did not answer in time, throttled, or failed
	CauseConflict = "conflict" // a write that kept meeting concurrent writes
	CauseOpen     = "open"     // a write whose outcome is unknown
)

// Recorder writes EMF lines. The zero of *Recorder (nil) records nothing, so code under test that is not
// given one needs no check.
type Recorder struct {
	mu       sync.Mutex
	w        io.Writer
	function string
	now      func() time.Time
}

// New returns a Recorder writing to w, naming function (Lambda's AWS_LAMBDA_FUNCTION_NAME) in each line.
func New(w io.Writer, function string) *Recorder {
	return &Recorder{w: w, function: function, now: time.Now}
}

// Count records one occurrence of metric. cause, when not empty, is its Cause dimension.
func (r *Recorder) Count(metric, cause string) {
	if r == nil {
		return
	}
	dims := [][]string{{}}
	line := map[string]any{metric: 1, "function": r.function}
	if cause != "" {
		dims = [][]string{{"Cause"}}
		line["Cause"] = cause
	}
	line["_aws"] = map[string]any{
		"Timestamp": r.now().UnixMilli(),
		"CloudWatchMetrics": []any{map[string]any{
			"Namespace":  Namespace,
			"Dimensions": dims,
			"Metrics":    []any{map[string]string{"Name": metric, "Unit": "Count"}},
		}},
	}
	b, err := json.Marshal(line)
	if err != nil {
		return // only strings and numbers above: cannot happen
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	_, _ = r.w.Write(append(b, '\n'))
}
