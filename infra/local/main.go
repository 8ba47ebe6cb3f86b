// Command local is `make run`: the Docker-free stand-in for `sam local start-api`. It creates the table
// in DynamoDB Local when missing, loads the demo fixture until a start has loaded it to the end, and
// serves the routes of template.yaml, turning each request into the API Gateway event the deployed
// function receives and handing it to that function's handler through aws-lambda-go-api-proxy, as in
// AWS. The functions of template.yaml's Schedule events it runs at their rate, as EventBridge does, and
// the function on the table's stream it hands DynamoDB Local's stream records, as Lambda's event source
// mapping does.
// Before it prints a demo login it logs in with it through the server.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/reportingplatform/api/infra/gateway"
	"github.com/reportingplatform/api/infra/wiring"
	"github.com/reportingplatform/api/shared/service"
)

func main() {
	demo := flag.String("demo", "", "fixture to load until a start has loaded it to the end (first start)")
	stage := flag.String("stage", "Prod", "API Gateway stage name put in the events, as sam local does")
	readyWithin := flag.Duration("ready-within", 10*time.Minute,
		"how long the table and the demo data may take before the start gives up")
	flag.Parse()
	if err := run(*demo, *stage, *readyWithin); err != nil {
		fmt.Fprintln(os.Stderr, "local:", err)
		os.Exit(1)
	}
}

func run(demoPath, stage string, readyWithin time.Duration) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	env, err := service.Load(ctx)
	if err != nil {
		return err
	}
	if env.Config.DynamoDBEndpoint == "" {
		return errors.New("DYNAMODB_ENDPOINT is not set: the local server only runs against DynamoDB Local (use make run)")
	}
	if err := prepareTable(ctx, env, demoPath, readyWithin); err != nil {
		return err
	}
	slow, closeSlow, err := slowStore(ctx, &env)
	if err != nil {
		return err
	}
	defer closeSlow()
	gw, routes, err := api(env, stage)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", env.Config.APIAddr)
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: gw, ReadHeaderTimeout: 10 * time.Second}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	scheduled, err := schedules(ctx, env)
	if err != nil {
		return err
	}
	streamed, err := streams(ctx, env)
	if err != nil {
		return err
	}
	addr := ln.Addr().String()
	working, problems := checkLogins(ctx, "http://"+addr)
	printBanner(addr, env.Config.TableName, env.Config.DynamoDBEndpoint, routes, scheduled, streamed,
		loginText("http://"+addr, working, problems), slow)
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
// and handed to its function as wired by infra/wiring.
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
	for id, h := range wiring.Handlers(env.Store, env.Log, env.Config, env.Now) {
		handlers[id] = h
	}
	gw, err := gateway.New(routes, handlers, stage)
	if err != nil {
		return nil, nil, err
	}
	return gw, routes, nil
}

func printBanner(addr, table, endpoint string, routes []gateway.Route, scheduled []wiring.Schedule,
	streamed []string, logins, slow string) {
	base := "http://" + addr
	fmt.Printf(`
Reporting Platform API on %[1]s  (table %[2]q in DynamoDB Local at %[3]s)
`, base, table, endpoint)
	if slow != "" {
		fmt.Printf("Slow store: %s\n", slow)
	}
	fmt.Println("Routes from template.yaml:")
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
%[2]sThen send "Authorization: Bearer <token>", e.g.
  curl -s '%[1]s/api/v1/comments/?content_type=report&object_id=8ae83b59-9621-58f7-ae8c-5a712269c424&page_size=5' -H "Authorization: Bearer $TOKEN"
  curl -s %[1]s/api/v1/organization-invitations/dd92a61d-d137-5059-b15b-6cf08719aa9c/ -H "Authorization: Bearer $TOKEN"
Ctrl-C stops the server and the DynamoDB Local it started.
`, base, logins)
}
