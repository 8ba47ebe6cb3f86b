package consistency_test

import (
	"log/slog"
	"maps"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/reportingplatform/api/infra/gateway"
	"github.com/reportingplatform/api/infra/wiring"
)

// TestSchedules holds SPEC §11's scheduled work together: every Schedule event of template.yaml names
// a function infra/wiring wires for make run (which runs it at the same rate), and such a function
// serves no route; SAM turns each into an EventBridge rule at that rate targeting the function, the
// one permission EventBridge has to invoke it (from that rule only), and no Lambda retry of a failed run.
func TestSchedules(t *testing.T) {
	t.Parallel()
	path, err := gateway.FindTemplate()
	if err != nil {
		t.Fatal(err)
	}
	schedules, err := wiring.LoadSchedules(path)
	if err != nil {
		t.Fatal(err)
	}
	var scheduled []string
	for _, s := range schedules {
		scheduled = append(scheduled, s.Function)
	}
	wired := slices.Sorted(maps.Keys(wiring.Scheduled(nil, slog.New(slog.DiscardHandler), time.Now)))
	if !slices.Equal(scheduled, wired) {
		t.Errorf("template.yaml schedules %v; infra/wiring wires %v", scheduled, wired)
	}
	for _, r := range templateRoutes(t) {
		if slices.Contains(scheduled, r.Function) {
			t.Errorf("%s runs on a schedule and also serves %s %s", r.Function, r.Method, r.Path)
		}
	}

	cfn := translated(t)
	rules := cfn.ofType("AWS::Events::Rule")
	if len(rules) != len(schedules) {
		t.Errorf("%d EventBridge rules for %d Schedule events", len(rules), len(schedules))
	}
	permissions := map[string]cfnResource{}
	for id, p := range cfn.ofType("AWS::Lambda::Permission") {
		if p.Properties["Principal"] == "events.amazonaws.com" {
			permissions[id] = p
		}
	}
	if len(permissions) != len(schedules) {
		t.Errorf("%d permissions for EventBridge for %d Schedule events", len(permissions), len(schedules))
	}
	for _, s := range schedules {
		ruleID := ""
		for id, r := range rules {
			targets, _ := r.Properties["Targets"].([]any)
			if len(targets) == 1 &&
				reflect.DeepEqual(targets[0].(map[string]any)["Arn"], want(t, `{"Fn::GetAtt": ["`+s.Function+`", "Arn"]}`)) {
				ruleID = id
				if r.Properties["ScheduleExpression"] != s.Expression || r.Properties["State"] == "DISABLED" {
					t.Errorf("%s: schedule %v, state %v; want %s, enabled", id, r.Properties["ScheduleExpression"],
						r.Properties["State"], s.Expression)
				}
			}
		}
		if ruleID == "" {
			t.Errorf("no EventBridge rule targets %s alone", s.Function)
			continue
		}
		allowed := false
		for _, p := range permissions {
			allowed = allowed || (reflect.DeepEqual(p.Properties["FunctionName"], ref(s.Function)) &&
				p.Properties["Action"] == "lambda:InvokeFunction" &&
				reflect.DeepEqual(p.Properties["SourceArn"], want(t, `{"Fn::GetAtt": ["`+ruleID+`", "Arn"]}`)))
		}
		if !allowed {
			t.Errorf("EventBridge may not invoke %s from %s", s.Function, ruleID)
		}
		cfg := cfn.Resources[s.Function+"EventInvokeConfig"]
		if cfg.Type != "AWS::Lambda::EventInvokeConfig" || cfg.Properties["MaximumRetryAttempts"] != 0.0 {
			t.Errorf("%s: %+v; want no Lambda retry of a failed run (the next run does its work)", s.Function, cfg)
		}
	}
}
