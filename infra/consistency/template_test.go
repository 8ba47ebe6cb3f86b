package consistency_test

import (
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/reportingplatform/api/functions/expiries"
	"github.com/reportingplatform/api/infra/gateway"
	"github.com/reportingplatform/api/shared/domain"
	"github.com/reportingplatform/api/shared/dynamo"
	"github.com/reportingplatform/api/shared/httpapi"
	"gopkg.in/yaml.v3"
)

// template is the part of template.yaml these tests read. CloudFormation tags (!Ref, !GetAtt) decode
// into yaml.Node fields or are skipped.
type template struct {
	Globals struct {
		Function struct {
			Runtime       string   `yaml:"Runtime"`
			Architectures []string `yaml:"Architectures"`
			Handler       string   `yaml:"Handler"`
			Environment   struct {
				Variables map[string]yaml.Node `yaml:"Variables"`
			} `yaml:"Environment"`
		} `yaml:"Function"`
	} `yaml:"Globals"`
	Resources map[string]struct {
		Type     string `yaml:"Type"`
		Metadata struct {
			BuildMethod string `yaml:"BuildMethod"`
		} `yaml:"Metadata"`
		Properties yaml.Node `yaml:"Properties"`
	} `yaml:"Resources"`
	Outputs map[string]yaml.Node `yaml:"Outputs"`
}

type tableProps struct {
	BillingMode         string `yaml:"BillingMode"`
	StreamSpecification struct {
		StreamViewType string `yaml:"StreamViewType"`
	} `yaml:"StreamSpecification"`
	AttributeDefinitions []struct {
		AttributeName string `yaml:"AttributeName"`
		AttributeType string `yaml:"AttributeType"`
	} `yaml:"AttributeDefinitions"`
	KeySchema              []keyElem `yaml:"KeySchema"`
	GlobalSecondaryIndexes []struct {
		IndexName  string    `yaml:"IndexName"`
		KeySchema  []keyElem `yaml:"KeySchema"`
		Projection struct {
			ProjectionType   string   `yaml:"ProjectionType"`
			NonKeyAttributes []string `yaml:"NonKeyAttributes"`
		} `yaml:"Projection"`
	} `yaml:"GlobalSecondaryIndexes"`
	TimeToLiveSpecification struct {
		AttributeName string `yaml:"AttributeName"`
		Enabled       bool   `yaml:"Enabled"`
	} `yaml:"TimeToLiveSpecification"`
}

type keyElem struct {
	AttributeName string `yaml:"AttributeName"`
	KeyType       string `yaml:"KeyType"`
}

func loadTemplate(t *testing.T) (template, string) {
	t.Helper()
	var tpl template
	root := decodeTemplate(t, &tpl)
	return tpl, root
}

// decodeTemplate decodes template.yaml into v (any struct naming the parts a test reads) and returns the
// folder it is in, the repository's root.
func decodeTemplate(t *testing.T, v any) string {
	t.Helper()
	path, err := gateway.FindTemplate()
	if err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(raw, v); err != nil {
		t.Fatalf("parse template.yaml: %v", err)
	}
	return filepath.Dir(path)
}

// templateRoutes are template.yaml's API events, as the local server and the tests route them.
func templateRoutes(t *testing.T) []gateway.Route {
	t.Helper()
	path, err := gateway.FindTemplate()
	if err != nil {
		t.Fatal(err)
	}
	routes, err := gateway.LoadRoutes(path)
	if err != nil {
		t.Fatal(err)
	}
	return routes
}

