package wiring

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/google/uuid"
	"github.com/reportingplatform/api/functions/expiries"
	"github.com/reportingplatform/api/shared/dynamo"
	"gopkg.in/yaml.v3"
)

// Scheduled returns the handler of each function EventBridge runs on a schedule, by its template.yaml
// logical id, wired as its Lambda main wires it.
func Scheduled(store *dynamo.Store, log *slog.Logger, now func() time.Time) map[string]*expiries.Handler {
	return map[string]*expiries.Handler{"ExpiriesFunction": expiries.New(store, log, now)}
}

// Schedule is a Schedule event of template.yaml: which function EventBridge runs, and how often.
type Schedule struct {
	Function   string
	Expression string // as template.yaml writes it, "rate(5 minutes)"
	Every      time.Duration
}

// LoadSchedules reads the Schedule events of template.yaml's functions, sorted by function. Only
// rate expressions are understood: make run runs each function at that rate, from its start.
func LoadSchedules(templatePath string) ([]Schedule, error) {
	raw, err := os.ReadFile(templatePath)
	if err != nil {
		return nil, fmt.Errorf("load schedules: %w", err)
	}
	var tpl struct {
		Resources map[string]struct {
			Type       string `yaml:"Type"`
			Properties struct {
				Events map[string]struct {
					Type       string `yaml:"Type"`
					Properties struct {
						Schedule yaml.Node `yaml:"Schedule"`
					} `yaml:"Properties"`
				} `yaml:"Events"`
			} `yaml:"Properties"`
		} `yaml:"Resources"`
	}
	if err := yaml.Unmarshal(raw, &tpl); err != nil {
		return nil, fmt.Errorf("load schedules: parse %s: %w", templatePath, err)
	}
	var out []Schedule
	for id, res := range tpl.Resources {
		if res.Type != "AWS::Serverless::Function" {
			continue
		}
		for name, ev := range res.Properties.Events {
			if ev.Type != "Schedule" {
				continue
			}
			n := ev.Properties.Schedule
			if n.Kind != yaml.ScalarNode || n.Tag != "!!str" {
				return nil, fmt.Errorf("load schedules: %s's event %s: Schedule is not a plain string", id, name)
			}
			every, err := rate(n.Value)
			if err != nil {
				return nil, fmt.Errorf("load schedules: %s's event %s: %w", id, name, err)
			}
			out = append(out, Schedule{Function: id, Expression: n.Value, Every: every})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Function < out[j].Function })
	return out, nil
}

var rateExpr = regexp.MustCompile(`^rate\(([1-9][0-9]*) (minute|minutes|hour|hours|day|days)\)$`)

// rate reads an EventBridge rate expression, "rate(5 minutes)".
func rate(expr string) (time.Duration, error) {
	m := rateExpr.FindStringSubmatch(expr)
	if m == nil {
		return 0, fmt.Errorf("schedule %q is not a rate expression, rate(N minutes|hours|days)", expr)
	}
	n, err := strconv.Atoi(m[1])
	if err != nil {
		return 0, fmt.Errorf("schedule %q: %w", expr, err)
	}
	unit := map[string]time.Duration{"minute": time.Minute, "hour": time.Hour,
		"day": 24 * time.Hour}[strings.TrimSuffix(m[2], "s")]
	return time.Duration(n) * unit, nil
}

// ScheduledEvent is the event EventBridge sends a function its rule runs at at: a Scheduled Event.
func ScheduledEvent(function string, at time.Time) events.EventBridgeEvent {
	return events.EventBridgeEvent{
		Version: "0", ID: uuid.NewString(), DetailType: "Scheduled Event", Source: "aws.events",
		AccountID: "123456789012", Time: at.UTC().Truncate(time.Second), Region: "us-east-1",
		Resources: []string{"arn:aws:events:us-east-1:123456789012:rule/" + function + "Schedule"},
		Detail:    json.RawMessage(`{}`),
	}
}
