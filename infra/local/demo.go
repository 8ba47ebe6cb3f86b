package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/reportingplatform/api/infra/fixture"
	"github.com/reportingplatform/api/shared/dynamo"
	"github.com/reportingplatform/api/shared/service"
)

// demoMarker is the item that says the demo fixture was loaded to the end. It is make run's own, in a
// partition that no key of the store (shared/dynamo/keys.go) begins with, and no function reads it. It is
// written last, so that a start stopped half-way (Ctrl-C, a store that stopped answering) leaves no
// marker and the next start loads the file again, which completes it (the loader is idempotent).
var demoMarker = map[string]types.AttributeValue{
	"PK": &types.AttributeValueMemberS{Value: "LOCAL#DEMO"},
	"SK": &types.AttributeValueMemberS{Value: "LOADED"},
}

// prepareTable creates the table when it is missing and loads the demo fixture (when demoPath is set)
// unless the marker says a start loaded it already. It uses a DynamoDB client of its own, the fixture
// loader's (dynamo.NewBulkClient: long attempts, many retries with backoff): a freshly started DynamoDB
// Local on a busy machine takes seconds a call, far beyond the API client's attempts, which are sized
// for a request's budget. within bounds the whole of it, so that a store that does not answer ends the
// start with an error rather than a wait without end.
func prepareTable(ctx context.Context, env service.Env, demoPath string, within time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, within)
	defer cancel()
	endpoint, table := env.Config.DynamoDBEndpoint, env.Config.TableName
	err := func() error {
		client, err := dynamo.NewLocalBulkClient(endpoint)
		if err != nil {
			return err
		}
		if _, err := fixture.EnsureTable(ctx, client, table); err != nil {
			return err
		}
		// Before the demo data, so that its invitation whose e-mail was never sent goes through the stream.
		if err := fixture.EnsureStream(ctx, client, table); err != nil {
			return err
		}
		if demoPath == "" {
			return nil
		}
		loaded, err := demoLoaded(ctx, client, table)
		if err != nil || loaded {
			return err
		}
		if err := loadDemo(ctx, dynamo.New(client, table), env, demoPath); err != nil {
			return err
		}
		item := map[string]types.AttributeValue{
			"fixture":   &types.AttributeValueMemberS{Value: demoPath},
			"loaded_at": &types.AttributeValueMemberS{Value: env.Now().UTC().Format(time.RFC3339)},
		}
		for k, v := range demoMarker {
			item[k] = v
		}
		if _, err := client.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: item}); err != nil {
			return fmt.Errorf("record the demo fixture as loaded: %w", err)
		}
		return nil
	}()
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return fmt.Errorf("DynamoDB at %s did not get table %s ready within %s (see -ready-within): %w",
			endpoint, table, within, err)
	}
	if err != nil {
		return fmt.Errorf("DynamoDB at %s, table %s: %w", endpoint, table, err)
	}
	return nil
}

// demoLoaded tells whether a start loaded the demo fixture to the end (demoMarker).
func demoLoaded(ctx context.Context, client *dynamodb.Client, table string) (bool, error) {
	out, err := client.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(table), Key: demoMarker,
		ConsistentRead: aws.Bool(true)})
	if err != nil {
		return false, fmt.Errorf("read the demo fixture's marker: %w", err)
	}
	return out.Item != nil, nil
}

func loadDemo(ctx context.Context, store fixture.Store, env service.Env, path string) error {
	file, err := fixture.ParseFile(path)
	if err != nil {
		return fmt.Errorf("demo fixture: %w", err)
	}
	summary, err := fixture.Load(ctx, store, file, env.Now(), env.Config.InvitationTTL)
	if err != nil {
		return fmt.Errorf("load demo fixture: %w", err)
	}
	fmt.Printf("loaded the demo fixture %s: %v\n", path, summary)
	return nil
}

// demoLogin is a user of infra/demo-data/demo.json whose login the banner shows.
type demoLogin struct {
	Email, Password, Shows string
}

