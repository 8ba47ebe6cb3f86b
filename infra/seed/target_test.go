package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/google/uuid"
	"github.com/reportingplatform/api/infra/fixture"
	"github.com/reportingplatform/api/infra/gateway"
	"github.com/reportingplatform/api/infra/testkit"
	"github.com/reportingplatform/api/shared/dynamo"
)

// TestDestination: the same environment names the same table for `make run` and `make seed`, and
// only an explicit target of aws, with the table named, writes to AWS (SPEC §7).
func TestDestination(t *testing.T) {
	tests := []struct {
		name    string
		target  string
		env     map[string]string
		want    destination
		wantErr string
	}{
		{name: "default: make run's DynamoDB Local and table", target: targetLocal,
			want: destination{target: targetLocal, endpoint: "http://127.0.0.1:8000", table: "reporting-platform"}},
		{name: "TABLE_NAME alone still names a table in make run's DynamoDB Local", target: targetLocal,
			env:  map[string]string{"TABLE_NAME": "second"},
			want: destination{target: targetLocal, endpoint: "http://127.0.0.1:8000", table: "second"}},
		{name: "DYNAMODB_ENDPOINT and TABLE_NAME as make run reads them", target: targetLocal,
			env:  map[string]string{"DYNAMODB_ENDPOINT": "http://127.0.0.1:8770", "TABLE_NAME": "t"},
			want: destination{target: targetLocal, endpoint: "http://127.0.0.1:8770", table: "t"}},
		{name: "aws with the table named", target: targetAWS,
			env:  map[string]string{"TABLE_NAME": "stack-Table-ABC"},
			want: destination{target: targetAWS, table: "stack-Table-ABC"}},
		{name: "aws without TABLE_NAME is refused", target: targetAWS,
			wantErr: "TARGET=aws needs the deployed table named: make seed FILE=<path> TARGET=aws TABLE_NAME="},
		{name: "aws with a DynamoDB Local named is refused", target: targetAWS,
			env:     map[string]string{"TABLE_NAME": "t", "DYNAMODB_ENDPOINT": "http://127.0.0.1:8000"},
			wantErr: "DYNAMODB_ENDPOINT=http://127.0.0.1:8000 names a DynamoDB Local"},
		{name: "an unknown target is refused", target: "prod", wantErr: `TARGET="prod": want local`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := chooseDestination(tt.target, func(k string) string { return tt.env[k] })
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("chooseDestination = %+v, %v; want an error saying %q", got, err, tt.wantErr)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("chooseDestination = %+v, %v; want %+v", got, err, tt.want)
			}
		})
	}
}

// TestLocalEndpointIsMakeRuns: the default endpoint is the DynamoDB Local that `make run` starts.
func TestLocalEndpointIsMakeRuns(t *testing.T) {
	root := moduleRoot(t)
	script, err := os.ReadFile(filepath.Join(root, "infra", "scripts", "run.sh"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(script), `export DYNAMODB_ENDPOINT="`+localEndpoint+`"`) {
		t.Errorf("infra/scripts/run.sh does not default DYNAMODB_ENDPOINT to %s, the seed's local default", localEndpoint)
	}
}

// TestRunToAWS loads into "AWS" as the aws target does, the SDK sent to DynamoDB Local by
// AWS_ENDPOINT_URL_DYNAMODB (the SDK's standard override), with the credentials and region from the
// environment: the region and table are printed before anything is written, and nothing is created.
func TestRunToAWS(t *testing.T) {
	ctx := context.Background()
	endpoint := testkit.Endpoint(t)
	client := testkit.Client(t, endpoint)
	table := "seed-aws-" + uuid.NewString()
	if _, err := fixture.EnsureTable(ctx, client, table); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_, _ = client.DeleteTable(context.Background(), &dynamodb.DeleteTableInput{TableName: aws.String(table)})
	})
	dir := t.TempDir()
	fixturePath := filepath.Join(dir, "admin.json")
	if err := os.WriteFile(fixturePath,
		[]byte(`{"users": [{"email": "admin@example.com", "password": "pbkdf2_sha256$1$s$x", "is_staff": true}]}`),
		0o600); err != nil {
		t.Fatal(err)
	}
	emptyConfig := filepath.Join(dir, "aws-config")
	if err := os.WriteFile(emptyConfig, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	awsEnv := func(t *testing.T, region string) {
		t.Helper()
		for k, v := range map[string]string{
			"DYNAMODB_ENDPOINT": "", "TABLE_NAME": table, "AWS_ENDPOINT_URL_DYNAMODB": endpoint,
			"AWS_REGION": region, "AWS_DEFAULT_REGION": "", "AWS_PROFILE": "",
			"AWS_ACCESS_KEY_ID": "local", "AWS_SECRET_ACCESS_KEY": "local", "AWS_SESSION_TOKEN": "",
			"AWS_CONFIG_FILE": emptyConfig, "AWS_SHARED_CREDENTIALS_FILE": emptyConfig,
		} {
			t.Setenv(k, v)
		}
	}

	t.Run("prints the region and table first", func(t *testing.T) {
		awsEnv(t, "eu-west-3")
		var out bytes.Buffer
		if err := run(ctx, fixturePath, targetAWS, &out); err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(out.String(), "\n")
		want := "writing to DynamoDB table " + table + " in AWS region eu-west-3 through endpoint " + endpoint
		if lines[0] != want {
			t.Errorf("first line %q, want %q", lines[0], want)
		}
		// Then the progress, its last line telling every entry written, then the summary.
		if len(lines) < 3 || !strings.HasPrefix(lines[1], "1 of 1 entries (100%)") ||
			!strings.HasPrefix(lines[2], "loaded "+fixturePath+" into table "+table) {
			t.Errorf("output %q: want the load reported after the region and table", out.String())
		}
		store := dynamo.New(client, table)
		acct, err := store.Credentials(ctx, "admin@example.com")
		if err != nil || acct == nil {
			t.Fatalf("loaded user: %+v, %v", acct, err)
		}
		if u, err := store.User(ctx, acct.UserID); err != nil || !u.IsStaff {
			t.Errorf("loaded user: %+v, %v; want staff", u, err)
		}
	})
	t.Run("no region is refused before anything is written", func(t *testing.T) {
		awsEnv(t, "")
		var out bytes.Buffer
		err := run(ctx, fixturePath, targetAWS, &out)
		if err == nil || !strings.Contains(err.Error(), "no AWS region") || out.Len() != 0 {
			t.Errorf("run = %v, output %q; want a refusal naming the missing region, and nothing printed", err, out.String())
		}
	})
	t.Run("without TABLE_NAME nothing is contacted", func(t *testing.T) {
		awsEnv(t, "eu-west-3")
		t.Setenv("TABLE_NAME", "")
		t.Setenv("AWS_ENDPOINT_URL_DYNAMODB", "http://127.0.0.1:1") // refused at once if it were used
		var out bytes.Buffer
		err := run(ctx, fixturePath, targetAWS, &out)
		if err == nil || !strings.Contains(err.Error(), "TARGET=aws needs the deployed table named") {
			t.Errorf("run = %v, want the refusal asking for TABLE_NAME", err)
		}
	})
}