func TestTemplateTableMatchesTheStore(t *testing.T) {
	tpl, _ := loadTemplate(t)
	res, ok := tpl.Resources["Table"]
	if !ok || res.Type != "AWS::DynamoDB::Table" {
		t.Fatalf("template.yaml has no AWS::DynamoDB::Table named Table")
	}
	var got tableProps
	if err := res.Properties.Decode(&got); err != nil {
		t.Fatal(err)
	}
	want := dynamo.TableDefinition("x")
	if got.BillingMode != string(want.BillingMode) {
		t.Errorf("BillingMode %q, store %q", got.BillingMode, want.BillingMode)
	}
	keys := func(ks []keyElem) []string {
		var out []string
		for _, k := range ks {
			out = append(out, k.AttributeName+" "+k.KeyType)
		}
		return out
	}
	var wantKeys []string
	for _, k := range want.KeySchema {
		wantKeys = append(wantKeys, aws.ToString(k.AttributeName)+" "+string(k.KeyType))
	}
	if !reflect.DeepEqual(keys(got.KeySchema), wantKeys) {
		t.Errorf("KeySchema %v, store %v", keys(got.KeySchema), wantKeys)
	}
	var gotAttrs, wantAttrs []string
	for _, a := range got.AttributeDefinitions {
		gotAttrs = append(gotAttrs, a.AttributeName+" "+a.AttributeType)
	}
	for _, a := range want.AttributeDefinitions {
		wantAttrs = append(wantAttrs, aws.ToString(a.AttributeName)+" "+string(a.AttributeType))
	}
	sort.Strings(gotAttrs)
	sort.Strings(wantAttrs)
	if !reflect.DeepEqual(gotAttrs, wantAttrs) {
		t.Errorf("AttributeDefinitions %v, store %v", gotAttrs, wantAttrs)
	}
	if len(got.GlobalSecondaryIndexes) != len(want.GlobalSecondaryIndexes) {
		t.Fatalf("%d GSIs in template.yaml, %d in the store", len(got.GlobalSecondaryIndexes),
			len(want.GlobalSecondaryIndexes))
	}
	for i, w := range want.GlobalSecondaryIndexes {
		g := got.GlobalSecondaryIndexes[i]
		var wk []string
		for _, k := range w.KeySchema {
			wk = append(wk, aws.ToString(k.AttributeName)+" "+string(k.KeyType))
		}
		if g.IndexName != aws.ToString(w.IndexName) || !reflect.DeepEqual(keys(g.KeySchema), wk) ||
			g.Projection.ProjectionType != string(w.Projection.ProjectionType) ||
			!reflect.DeepEqual(g.Projection.NonKeyAttributes, w.Projection.NonKeyAttributes) {
			t.Errorf("GSI %d: template %+v, store %s %v %s %v", i, g, aws.ToString(w.IndexName), wk,
				w.Projection.ProjectionType, w.Projection.NonKeyAttributes)
		}
	}
	if got.StreamSpecification.StreamViewType != string(want.StreamSpecification.StreamViewType) {
		t.Errorf("StreamSpecification %+v, store's stream view %s", got.StreamSpecification,
			want.StreamSpecification.StreamViewType)
	}
	if !got.TimeToLiveSpecification.Enabled || got.TimeToLiveSpecification.AttributeName != dynamo.TTLAttribute {
		t.Errorf("TTL %+v, store's TTL attribute %q", got.TimeToLiveSpecification, dynamo.TTLAttribute)
	}
}