var demoLogins = []demoLogin{
	{"admin@example.com", "demo-admin-2026", "staff"},
	{"grace@example.com", "demo-grace-2026", "administrator of Acme Analytics"},
	{"alan@example.com", "demo-alan-2026", "has a pending invitation to Acme Analytics"},
	{"edsger@example.com", "demo-edsger-2026", "member of Acme Analytics"},
}

// loginAttempts is how often a demo login is tried while it answers 503: the store may still be slow
// from the start-up (a cold DynamoDB Local), which is not a login that does not work.
const loginAttempts = 3

// checkLogins logs each demo user in through the server at base, as a client would (the gateway, the
// function, the store), and logs it out again. It returns the logins that answered 201, and for each
// other one what it answered: the banner prints only the first.
func checkLogins(ctx context.Context, base string) (working []demoLogin, problems []string) {
	client := &http.Client{Timeout: 15 * time.Second}
	for _, l := range demoLogins {
		status, body, err := login(ctx, client, base, l)
		for attempt := 1; attempt < loginAttempts && err == nil && status == http.StatusServiceUnavailable; attempt++ {
			select {
			case <-ctx.Done():
			case <-time.After(time.Second):
			}
			status, body, err = login(ctx, client, base, l)
		}
		switch {
		case err != nil:
			problems = append(problems, fmt.Sprintf("%s: %v", l.Email, err))
		case status != http.StatusCreated:
			problems = append(problems, fmt.Sprintf("%s: POST /api/v1/auth/login answered %d %s", l.Email, status,
				strings.TrimSpace(body)))
		default:
			working = append(working, l)
			logout(ctx, client, base, body)
		}
	}
	return working, problems
}

func login(ctx context.Context, client *http.Client, base string, l demoLogin) (int, string, error) {
	payload, err := json.Marshal(map[string]string{"username": l.Email, "password": l.Password})
	if err != nil {
		return 0, "", err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, base+"/api/v1/auth/login", bytes.NewReader(payload))
	if err != nil {
		return 0, "", err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	return resp.StatusCode, string(body), err
}

// logout revokes the token of a login's answer, so that each start leaves no token behind; a failure
// leaves one that expires (TOKEN_TTL).
func logout(ctx context.Context, client *http.Client, base, loginAnswer string) {
	var answer struct {
		Token string `json:"token"`
	}
	if json.Unmarshal([]byte(loginAnswer), &answer) != nil || answer.Token == "" {
		return
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, base+"/api/v1/auth/logout", nil)
	if err != nil {
		return
	}
	req.Header.Set("Authorization", "Bearer "+answer.Token)
	if resp, err := client.Do(req); err == nil {
		resp.Body.Close()
	}
}

// loginText is the banner's part about logging in: the demo logins that worked, and what the others
// answered.
func loginText(base string, working []demoLogin, problems []string) string {
	var b strings.Builder
	for i, l := range working {
		if i == 0 {
			fmt.Fprintf(&b, "Demo login (%s): %s / %s\n", l.Shows, l.Email, l.Password)
			fmt.Fprintf(&b, "  curl -s -X POST %s/api/v1/auth/login -H 'Content-Type: application/json' \\\n", base)
			fmt.Fprintf(&b, "       -d '{\"username\": %q, \"password\": %q}'\n", l.Email, l.Password)
			if len(working) > 1 {
				b.WriteString("Other demo users:\n")
			}
			continue
		}
		fmt.Fprintf(&b, "  %s / %s (%s)\n", l.Email, l.Password, l.Shows)
	}
	if len(problems) > 0 {
		b.WriteString("These demo logins did not work, so they are not shown:\n")
		for _, p := range problems {
			fmt.Fprintf(&b, "  %s\n", p)
		}
		b.WriteString("  (a store still slow from its start answers 503: try again shortly; a 400 means the table's " +
			"users are not demo.json's: make seed FILE=infra/demo-data/demo.json loads them again)\n")
	}
	return b.String()
}
