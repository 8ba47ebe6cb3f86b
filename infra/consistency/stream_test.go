package consistency_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/reportingplatform/api/functions/mail"
)

// TestMailStream holds template.yaml's side of the invitation e-mail's delivery (SPEC §9) to the code's:
// the event source mapping on the table's stream has a bounded retry, bisects, reports single records
// (the handler answers batchItemFailures), sends what it gives up on to a queue that an alarm watches,
// and filters on what the handler sends for; MailFunction's Timeout holds a batch's wait for the saving
// request (mail.Window), which outlasts the API functions' Timeout; OutcomeOpen has its alarm.
func TestMailStream(t *testing.T) {
	var tpl struct {
		Globals struct {
			Function struct {
				Timeout int `yaml:"Timeout"`
			} `yaml:"Function"`
		} `yaml:"Globals"`
		Resources map[string]struct {
			Type       string         `yaml:"Type"`
			Properties map[string]any `yaml:"Properties"`
		} `yaml:"Resources"`
	}
	decodeTemplate(t, &tpl)
	esm := tpl.Resources["MailStream"]
	p := esm.Properties
	if esm.Type != "AWS::Lambda::EventSourceMapping" {
		t.Fatalf("MailStream is a %q, want AWS::Lambda::EventSourceMapping", esm.Type)
	}
	retries, _ := p["MaximumRetryAttempts"].(int)
	batch, _ := p["BatchSize"].(int)
	if retries < 1 || retries > 10000 || p["BisectBatchOnFunctionError"] != true ||
		!equalJSON(t, p["FunctionResponseTypes"], `["ReportBatchItemFailures"]`) ||
		!equalJSON(t, p["DestinationConfig"], `{"OnFailure": {"Destination": "MailFailures.Arn"}}`) || batch < 1 {
		t.Errorf("MailStream %v: want a bounded retry, bisection, batch item failures and MailFailures on failure", p)
	}
	filters, _ := p["FilterCriteria"].(map[string]any)["Filters"].([]any)
	var pattern any
	if len(filters) == 1 {
		raw, _ := filters[0].(map[string]any)["Pattern"].(string)
		if err := json.Unmarshal([]byte(raw), &pattern); err != nil {
			t.Fatalf("MailStream's filter: %v", err)
		}
	}
	if !equalJSON(t, pattern, `{"eventName": ["INSERT", "MODIFY"], "dynamodb": {"Keys": {"SK": {"S": ["INVITATION"]}},
		"NewImage": {"email_sent": {"BOOL": [false]}, "status": {"N": ["0"]}}}}`) {
		t.Errorf("MailStream's filter %v: want the saves of pending invitations whose e-mail is not sent", pattern)
	}
	alarm := tpl.Resources["MailFailuresAlarm"].Properties
	if alarm["Namespace"] != "AWS/SQS" || !equalJSON(t, alarm["Dimensions"],
		`[{"Name": "QueueName", "Value": "MailFailures.QueueName"}]`) || alarm["Threshold"] != 1 {
		t.Errorf("MailFailuresAlarm %v: want one message of MailFailures to fire it", alarm)
	}
	open := tpl.Resources["OutcomeOpenAlarm"].Properties
	if open["Namespace"] != "ReportingPlatform" || open["MetricName"] != "OutcomeOpen" || open["Statistic"] != "Sum" ||
		open["Period"] != 300 || open["Threshold"] != 1 || open["Dimensions"] != nil {
		t.Errorf("OutcomeOpenAlarm %v: want Sum ≥ 1 over 5 minutes of ReportingPlatform's OutcomeOpen", open)
	}

	api := time.Duration(tpl.Globals.Function.Timeout) * time.Second
	if mail.Window < api+5*time.Second {
		t.Errorf("mail.Window %v: want the API functions' Timeout %v and a margin for a queued write", mail.Window, api)
	}
	timeout, _ := tpl.Resources["MailFunction"].Properties["Timeout"].(int)
	// A batch waits at most Window for its youngest save; then each record takes a read, SES's one
	// second and a write (recordBudget).
	if need := mail.Window + time.Duration(batch)*5*time.Second; time.Duration(timeout)*time.Second < need {
		t.Errorf("MailFunction's Timeout %d s: a batch of %d may need %v", timeout, batch, need)
	}
}

// equalJSON reports whether v (decoded from YAML, its tags dropped) is the JSON want.
func equalJSON(t *testing.T, v any, want string) bool {
	t.Helper()
	got, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var a, b any
	if err := json.Unmarshal(got, &a); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(want), &b); err != nil {
		t.Fatal(err)
	}
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	return string(ja) == string(jb)
}
