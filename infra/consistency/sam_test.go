package consistency_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/reportingplatform/api/infra/gateway"
	"github.com/reportingplatform/api/shared/dynamo"
)

// cfnTemplate is a CloudFormation template as encoding/json decodes it: intrinsic functions are
// one-key objects ({"Ref": "X"}, {"Fn::Sub": ...}), compared with want() below.
type cfnTemplate struct {
	Parameters map[string]any         `json:"Parameters"`
	Conditions map[string]any         `json:"Conditions"`
	Resources  map[string]cfnResource `json:"Resources"`
}

type cfnResource struct {
	Type                string         `json:"Type"`
	DeletionPolicy      string         `json:"DeletionPolicy"`
	UpdateReplacePolicy string         `json:"UpdateReplacePolicy"`
	Properties          map[string]any `json:"Properties"`
	Condition           string         `json:"Condition"`
	DependsOn           any            `json:"DependsOn"`
	Metadata            map[string]any `json:"Metadata"`
}

var translation struct {
	once sync.Once
	out  []byte
	skip string
	err  error
}

// translatedJSON is template.yaml as the SAM transform turns it into CloudFormation, by
// infra/scripts/sam-translate.py (Python's samtranslator, the translator CloudFormation, the SAM CLI
// and cfn-lint run). It is translated once per test binary; tests skip where Python or samtranslator
// is missing, and fail there under CI=true (skipUnlessCI).
func translatedJSON(t *testing.T) []byte {
	t.Helper()
	translation.once.Do(func() {
		python, err := exec.LookPath("python3")
		if err != nil {
			translation.skip = "python3 is not on PATH; the SAM translator tests need it with samtranslator"
			return
		}
		_, root := loadTemplate(t)
		cmd := exec.Command(python, filepath.Join("infra", "scripts", "sam-translate.py"), "template.yaml")
		cmd.Dir = root
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		translation.out, err = cmd.Output()
		var exit *exec.ExitError
		switch {
		case errors.As(err, &exit) && exit.ExitCode() == 3:
			translation.skip = "Python's samtranslator is missing, so SAM's translation is not checked here " +
				"(pip install aws-sam-translator, or cfn-lint, which brings it): " +
				strings.TrimSpace(stderr.String())
		case err != nil:
			translation.err = fmt.Errorf("sam-translate.py: %w\n%s", err, stderr.String())
		}
	})
	if translation.skip != "" {
		skipUnlessCI(t, translation.skip)
	}
	if translation.err != nil {
		t.Fatal(translation.err)
	}
	return translation.out
}

func translated(t *testing.T) cfnTemplate {
	t.Helper()
	var out cfnTemplate
	if err := json.Unmarshal(translatedJSON(t), &out); err != nil {
		t.Fatalf("decode the translated template: %v", err)
	}
	return out
}

// want decodes a JSON literal, so that expected values are written as CloudFormation writes them.
func want(t *testing.T, literal string) any {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(literal), &v); err != nil {
		t.Fatalf("bad JSON literal in the test: %v: %s", err, literal)
	}
	return v
}

func ref(name string) any { return map[string]any{"Ref": name} }

func (c cfnTemplate) ofType(typ string) map[string]cfnResource {
	out := map[string]cfnResource{}
	for id, r := range c.Resources {
		if r.Type == typ {
			out[id] = r
		}
	}
	return out
}

