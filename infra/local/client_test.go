package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/google/uuid"
	"github.com/reportingplatform/api/infra/gateway"
	"github.com/reportingplatform/api/infra/testkit"
)

// tourSteps are the lines infra/client/tour.mts prints, one per answer it checked, in order.
var tourSteps = []string{
	"ok login: 201",
	"ok list page=last: 200",
	"ok list previous by its cursor: 200",
	"ok create with Idempotency-Key: 201",
	"ok replay of the create: 201",
	"ok read invitation: 200",
	"ok patch invitation first_name: 200",
	"ok patch invitation back: 200",
	"ok delete the comment: 204",
	"ok read the deleted comment: 404",
	"ok logout: 204",
	"ok list with the revoked token: 401",
	"tour passed",
}

// TestTypedClientTour is issue 31's typed client: infra/scripts/client.sh generates TypeScript types from
// openapi.yaml (openapi-typescript), compiles infra/client/tour.mts against them with tsc --strict and
// runs it with openapi-fetch against the server make run starts, with the demo data: log in, list with
// page=last, create with an Idempotency-Key and replay it, read and patch an invitation, delete, log out.
// A document a client cannot send the API's requests with fails the compile; an answer the document
// does not describe (status or field) fails the run.
func TestTypedClientTour(t *testing.T) {
	for _, tool := range []string{"node", "npm"} {
		if _, err := exec.LookPath(tool); err != nil {
			skipUnlessCI(t, tool+" is not on PATH, so the typed client generated from openapi.yaml is not tried here")
		}
	}
	tpl, err := gateway.FindTemplate()
	if err != nil {
		t.Fatal(err)
	}
	script := filepath.Join(filepath.Dir(tpl), "infra", "scripts", "client.sh")
	// The packages first, before the server, whose start would otherwise wait on npm: a no-op once
	// .local/client/ holds the lockfile's.
	clientScript(t, 5*time.Minute, script, "install")

	db := testkit.NewDB(t) // for its client, to delete the table make run makes
	table := "client-" + uuid.NewString()
	t.Cleanup(func() {
		_, _ = db.Client.DeleteTable(context.Background(), &dynamodb.DeleteTableInput{TableName: aws.String(table)})
	})
	s := startMakeRun(t, testkit.Endpoint(t), table)
	if s.exited || s.base == "" {
		t.Fatalf("make run's server did not start (exited %v: %v); it printed:\n%s", s.exited, s.err,
			strings.Join(s.out, "\n"))
	}

	out := clientScript(t, 3*time.Minute, script, "tour", s.base)
	var got []string
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(line, "ok ") || line == "tour passed" {
			got = append(got, line)
		}
	}
	if strings.Join(got, "\n") != strings.Join(tourSteps, "\n") {
		t.Errorf("the tour printed\n%s\nwant its steps\n%s", out, strings.Join(tourSteps, "\n"))
	}
}

// clientScript runs infra/scripts/client.sh with args and returns its stdout; anything but exit 0 fails
// the test with both of its outputs.
func clientScript(t *testing.T, limit time.Duration, script string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	cmd := exec.CommandContext(ctx, script, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s %s: %v\nstdout:\n%s\nstderr:\n%s", filepath.Base(script), strings.Join(args, " "), err,
			stdout.Bytes(), stderr.Bytes())
	}
	return stdout.String()
}

// skipUnlessCI skips a test whose tool this machine lacks, saying why, except under CI=true, where a
// missing tool is a broken pipeline and a skipped test would pass without having run (as
// infra/consistency's cfn-lint test does).
func skipUnlessCI(t *testing.T, why string) {
	t.Helper()
	if os.Getenv("CI") == "true" {
		t.Fatalf("%s; CI=true requires it", why)
	}
	t.Skip(why)
}