func TestEveryFunctionIsBuiltBySAMThroughTheMakefile(t *testing.T) {
	tpl, root := loadTemplate(t)
	g := tpl.Globals.Function
	if g.Runtime != "provided.al2023" || !reflect.DeepEqual(g.Architectures, []string{"arm64"}) ||
		g.Handler != "bootstrap" {
		t.Fatalf("Globals.Function: runtime %q, architectures %v, handler %q", g.Runtime, g.Architectures, g.Handler)
	}
	for _, env := range []string{"TABLE_NAME", "TOKEN_TTL", "INVITATION_TTL"} {
		if _, ok := g.Environment.Variables[env]; !ok {
			t.Errorf("Globals.Function.Environment lacks %s", env)
		}
	}
	for _, out := range []string{"ApiUrl", "TableName"} {
		if _, ok := tpl.Outputs[out]; !ok {
			t.Errorf("Outputs lacks %s", out)
		}
	}
	makefile, err := os.ReadFile(filepath.Join(root, "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	functions := 0
	for id, res := range tpl.Resources {
		if res.Type != "AWS::Serverless::Function" {
			continue
		}
		functions++
		if res.Metadata.BuildMethod != "makefile" {
			t.Errorf("%s: Metadata.BuildMethod %q, want makefile", id, res.Metadata.BuildMethod)
		}
		target := regexp.MustCompile(`(?m)^build-` + id + `:\n\t\$\(call build_function,(\w+)\)$`).FindSubmatch(makefile)
		if target == nil {
			t.Errorf("Makefile has no build-%s target", id)
			continue
		}
		if _, err := os.Stat(filepath.Join(root, "functions", string(target[1]), "lambda", "main.go")); err != nil {
			t.Errorf("build-%s builds functions/%s/lambda, which has no main.go", id, target[1])
		}
	}
	if functions != 7 {
		t.Errorf("%d functions in template.yaml, want 7 (auth, users, invitations, comments, docs, expiries, mail)",
			functions)
	}
	if !strings.Contains(string(makefile), "CGO_ENABLED=0 GOOS=linux GOARCH=arm64 $(GO) build $(GOFLAGS_LAMBDA)") ||
		!strings.Contains(string(makefile), "-o $(ARTIFACTS_DIR)/bootstrap") {
		t.Error("the Makefile's build_function does not build a static arm64 bootstrap into ARTIFACTS_DIR")
	}
	// lambda.norpc (no net/rpc: the provided.al2023 runtime speaks only the Runtime API),
	// nethttpomithttp2 (no HTTP/2: every peer speaks HTTP/1.1) and -s (no symbols, which implies -w) are
	// what the bootstraps' size budget (BOOTSTRAP_MAX_BYTES) is stated for.
	flags := regexp.MustCompile(`(?m)^GOFLAGS_LAMBDA := (.*)$`).FindSubmatch(makefile)
	if flags == nil {
		t.Fatal("the Makefile has no GOFLAGS_LAMBDA := line")
	}
	words := strings.Fields(string(flags[1]))
	for _, want := range []string{"-trimpath", "-tags=lambda.norpc,nethttpomithttp2", "-ldflags=-s"} {
		if !slices.Contains(words, want) {
			t.Errorf("GOFLAGS_LAMBDA %q lacks %s", flags[1], want)
		}
	}
}

// TestTimeLimitsNest holds SPEC §9's time limits together: the DynamoDB client's attempts fit in the
// request's budget, the budget answers within 6 s, and the Lambda timeout lies between the budget and
// API Gateway's 29 s, so that a store fault is answered by the function (503) and never by a timeout.
func TestTimeLimitsNest(t *testing.T) {
	var tpl struct {
		Globals struct {
			Function struct {
				Timeout int `yaml:"Timeout"`
			} `yaml:"Function"`
		} `yaml:"Globals"`
		Parameters map[string]struct {
			Default string `yaml:"Default"`
		} `yaml:"Parameters"`
	}
	root := decodeTemplate(t, &tpl)
	raw, err := os.ReadFile(filepath.Join(root, "template.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	budget, timeout := httpapi.RequestBudget, time.Duration(tpl.Globals.Function.Timeout)*time.Second
	if budget >= 6*time.Second {
		t.Errorf("RequestBudget %v: a store fault must be answered within 6 s", budget)
	}
	if dynamo.MaxAttempts*dynamo.AttemptTimeout >= budget {
		t.Errorf("%d attempts of AttemptTimeout %v do not fit in RequestBudget %v", dynamo.MaxAttempts,
			dynamo.AttemptTimeout, budget)
	}
	// A slow store (SPEC §9: up to 700 ms a call) is answered, not given up.
	if dynamo.AttemptTimeout < 2*700*time.Millisecond {
		t.Errorf("AttemptTimeout %v: a call of 700 ms on a busy store must fit twice", dynamo.AttemptTimeout)
	}
	if timeout <= budget+time.Second || timeout >= 29*time.Second {
		t.Errorf("Lambda Timeout %v: want above RequestBudget %v (with time to answer) and below API Gateway's 29 s", timeout,
			budget)
	}
	if budget+httpapi.IdempotencyReleaseBudget >= 6*time.Second {
		t.Errorf("IdempotencyReleaseBudget %v after RequestBudget %v: a failed create must be answered within 6 s",
			httpapi.IdempotencyReleaseBudget, budget)
	}
	// The scheduled function has no request budget but a run's (SPEC §11), and the same timeout.
	if expiries.RunBudget+time.Second > timeout {
		t.Errorf("expiries.RunBudget %v: want a second below the Lambda Timeout %v, to log the run's outcome",
			expiries.RunBudget, timeout)
	}
	if domain.IdempotencyLease <= timeout {
		t.Errorf("IdempotencyLease %v: a request may still run when another takes its key over (Lambda Timeout %v)",
			domain.IdempotencyLease, timeout)
	}
	for name, want := range map[string]string{"ThrottlingRateLimit": "100", "ThrottlingBurstLimit": "200"} {
		if got := tpl.Parameters[name].Default; got != want {
			t.Errorf("parameter %s defaults to %q, want %s (SPEC §9)", name, got, want)
		}
	}
	if !strings.Contains(string(raw), "ThrottlingRateLimit: !Ref ThrottlingRateLimit") ||
		!strings.Contains(string(raw), "ThrottlingBurstLimit: !Ref ThrottlingBurstLimit") {
		t.Error("the API stage's MethodSettings do not use the throttling parameters")
	}
}
