// Command local is `make run`: the Docker-free stand-in for `sam local start-api`. It creates the table
// in DynamoDB Local when missing, loads the demo fixture when it created the table, and serves the routes
// of template.yaml, turning each request into the API Gateway event the deployed function receives and
// handing it to that function's handler through aws-lambda-go-api-proxy, as in AWS. The functions of
// template.yaml's Schedule events it runs at their rate, as EventBridge does, and the function on the
// table's stream it hands DynamoDB Local's stream records, as Lambda's event source mapping does.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/reportingplatform/api/infra/fixture"
	"github.com/reportingplatform/api/infra/gateway"
	"github.com/reportingplatform/api/infra/stack"
	"github.com/reportingplatform/api/shared/service"
)

func main() {
	demo := flag.String("demo", "", "fixture to load when the table is created (first start)")
	stage := flag.String("stage", "Prod", "API Gateway stage name put in the events, as sam local does")
	flag.Parse()
	if err := run(*demo, *stage); err != nil {
		fmt.Fprintln(os.Stderr, "local:", err)
		os.Exit(1)
	}
}

func run(demoPath, stage string) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	env, err := service.Load(ctx)
	if err != nil {
		return err
	}
	if env.Config.DynamoDBEndpoint == "" {
		return errors.New("DYNAMODB_ENDPOINT is not set: the local server only runs against DynamoDB Local (use make run)")
	}
	created, err := fixture.EnsureTable(ctx, env.Client, env.Config.TableName)
	if err != nil {
		return err
	}
	// Before the demo data, so that its invitation whose e-mail was never sent goes through the stream too.
	if err := fixture.EnsureStream(ctx, env.Client, env.Config.TableName); err != nil {
		return err
	}
	if created && demoPath != "" {
		if err := loadDemo(ctx, env, demoPath); err != nil {
			return err
		}
	}
	gw, routes, err := api(env, stage)
	if err != nil {
		return err
	}
	srv := &http.Server{Addr: env.Config.APIAddr, Handler: gw, ReadHeaderTimeout: 10 * time.Second}
	errc := make(chan error, 1)
	go func() { errc <- srv.ListenAndServe() }()
	scheduled, err := schedules(ctx, env)
	if err != nil {
		return err
	}
	streamed, err := streams(ctx, env)
	if err != nil {
		return err
	}
	printBanner(env.Config.APIAddr, env.Config.TableName, env.Config.DynamoDBEndpoint, routes, scheduled, streamed)
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	fmt.Println("\nstopping")
	shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	return srv.Shutdown(shutdown)
}

// api is what the server serves: template.yaml's routes, each request turned into its API Gateway event
// and handed to its function as wired by infra/stack.
func api(env service.Env, stage string) (*gateway.Gateway, []gateway.Route, error) {
	templatePath, err := gateway.FindTemplate()
	if err != nil {
		return nil, nil, err
	}
	routes, err := gateway.LoadRoutes(templatePath)
	if err != nil {
		return nil, nil, err
	}
	handlers := map[string]http.Handler{}
	for id, h := range stack.Handlers(env.Store, env.Log, env.Config, env.Now) {
		handlers[id] = h
	}
	gw, err := gateway.New(routes, handlers, stage)
	if err != nil {
		return nil, nil, err
	}
	return gw, routes, nil
}

func loadDemo(ctx context.Context, env service.Env, path string) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("open demo fixture: %w", err)
	}
	defer f.Close()
	file, err := fixture.Parse(f)
	if err != nil {
		return fmt.Errorf("demo fixture: %w", err)
	}
	summary, err := fixture.Load(ctx, env.Store, file, env.Now(), env.Config.InvitationTTL)
	if err != nil {
		return fmt.Errorf("load demo fixture: %w", err)
	}
	fmt.Printf("loaded the demo fixture %s: %v\n", path, summary)
	return nil
}

func printBanner(addr, table, endpoint string, routes []gateway.Route, scheduled []stack.Schedule,
	streamed []string) {
	base := "http://" + addr
	fmt.Printf(`
Reporting Platform API on %[1]s  (table %[2]q in DynamoDB Local at %[3]s)
Routes from template.yaml:
`, base, table, endpoint)
	for _, r := range routes {
		fmt.Printf("  %-6s %-45s -> %s\n", r.Method, r.Path, r.Function)
	}
	if len(scheduled) > 0 {
		fmt.Println("Schedules from template.yaml (each also run at start):")
	}
	for _, s := range scheduled {
		fmt.Printf("  %-52s -> %s\n", s.Expression, s.Function)
	}
	for _, fn := range streamed {
		fmt.Printf("The table's stream (read from DynamoDB Local as Lambda reads it) -> %s\n", fn)
	}
	fmt.Printf(`
API docs, every operation in a browser: %[1]s/api/docs/  (the OpenAPI document: %[1]s/api/schema/)
Demo login (staff): admin@example.com / demo-admin-2026
  curl -s -X POST %[1]s/api/v1/auth/login -H 'Content-Type: application/json' \
       -d '{"username": "admin@example.com", "password": "demo-admin-2026"}'
Other demo users: grace@example.com / demo-grace-2026 (administrator of Acme Analytics),
  alan@example.com / demo-alan-2026 (has a pending invitation to Acme Analytics),
  edsger@example.com / demo-edsger-2026 (member of Acme Analytics)
Then send "Authorization: Bearer <token>", e.g.
  curl -s '%[1]s/api/v1/comments/?content_type=report&object_id=8ae83b59-9621-58f7-ae8c-5a712269c424&page_size=5' -H "Authorization: Bearer $TOKEN"
  curl -s %[1]s/api/v1/organization-invitations/dd92a61d-d137-5059-b15b-6cf08719aa9c/ -H "Authorization: Bearer $TOKEN"
Ctrl-C stops the server and the DynamoDB Local it started.
`, base)
}
