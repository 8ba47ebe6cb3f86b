package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/google/uuid"
	"github.com/reportingplatform/api/infra/testkit"
	"github.com/reportingplatform/api/shared/dynamo"
)

func TestRunCreatesTheTableLoadsAndRefuses(t *testing.T) {
	ctx := context.Background()
	endpoint := testkit.Endpoint(t)
	table := "seed-" + uuid.NewString()
	t.Setenv("TABLE_NAME", table)
	t.Setenv("INVITATION_TTL", "48h")
	client := testkit.Client(t, endpoint)
	t.Cleanup(func() {
		_, _ = client.DeleteTable(context.Background(), &dynamodb.DeleteTableInput{TableName: aws.String(table)})
	})
	dir := t.TempDir()
	write := func(name, body string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	good := write("good.json", `{"users": [{"email": "seed@example.com", "password": "pbkdf2_sha256$1$s$x"}]}`)
	bad := write("bad.json",
		`{"users": [{"email": "refused@example.com"}], "members": [{"organization_id": "`+uuid.NewString()+
			`", "user_id": "`+uuid.NewString()+`"}]}`)

	tests := []struct {
		name    string
		path    string
		wantOut []string
		wantErr string
	}{
		{name: "first load creates the table", path: good,
			wantOut: []string{"created table " + table, "1 of 1 entries (100%)", "1 entries in ",
				"users:         1 new, 0 replaced"}},
		{name: "second load replaces", path: good,
			wantOut: []string{"1 of 1 entries (100%)", "users:         0 new, 1 replaced"}},
		{name: "a refused file names the entry", path: bad, wantErr: "members[0] (id "},
		{name: "a missing file", path: filepath.Join(dir, "nope.json"), wantErr: "open fixture"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			err := run(ctx, tt.path, targetLocal, &out)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("run = %v, want an error saying %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			for _, want := range tt.wantOut {
				if !strings.Contains(out.String(), want) {
					t.Errorf("output %q does not say %q", out.String(), want)
				}
			}
			if tt.path == good &&
				strings.Contains(out.String(), "created table") != (tt.name == "first load creates the table") {
				t.Errorf("output %q: the table is created on the first load only", out.String())
			}
		})
	}
	store := dynamo.New(client, table)
	if acct, err := store.Credentials(ctx, "seed@example.com"); err != nil || acct == nil ||
		acct.PasswordHash != "pbkdf2_sha256$1$s$x" {
		t.Errorf("loaded user: %+v, %v", acct, err)
	}
	if acct, err := store.Credentials(ctx, "refused@example.com"); err != nil || acct != nil {
		t.Errorf("the refused file's user: %+v, %v; want none", acct, err)
	}
}
