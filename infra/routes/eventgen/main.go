// Command eventgen writes, for each route of infra/routes whose event file is not in events/ yet, the
// event of its sample on the demo data (infra/demo-data/demo.json), as API Gateway sends it to the
// function through the Prod stage, and its status into events/expected.json, for `sam local invoke`:
//
//	go generate ./infra/routes
//
// The files already there are left as they are: they may be edited by hand (another demo object, a
// body closer to a client's), and TestEventFilesCoverEveryRoute holds them to their route.
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"

	"github.com/google/uuid"
	"github.com/reportingplatform/api/infra/gateway"
	"github.com/reportingplatform/api/infra/routes"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "eventgen:", err)
		os.Exit(1)
	}
}

// The host and client the events claim, as the other files of events/ do.
const (
	host     = "a1b2c3d4e5.execute-api.us-east-1.amazonaws.com"
	clientIP = "198.51.100.7"
)

func run() error {
	tpl, err := gateway.FindTemplate()
	if err != nil {
		return err
	}
	declared, err := gateway.LoadRoutes(tpl)
	if err != nil {
		return err
	}
	handlers := map[string]http.Handler{} // only asked to build events: no handler runs
	for _, r := range declared {
		handlers[r.Function] = http.NotFoundHandler()
	}
	gw, err := gateway.New(declared, handlers, "Prod")
	if err != nil {
		return err
	}
	dir := filepath.Join(filepath.Dir(tpl), "events")
	expectedPath := filepath.Join(dir, "expected.json")
	raw, err := os.ReadFile(expectedPath)
	if err != nil {
		return err
	}
	var expected map[string]int
	if err := json.Unmarshal(raw, &expected); err != nil {
		return fmt.Errorf("%s: %w", expectedPath, err)
	}
	for _, r := range routes.All {
		path := filepath.Join(dir, r.Event)
		if _, err := os.Stat(path); !errors.Is(err, fs.ErrNotExist) {
			continue
		}
		ev, err := event(gw, r)
		if err != nil {
			return err
		}
		if err := os.WriteFile(path, ev, 0o644); err != nil {
			return err
		}
		expected[r.Event] = r.Sample.Status
		fmt.Println("wrote events/" + r.Event)
	}
	out, err := json.MarshalIndent(expected, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(expectedPath, append(out, '\n'), 0o644)
}

// event is r's sample on the demo data, with a placeholder of the token of the demo user it is sent as,
// which the tests and `make sam-local` replace with a token from a login.
func event(gw *gateway.Gateway, r routes.Route) ([]byte, error) {
	world := routes.World{
		Value: func(name string) (string, bool) {
			if name == "n" {
				return "1", true
			}
			return routes.DemoValue(name)
		},
		Token:    func(caller string) string { return "<token:" + routes.DemoUsers[caller] + ">" },
		NewToken: func(caller string) string { return "<token:" + routes.DemoUsers[caller] + ">" },
	}
	req, err := r.In(world)
	if err != nil {
		return nil, fmt.Errorf("%w; or write events/%s by hand, as a copy of another route's", err, r.Event)
	}
	hr := httptest.NewRequest(req.Method, "https://"+host+"/Prod"+req.Path, strings.NewReader(req.Body))
	hr.RemoteAddr = clientIP + ":50123"
	hr.Header.Set("User-Agent", "curl/8.5.0")
	hr.Header.Set("Accept", "application/json")
	if req.Body != "" {
		hr.Header.Set("Content-Type", "application/json")
	}
	if req.Token != "" {
		hr.Header.Set("Authorization", "Bearer "+req.Token)
	}
	ev, fn, ok := gw.Event(hr, []byte(req.Body))
	if !ok || fn != r.Function {
		return nil, fmt.Errorf("%s: template.yaml routes its sample to %q", r.Name(), fn)
	}
	// What does not depend on the request is fixed, so that a file written again is the same file.
	ev.RequestContext.RequestID = uuid.NewSHA1(uuid.NameSpaceURL, []byte("events/"+r.Event)).String()
	ev.RequestContext.ExtendedRequestID = "Bx3Q2HxyIAMEXAMPLE="
	ev.RequestContext.AccountID, ev.RequestContext.APIID, ev.RequestContext.ResourceID =
		"123456789012", "a1b2c3d4e5", "r35ou7"
	ev.RequestContext.RequestTime, ev.RequestContext.RequestTimeEpoch = "26/Nov/2026:06:00:00 +0000", 1795672800000
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(ev); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}
