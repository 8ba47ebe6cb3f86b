package consistency_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestEnvLocalAimsEveryFunctionAtDynamoDBLocal holds env.local.json, make sam-local's --env-vars file,
// to what `sam local start-api` does with it: it overrides only the variables a function declares, so
// every variable the file sets for a function must be in that function's environment as SAM translates
// it, and there hold its AWS value (empty: DynamoDB in the stack's region, the outbox off). Every
// function of the template has its entry, aimed at DynamoDB Local on the host.
func TestEnvLocalAimsEveryFunctionAtDynamoDBLocal(t *testing.T) {
	t.Parallel()
	cfn := translated(t)
	_, root := loadTemplate(t)
	raw, err := os.ReadFile(filepath.Join(root, "env.local.json"))
	if err != nil {
		t.Fatal(err)
	}
	var file map[string]map[string]string
	if err := json.Unmarshal(raw, &file); err != nil {
		t.Fatalf("env.local.json: %v", err)
	}
	functions := cfn.ofType("AWS::Lambda::Function")
	for id := range file {
		if _, ok := functions[id]; !ok {
			t.Errorf("env.local.json sets variables of %s, which is no function of the template", id)
		}
	}
	for id, fn := range functions {
		set, ok := file[id]
		if !ok {
			t.Errorf("env.local.json has no entry for %s: under sam local it would use DynamoDB in AWS", id)
			continue
		}
		env, _ := fn.Properties["Environment"].(map[string]any)
		vars, _ := env["Variables"].(map[string]any)
		for name := range set {
			if _, declared := vars[name]; !declared {
				t.Errorf("%s: env.local.json sets %s, which the function does not declare (sam local ignores it)", id, name)
			}
		}
		if got := set["DYNAMODB_ENDPOINT"]; !strings.HasPrefix(got, "http://host.docker.internal:") {
			t.Errorf("%s: env.local.json's DYNAMODB_ENDPOINT %q does not name DynamoDB Local on the host", id, got)
		}
		for _, name := range []string{"DYNAMODB_ENDPOINT", "LOG_FORMAT", "OUTBOX_DIR"} {
			if v, declared := vars[name]; declared && v != "" {
				t.Errorf("%s: %s is %v in AWS, want empty", id, name, v)
			}
		}
		if !slices.Contains([]string{"reporting-platform"}, set["TABLE_NAME"]) {
			t.Errorf("%s: env.local.json's TABLE_NAME %q is not the table make sam-local loads", id, set["TABLE_NAME"])
		}
	}
}
