package gateway

import (
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// testTemplate is a small SAM template in the shape of the real one: CloudFormation short tags in
// places routing does not read, a path parameter, a greedy parameter, a path declared with a trailing
// slash, and events that are not Api events.
const testTemplate = `
AWSTemplateFormatVersion: "2010-09-09"
Transform: AWS::Serverless-2016-10-31
Globals:
  Function:
    Environment:
      Variables:
        TABLE_NAME: !Ref Table
Resources:
  Table:
    Type: AWS::DynamoDB::Table
    Properties:
      BillingMode: PAY_PER_REQUEST
  Api:
    Type: AWS::Serverless::Api
    Properties:
      StageName: !Ref StageName
      Events: not-a-function-so-never-decoded
  ItemsFunction:
    Type: AWS::Serverless::Function
    Properties:
      Policies:
        - Statement:
            - Effect: Allow
              Resource: !GetAtt Table.Arn
      Events:
        List:
          Type: Api
          Properties:
            RestApiId: !Ref Api
            Path: /items
            Method: get
        Create:
          Type: Api
          Properties:
            RestApiId: !Ref Api
            Path: /items
            Method: POST
        Item:
          Type: Api
          Properties:
            RestApiId: !Ref Api
            Path: /items/{id}
            Method: ANY
        Nightly:
          Type: Schedule
          Properties:
            Schedule: rate(1 day)
  FilesFunction:
    Type: AWS::Serverless::Function
    Properties:
      Events:
        Files:
          Type: Api
          Properties:
            Path: /files/{proxy+}
            Method: ANY
        Queue:
          Type: SQS
          Properties:
            Queue: !GetAtt Queue.Arn
  SlashFunction:
    Type: AWS::Serverless::Function
    Properties:
      Events:
        Slash:
          Type: Api
          Properties:
            Path: /slash/
            Method: GET
  BrokenFunction:
    Type: AWS::Serverless::Function
    Properties:
      Events:
        Silent:
          Type: Api
          Properties:
            Path: /broken/silent
            Method: ANY
        Panic:
          Type: Api
          Properties:
            Path: /broken/panic
            Method: ANY
  WorkerFunction:
    Type: AWS::Serverless::Function
    Properties:
      Events:
        Tick:
          Type: Schedule
          Properties:
            Schedule: !Sub "rate(${Minutes} minutes)"
Outputs:
  ApiUrl:
    Value: !Sub "https://${Api}.execute-api.${AWS::Region}.amazonaws.com/Prod"
`

func TestParseRoutesInline(t *testing.T) {
	routes, err := ParseRoutes([]byte(testTemplate))
	if err != nil {
		t.Fatalf("ParseRoutes: %v", err)
	}
	want := []Route{
		{Function: "BrokenFunction", Method: "ANY", Path: "/broken/panic"},
		{Function: "BrokenFunction", Method: "ANY", Path: "/broken/silent"},
		{Function: "FilesFunction", Method: "ANY", Path: "/files/{proxy+}"},
		{Function: "ItemsFunction", Method: "GET", Path: "/items"},
		{Function: "ItemsFunction", Method: "POST", Path: "/items"},
		{Function: "ItemsFunction", Method: "ANY", Path: "/items/{id}"},
		{Function: "SlashFunction", Method: "GET", Path: "/slash/"},
	}
	if !reflect.DeepEqual(routes, want) {
		t.Errorf("routes:\n got %+v\nwant %+v", routes, want)
	}
}

func TestParseRoutesErrors(t *testing.T) {
	event := func(props string) string {
		return "Resources:\n  F:\n    Type: AWS::Serverless::Function\n    Properties:\n      Events:\n        " +
			"E:\n          Type: Api\n          Properties:\n" + props
	}
	tests := []struct {
		name    string
		yaml    string
		wantErr string
	}{
		{"not yaml", "Resources: [", "parse template"},
		{"path from an intrinsic", event("            Path: !Sub /x/${Y}\n            Method: GET\n"),
			"Path must be a literal string, got tag !Sub"},
		{"missing path", event("            Method: GET\n"), "event E of F: missing Path"},
		{"missing method", event("            Path: /x\n"), "missing Method"},
		{"unknown method", event("            Path: /x\n            Method: FETCH\n"), `method "FETCH"`},
		{"relative path", event("            Path: x\n            Method: GET\n"), "does not start with /"},
		{"events not a map",
			"Resources:\n  F:\n    Type: AWS::Serverless::Function\n    Properties:\n      Events: [1]\n", "properties of F"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseRoutes([]byte(tt.yaml))
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("ParseRoutes error = %v, want it to contain %q", err, tt.wantErr)
			}
		})
	}
}

func TestParseRoutesNoFunctions(t *testing.T) {
	routes, err := ParseRoutes([]byte("Resources:\n  T:\n    Type: AWS::DynamoDB::Table\n    Properties:\n    " +
		"  X: !Ref Y\n"))
	if err != nil || len(routes) != 0 {
		t.Fatalf("ParseRoutes = %v, %v; want no route and no error", routes, err)
	}
}

// TestRealTemplate guards the contract between template.yaml and this package: the real template
// parses, declares the login route as expected, and its functions can all be wired into a Gateway.
func TestRealTemplate(t *testing.T) {
	path, err := FindTemplate()
	if err != nil {
		t.Fatalf("FindTemplate: %v", err)
	}
	routes, err := LoadRoutes(path)
	if err != nil {
		t.Fatalf("LoadRoutes: %v", err)
	}
	login := Route{Function: "AuthFunction", Method: "ANY", Path: "/api/v1/auth/login"}
	handlers := map[string]http.Handler{}
	found := false
	for _, rt := range routes {
		found = found || rt == login
		handlers[rt.Function] = echoHandler(rt.Function)
	}
	if !found {
		t.Errorf("routes %+v lack %+v", routes, login)
	}
	g, err := New(routes, handlers, "Prod")
	if err != nil {
		t.Fatalf("New with the real routes: %v", err)
	}
	for _, target := range []string{"/api/v1/auth/login", "/api/v1/auth/login/"} {
		t.Run(target, func(t *testing.T) {
			got := do(t, g, request{method: http.MethodPost, target: target, body: `{}`})
			if got.status != http.StatusOK || got.echo.Function != "AuthFunction" {
				t.Fatalf("POST %s = %d %s, want 200 from AuthFunction", target, got.status, got.body)
			}
		})
	}
}

func TestLoadRoutesMissingFile(t *testing.T) {
	_, err := LoadRoutes(filepath.Join(t.TempDir(), "template.yaml"))
	if err == nil || !strings.Contains(err.Error(), "read template") {
		t.Fatalf("LoadRoutes error = %v, want a read error", err)
	}
}

func TestFindTemplateFromSubfolder(t *testing.T) {
	root := t.TempDir()
	for name, content := range map[string]string{"go.mod": "module x\n", "template.yaml": testTemplate} {
		if err := os.WriteFile(filepath.Join(root, name), []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	sub := filepath.Join(root, "a", "b")
	if err := os.MkdirAll(sub, 0o700); err != nil {
		t.Fatal(err)
	}
	t.Chdir(sub)
	got, err := FindTemplate()
	if err != nil {
		t.Fatalf("FindTemplate: %v", err)
	}
	// The temporary folder may be reached through a symlink (macOS /var), so compare files.
	wantInfo, _ := os.Stat(filepath.Join(root, "template.yaml"))
	gotInfo, err := os.Stat(got)
	if err != nil || !os.SameFile(wantInfo, gotInfo) {
		t.Fatalf("FindTemplate = %s, want %s/template.yaml", got, root)
	}
}