// TestSAMTranslation holds what the SAM transform generates from template.yaml to what the template
// means, in the resources CloudFormation will actually create.
func TestSAMTranslation(t *testing.T) {
	t.Parallel()
	cfn := translated(t)
	routes := templateRoutes(t)

	t.Run("one API, one deployment, one stage", func(t *testing.T) {
		apis := cfn.ofType("AWS::ApiGateway::RestApi")
		deployments := cfn.ofType("AWS::ApiGateway::Deployment")
		stages := cfn.ofType("AWS::ApiGateway::Stage")
		if len(apis) != 1 || len(deployments) != 1 || len(stages) != 1 {
			t.Fatalf("%d RestApis, %d Deployments, %d Stages; want one each", len(apis), len(deployments), len(stages))
		}
		for id, d := range deployments {
			// A Deployment's own StageName is how SAM adds the extra stage named "Stage" when
			// OpenApiVersion is not set.
			if name, ok := d.Properties["StageName"]; ok {
				t.Errorf("Deployment %s creates a stage of its own, %v: set the Api's OpenApiVersion", id, name)
			}
			for _, s := range stages {
				if !reflect.DeepEqual(s.Properties["DeploymentId"], ref(id)) {
					t.Errorf("the stage deploys %v, not %s", s.Properties["DeploymentId"], id)
				}
			}
		}
		for _, s := range stages {
			if !reflect.DeepEqual(s.Properties["StageName"], ref("StageName")) {
				t.Errorf("the stage is named %v, want the StageName parameter", s.Properties["StageName"])
			}
			if got := s.Properties["TracingEnabled"]; !reflect.DeepEqual(got,
				want(t, `{"Fn::If": ["TracingActive", true, false]}`)) {
				t.Errorf("stage TracingEnabled %v, want it to follow the Tracing parameter", got)
			}
			checkAccessLogs(t, cfn, s)
		}
	})

	t.Run("every route of every function, and nothing else", func(t *testing.T) {
		body, _ := cfn.Resources["Api"].Properties["Body"].(map[string]any)
		paths, _ := body["paths"].(map[string]any)
		served := map[string]string{} // "path method" → function, from the body
		for path, item := range paths {
			methods, _ := item.(map[string]any)
			for method, op := range methods {
				integration, _ := op.(map[string]any)["x-amazon-apigateway-integration"].(map[string]any)
				uri, _ := integration["uri"].(map[string]any)["Fn::Sub"].(string)
				fn := regexp.MustCompile(`/functions/\$\{(\w+)\.Arn\}/invocations$`).FindStringSubmatch(uri)
				if integration["type"] != "aws_proxy" || integration["httpMethod"] != "POST" || fn == nil {
					t.Errorf("%s %s: integration %v, want a Lambda proxy integration", method, path, integration)
					continue
				}
				served[path+" "+method] = fn[1]
			}
		}
		declared := map[string]string{}
		for _, r := range routes {
			method := strings.ToLower(r.Method)
			if r.Method == gateway.MethodAny {
				method = "x-amazon-apigateway-any-method"
			}
			declared[r.Path+" "+method] = r.Function
		}
		if !reflect.DeepEqual(served, declared) {
			t.Errorf("the REST API serves %v;\ntemplate.yaml's events declare %v", served, declared)
		}
	})

	t.Run("API Gateway may invoke each function for its own paths only", func(t *testing.T) {
		got := map[string]bool{}
		for id, p := range cfn.ofType("AWS::Lambda::Permission") {
			if p.Properties["Principal"] == "events.amazonaws.com" {
				continue // a schedule's: TestSchedules
			}
			fn, _ := p.Properties["FunctionName"].(map[string]any)["Ref"].(string)
			sub, _ := p.Properties["SourceArn"].(map[string]any)["Fn::Sub"].([]any)
			if len(sub) != 2 || p.Properties["Principal"] != "apigateway.amazonaws.com" ||
				p.Properties["Action"] != "lambda:InvokeFunction" {
				t.Errorf("%s: %v", id, p.Properties)
				continue
			}
			arn, _ := sub[0].(string)
			vars, _ := sub[1].(map[string]any)
			if !reflect.DeepEqual(vars["__ApiId__"], ref("Api")) {
				t.Errorf("%s: invoked from API %v, want Api", id, vars["__ApiId__"])
			}
			got[fn+" "+arn] = true
		}
		wantArns := map[string]bool{}
		for _, r := range routes {
			// SAM writes each event's path with its {parameters} as wildcards, any stage, any method
			// for ANY; API Gateway names the resource path (no trailing slash) in the source ARN.
			path := regexp.MustCompile(`\{[^}]+\}`).ReplaceAllString(r.Path, "*")
			method := r.Method
			if method == gateway.MethodAny {
				method = "*"
			}
			wantArns[r.Function+" arn:aws:execute-api:${AWS::Region}:${AWS::AccountId}:${__ApiId__}/${__Stage__}/"+
				method+path] = true
		}
		if !reflect.DeepEqual(got, wantArns) {
			t.Errorf("invoke permissions %v;\nwant %v", keys(got), keys(wantArns))
		}
	})

	t.Run("unknown paths answer DRF's 404, gateway errors DRF's 500 body", func(t *testing.T) {
		body, _ := cfn.Resources["Api"].Properties["Body"].(map[string]any)
		got := body["x-amazon-apigateway-gateway-responses"]
		// The same bodies as infra/gateway's notFoundBody and internalErrorBody, which the local
		// server and the tests answer with.
		wantResponses := want(t, `{
			"MISSING_AUTHENTICATION_TOKEN": {
				"statusCode": "404",
				"responseParameters": {"gatewayresponse.header.X-Request-Id": "context.requestId"},
				"responseTemplates": {"application/json": "{\"detail\": \"Not found.\"}"}
			},
			"DEFAULT_5XX": {
				"responseParameters": {"gatewayresponse.header.X-Request-Id": "context.requestId"},
				"responseTemplates": {"application/json": "{\"detail\": \"A server error occurred.\"}"}
			}
		}`)
		if !reflect.DeepEqual(got, wantResponses) {
			t.Errorf("gateway responses %v, want %v", got, wantResponses)
		}
	})

	t.Run("each role grants what the least-privilege test holds, and no more", func(t *testing.T) {
		policies := templatePolicies(t)
		functions := cfn.ofType("AWS::Lambda::Function")
		if len(functions) != len(policies) {
			t.Errorf("%d Lambda functions, %d functions with policies in template.yaml", len(functions), len(policies))
		}
		for id, fn := range functions {
			role, _ := fn.Properties["Role"].(map[string]any)["Fn::GetAtt"].([]any)
			if len(role) != 2 || cfn.Resources[fmt.Sprint(role[0])].Type != "AWS::IAM::Role" {
				t.Errorf("%s: role %v", id, fn.Properties["Role"])
				continue
			}
			props := cfn.Resources[fmt.Sprint(role[0])].Properties
			wantManaged := want(t,
				`["arn:aws:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole", `+
					`"arn:aws:iam::aws:policy/AWSXrayWriteOnlyAccess"]`)
			if !reflect.DeepEqual(props["ManagedPolicyArns"], wantManaged) {
				t.Errorf("%s: managed policies %v, want logs and X-Ray only", id, props["ManagedPolicyArns"])
			}
			granted := rolePermissions(t, id, props["Policies"])
			if !reflect.DeepEqual(granted, policies[id]) {
				t.Errorf("%s: the role grants %v;\ntemplate.yaml's policy (held by TestPoliciesAreLeastPrivilege) is %v",
					id, granted, policies[id])
			}
		}
	})

	t.Run("functions log JSON into their own group, with the retention and tracing parameters", func(t *testing.T) {
		for id, fn := range cfn.ofType("AWS::Lambda::Function") {
			if got := fn.Properties["LoggingConfig"]; !reflect.DeepEqual(got,
				want(t, `{"LogFormat": "JSON", "LogGroup": {"Ref": "`+id+`Logs"}}`)) {
				t.Errorf("%s: LoggingConfig %v", id, got)
			}
			group := cfn.Resources[id+"Logs"]
			if group.Type != "AWS::Logs::LogGroup" ||
				!reflect.DeepEqual(group.Properties["RetentionInDays"], ref("LogRetentionDays")) {
				t.Errorf("%sLogs: %+v, want a log group kept LogRetentionDays", id, group)
			}
			if got := fn.Properties["TracingConfig"]; !reflect.DeepEqual(got, want(t, `{"Mode": {"Ref": "Tracing"}}`)) {
				t.Errorf("%s: TracingConfig %v", id, got)
			}
			env, _ := fn.Properties["Environment"].(map[string]any)["Variables"].(map[string]any)
			if !reflect.DeepEqual(env["CORS_ALLOWED_ORIGINS"], ref("CorsAllowedOrigins")) {
				t.Errorf("%s: CORS_ALLOWED_ORIGINS %v, want the CorsAllowedOrigins parameter", id, env["CORS_ALLOWED_ORIGINS"])
			}
		}
	})

	t.Run("the invitation e-mail: SenderEmail, its variables and SES statement on the senders only",
		func(t *testing.T) {
			if got := cfn.Conditions["HasSender"]; !reflect.DeepEqual(got,
				want(t, `{"Fn::Not": [{"Fn::Equals": [{"Ref": "SenderEmail"}, ""]}]}`)) {
				t.Errorf("condition HasSender %v, want SenderEmail not empty", got)
			}
			if p, _ := cfn.Parameters["SenderEmail"].(map[string]any); p["Type"] != "String" || p["Default"] != "" {
				t.Errorf("parameter SenderEmail %v, want a String defaulting to empty", p)
			}
			// SAM keeps the !If around the policy, so a stack without SenderEmail grants no SES action.
			sesPolicy := want(t, `{"Fn::If": ["HasSender", {
			"PolicyDocument": {"Version": "2012-10-17", "Statement": [{
				"Effect": "Allow", "Action": ["ses:SendEmail"],
				"Resource": {"Fn::Sub": "arn:${AWS::Partition}:ses:${AWS::Region}:${AWS::AccountId}:identity/*"},
				"Condition": {"StringEquals": {"ses:FromAddress": {"Ref": "SenderEmail"}}}}]},
			"PolicyName": "InvitationsFunctionRolePolicy1"}, {"Ref": "AWS::NoValue"}]}`)
			for id, fn := range cfn.ofType("AWS::Lambda::Function") {
				env, _ := fn.Properties["Environment"].(map[string]any)["Variables"].(map[string]any)
				role, _ := fn.Properties["Role"].(map[string]any)["Fn::GetAtt"].([]any)
				var policies []any
				if len(role) == 2 {
					policies, _ = cfn.Resources[fmt.Sprint(role[0])].Properties["Policies"].([]any)
				}
				var ses []any
				for _, p := range policies {
					if raw, _ := json.Marshal(p); strings.Contains(string(raw), "ses:") {
						ses = append(ses, p)
					}
				}
				if senders[id] {
					sesPolicy := sesPolicy
					sesPolicy.(map[string]any)["Fn::If"].([]any)[1].(map[string]any)["PolicyName"] = id + "RolePolicy1"
					if !reflect.DeepEqual(env["SENDER_EMAIL"], ref("SenderEmail")) ||
						!reflect.DeepEqual(env["INVITATION_URL"], ref("InvitationUrl")) {
						t.Errorf("%s: SENDER_EMAIL %v, INVITATION_URL %v; want the parameters", id, env["SENDER_EMAIL"],
							env["INVITATION_URL"])
					}
					if len(ses) != 1 || !reflect.DeepEqual(ses[0], sesPolicy) {
						t.Errorf("%s: SES policies %v, want %v", id, ses, sesPolicy)
					}
					continue
				}
				if env["SENDER_EMAIL"] != nil || env["INVITATION_URL"] != nil || len(ses) != 0 {
					t.Errorf("%s: SENDER_EMAIL %v, INVITATION_URL %v, SES policies %v; only %v send e-mail",
						id, env["SENDER_EMAIL"], env["INVITATION_URL"], ses, senders)
				}
			}
		})

	t.Run("the table outlives the stack", func(t *testing.T) {
		table := cfn.Resources["Table"]
		if table.DeletionPolicy != "Retain" || table.UpdateReplacePolicy != "Retain" ||
			!reflect.DeepEqual(table.Properties["DeletionProtectionEnabled"], ref("DeletionProtection")) {
			t.Errorf("Table: DeletionPolicy %q, UpdateReplacePolicy %q, DeletionProtectionEnabled %v; want Retain, "+
				"Retain, the DeletionProtection parameter",
				table.DeletionPolicy, table.UpdateReplacePolicy, table.Properties["DeletionProtectionEnabled"])
		}
	})

	t.Run("alarms on API 5xx, each function's errors and the table's throttles", func(t *testing.T) {
		alarms := cfn.ofType("AWS::CloudWatch::Alarm")
		actions := want(t, `{"Fn::If": ["HasAlarmTopic", [{"Ref": "AlarmTopicArn"}], {"Ref": "AWS::NoValue"}]}`)
		if got := cfn.Conditions["HasAlarmTopic"]; !reflect.DeepEqual(got,
			want(t, `{"Fn::Not": [{"Fn::Equals": [{"Ref": "AlarmTopicArn"}, ""]}]}`)) {
			t.Errorf("condition HasAlarmTopic %v, want AlarmTopicArn not empty", got)
		}
		covered := map[string]bool{}
		for id, a := range alarms {
			if !reflect.DeepEqual(a.Properties["AlarmActions"], actions) ||
				!reflect.DeepEqual(a.Properties["OKActions"], actions) {
				t.Errorf("%s: actions %v / %v, want the AlarmTopicArn when it is set", id, a.Properties["AlarmActions"],
					a.Properties["OKActions"])
			}
			for _, m := range alarmMetrics(a.Properties) {
				covered[m] = true
			}
		}
		wantMetrics := []string{fmt.Sprintf("AWS/ApiGateway 5XXError ApiName=%v Stage=%v",
			cfn.Resources["Api"].Properties["Name"], ref("StageName"))}
		for id := range cfn.ofType("AWS::Lambda::Function") {
			wantMetrics = append(wantMetrics, fmt.Sprintf("AWS/Lambda Errors FunctionName=%v", ref(id)))
		}
		indexes := []string{""}
		for _, gsi := range dynamo.TableDefinition("x").GlobalSecondaryIndexes {
			indexes = append(indexes, " GlobalSecondaryIndexName="+aws.ToString(gsi.IndexName))
		}
		for _, m := range []string{"ReadThrottleEvents", "WriteThrottleEvents"} {
			for _, index := range indexes {
				wantMetrics = append(wantMetrics, fmt.Sprintf("AWS/DynamoDB %s TableName=%v%s", m, ref("Table"), index))
			}
		}
		var missing []string
		for _, m := range wantMetrics {
			if !covered[m] {
				missing = append(missing, m)
			}
		}
		if len(missing) > 0 {
			t.Errorf("no alarm watches %v;\nalarms watch %v", missing, keys(covered))
		}
	})
}