// TestMakeSeedTakesAWSOnlyFromTheCommandLine runs `make seed` as a user would: TARGET=aws on the
// command line without TABLE_NAME is refused with the loader's message, and TARGET=aws exported in
// the environment loads into the local DynamoDB (here the tests' one), with a note.
func TestMakeSeedTakesAWSOnlyFromTheCommandLine(t *testing.T) {
	mk, err := exec.LookPath("make")
	if err != nil {
		t.Skip("make is not on PATH")
	}
	endpoint := testkit.Endpoint(t)
	root := moduleRoot(t)
	fixturePath := filepath.Join(t.TempDir(), "one.json")
	if err := os.WriteFile(fixturePath, []byte(`{"organizations": [{"name": "Make Seed"}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	// The environment of `make test` minus what this test sets, and minus make's own variables: the
	// jobserver of an enclosing make is not this make's.
	baseEnv := func(extra ...string) []string {
		var env []string
		for _, kv := range os.Environ() {
			switch strings.SplitN(kv, "=", 2)[0] {
			case "DYNAMODB_ENDPOINT", "TABLE_NAME", "TARGET", "MAKEFLAGS", "MFLAGS", "MAKELEVEL":
				continue
			}
			env = append(env, kv)
		}
		return append(env, extra...)
	}
	makeSeed := func(env []string, args ...string) (string, error) {
		cmd := exec.Command(mk, append([]string{"-s", "--no-print-directory", "seed", "FILE=" + fixturePath}, args...)...)
		cmd.Dir = root
		cmd.Env = env
		out, err := cmd.CombinedOutput()
		return string(out), err
	}

	t.Run("TARGET=aws without TABLE_NAME is refused", func(t *testing.T) {
		out, err := makeSeed(baseEnv(), "TARGET=aws")
		if err == nil || !strings.Contains(out, "seed: TARGET=aws needs the deployed table named") {
			t.Errorf("make seed TARGET=aws: %v\n%s\nwant a refusal asking for TABLE_NAME", err, out)
		}
	})
	t.Run("an exported TARGET=aws does not leave the local DynamoDB", func(t *testing.T) {
		table := "seed-make-" + uuid.NewString()
		client := testkit.Client(t, endpoint)
		t.Cleanup(func() {
			_, _ = client.DeleteTable(context.Background(), &dynamodb.DeleteTableInput{TableName: aws.String(table)})
		})
		out, err := makeSeed(baseEnv("TARGET=aws", "TABLE_NAME="+table, "DYNAMODB_ENDPOINT="+endpoint))
		if err != nil || !strings.Contains(out, "TARGET=aws in the environment is ignored") ||
			!strings.Contains(out, "created table "+table+" at "+endpoint) {
			t.Errorf("TARGET=aws make seed: %v\n%s\nwant the load into %s at %s, with a note", err, out, table, endpoint)
		}
	})
}

func moduleRoot(t *testing.T) string {
	t.Helper()
	path, err := gateway.FindTemplate()
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Dir(path)
}
