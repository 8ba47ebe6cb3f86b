package consistency_test

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// checkAccessLogs holds the stage's access logs to what the template promises: one JSON object per
// request in a log group kept LogRetentionDays, carrying the request id the functions log (API
// Gateway's requestContext.requestId, which httpapi's router logs as request_id), and written only
// once the account's API Gateway settings name a role to write with.
func checkAccessLogs(t *testing.T, cfn cfnTemplate, stage cfnResource) {
	t.Helper()
	setting, _ := stage.Properties["AccessLogSetting"].(map[string]any)
	if !reflect.DeepEqual(setting["DestinationArn"], want(t, `{"Fn::GetAtt": ["ApiAccessLogs", "Arn"]}`)) {
		t.Errorf("stage access logs go to %v, want the ApiAccessLogs group", setting["DestinationArn"])
	}
	group := cfn.Resources["ApiAccessLogs"]
	if group.Type != "AWS::Logs::LogGroup" ||
		!reflect.DeepEqual(group.Properties["RetentionInDays"], ref("LogRetentionDays")) {
		t.Errorf("ApiAccessLogs: %+v, want a log group kept LogRetentionDays", group)
	}
	format, _ := setting["Format"].(string)
	var fields map[string]string
	if err := json.Unmarshal([]byte(format), &fields); err != nil {
		t.Fatalf("access log format is not one JSON object: %v: %s", err, format)
	}
	for key, variable := range map[string]string{
		"requestId":          "$context.requestId",
		"extendedRequestId":  "$context.extendedRequestId",
		"ip":                 "$context.identity.sourceIp",
		"httpMethod":         "$context.httpMethod",
		"resourcePath":       "$context.resourcePath",
		"status":             "$context.status",
		"responseLength":     "$context.responseLength",
		"responseLatency":    "$context.responseLatency",
		"integrationLatency": "$context.integration.latency",
		"integrationError":   "$context.integration.error",
	} {
		if fields[key] != variable {
			t.Errorf("access log field %s = %q, want %s", key, fields[key], variable)
		}
	}
	for key, variable := range fields {
		// A header (the token among them) or a body would be $input…, an authorizer's claims $context.authorizer….
		if strings.HasPrefix(variable, "$input") || strings.HasPrefix(variable, "$context.authorizer") {
			t.Errorf("access log field %s logs %s: no header, body or credential is logged", key, variable)
		}
	}

	// The API waits for the account setting when the stack makes it; the role it names may push logs.
	api := cfn.Resources["Api"]
	if !reflect.DeepEqual(api.DependsOn, "ApiGatewayLogsReady") &&
		!reflect.DeepEqual(api.DependsOn, []any{"ApiGatewayLogsReady"}) {
		t.Errorf("Api DependsOn %v, want ApiGatewayLogsReady (the account's logging role first)", api.DependsOn)
	}
	account := cfn.Resources["ApiGatewayAccount"]
	if account.Type != "AWS::ApiGateway::Account" || account.Condition != "CreateApiGatewayLogsRole" ||
		!reflect.DeepEqual(account.Properties["CloudWatchRoleArn"],
			want(t, `{"Fn::GetAtt": ["ApiGatewayCloudWatchRole", "Arn"]}`)) {
		t.Errorf("ApiGatewayAccount: %+v, want the account setting naming ApiGatewayCloudWatchRole, made only "+
			"for ApiGatewayLogsRole create", account)
	}
	role := cfn.Resources["ApiGatewayCloudWatchRole"]
	if role.Type != "AWS::IAM::Role" || role.Condition != "CreateApiGatewayLogsRole" ||
		!reflect.DeepEqual(role.Properties["ManagedPolicyArns"],
			want(t,
				`[{"Fn::Sub": "arn:${AWS::Partition}:iam::aws:policy/service-role/AmazonAPIGatewayPushToCloudWatchLogs"}]`)) {
		t.Errorf("ApiGatewayCloudWatchRole: %+v, want a role with AmazonAPIGatewayPushToCloudWatchLogs, made "+
			"only for ApiGatewayLogsRole create", role)
	}
	ready := cfn.Resources["ApiGatewayLogsReady"]
	if !reflect.DeepEqual(ready.Metadata["Account"],
		want(t, `{"Fn::If": ["CreateApiGatewayLogsRole", {"Ref": "ApiGatewayAccount"}, ""]}`)) {
		t.Errorf("ApiGatewayLogsReady: %+v, want it to refer to ApiGatewayAccount when the stack makes it", ready)
	}
}