// rolePermissions reads an IAM role's inline policies in the terms of templatePolicies: the table's
// ARN is "table", "${Table.Arn}/index/X" is "index/X".
func rolePermissions(t *testing.T, id string, policies any) map[permission]bool {
	t.Helper()
	raw, err := json.Marshal(policies)
	if err != nil {
		t.Fatal(err)
	}
	var decoded []struct {
		PolicyDocument struct {
			Statement []struct {
				Effect   string          `json:"Effect"`
				Action   json.RawMessage `json:"Action"`
				Resource json.RawMessage `json:"Resource"`
			} `json:"Statement"`
		} `json:"PolicyDocument"`
	}
	if err := json.Unmarshal(raw, &decoded); err != nil {
		t.Fatalf("%s: role policies: %v", id, err)
	}
	out := map[permission]bool{}
	for _, p := range decoded {
		for _, st := range p.PolicyDocument.Statement {
			var actions []string
			if err := json.Unmarshal(st.Action, &actions); err != nil {
				var one string
				if json.Unmarshal(st.Action, &one) != nil {
					t.Fatalf("%s: statement actions %s", id, st.Action)
				}
				actions = []string{one}
			}
			var resources []any
			if err := json.Unmarshal(st.Resource, &resources); err != nil {
				var one any
				if json.Unmarshal(st.Resource, &one) != nil {
					t.Fatalf("%s: statement resources %s", id, st.Resource)
				}
				resources = []any{one}
			}
			if st.Effect != "Allow" {
				t.Errorf("%s: a %s statement; only Allow is expected", id, st.Effect)
			}
			for _, r := range resources {
				name := resourceName(r)
				if name == "" {
					t.Errorf("%s: a resource that is neither the table, its stream, one of its indexes nor a resource "+
						"of the template: %v", id, r)
					continue
				}
				for _, a := range actions {
					out[permission{a, name}] = true
				}
			}
		}
	}
	return out
}

func resourceName(r any) string {
	m, _ := r.(map[string]any)
	if getAtt, ok := m["Fn::GetAtt"].([]any); ok && reflect.DeepEqual(getAtt, []any{"Table", "Arn"}) {
		return "table"
	}
	if sub, ok := m["Fn::Sub"].(string); ok && strings.HasPrefix(sub, "${Table.Arn}/index/") {
		return "index/" + strings.TrimPrefix(sub, "${Table.Arn}/index/")
	}
	if sub, ok := m["Fn::Sub"].(string); ok && sub == "${Table.Arn}/stream/*" {
		return "stream"
	}
	if getAtt, ok := m["Fn::GetAtt"].([]any); ok && len(getAtt) == 2 && getAtt[1] == "Arn" {
		return fmt.Sprintf("resource %v", getAtt[0])
	}
	return ""
}

// alarmMetrics names the metrics an alarm watches, "namespace metric Dim=value ...", from a single
// metric or from each MetricStat of a metric-math alarm.
func alarmMetrics(props map[string]any) []string {
	name := func(namespace, metric any, dims any) string {
		s := fmt.Sprintf("%v %v", namespace, metric)
		list, _ := dims.([]any)
		for _, d := range list {
			dim, _ := d.(map[string]any)
			s += fmt.Sprintf(" %v=%v", dim["Name"], dim["Value"])
		}
		return s
	}
	if props["MetricName"] != nil {
		return []string{name(props["Namespace"], props["MetricName"], props["Dimensions"])}
	}
	var out []string
	metrics, _ := props["Metrics"].([]any)
	for _, m := range metrics {
		stat, _ := m.(map[string]any)["MetricStat"].(map[string]any)
		metric, _ := stat["Metric"].(map[string]any)
		if metric != nil {
			out = append(out, name(metric["Namespace"], metric["MetricName"], metric["Dimensions"]))
		}
	}
	return out
}

func keys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
