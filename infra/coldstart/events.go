package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/aws/aws-lambda-go/events"
	"github.com/reportingplatform/api/infra/gateway"
)

// APIHost is the execute-api host the events claim to come through, so that links in responses are
// what a client of the deployed stage gets.
const APIHost = "a1b2c3d4e5.execute-api.us-east-1.amazonaws.com"

// What the harness asks of the demo fixture (infra/demo-data/demo.json).
const (
	DemoAdminEmail    = "admin@example.com"
	DemoAdminPassword = "demo-admin-2026"
	DemoInvitationID  = "dd92a61d-d137-5059-b15b-6cf08719aa9c"
	DemoReportID      = "8ae83b59-9621-58f7-ae8c-5a712269c424"
)

// Events builds API Gateway REST (payload 1.0) events with infra/gateway from template.yaml's routes,
// as the deployed API would send them for a client calling the execute-api URL, stage prefix included.
type Events struct {
	gw *gateway.Gateway
}

// NewEvents reads the routes of the template at path.
func NewEvents(templatePath string) (*Events, error) {
	routes, err := gateway.LoadRoutes(templatePath)
	if err != nil {
		return nil, err
	}
	// The gateway is only asked to route and build events: no handler ever runs.
	handlers := make(map[string]http.Handler)
	for _, r := range routes {
		handlers[r.Function] = http.NotFoundHandler()
	}
	gw, err := gateway.New(routes, handlers, "Prod")
	if err != nil {
		return nil, err
	}
	return &Events{gw: gw}, nil
}

// Event is the event for method and pathQuery ("/api/v1/…?…", sent under /Prod), with a Bearer token
// when token is set and a JSON body when body is; function is the logical id of the route's function.
func (e *Events) Event(method, pathQuery, token,
	body string) (ev events.APIGatewayProxyRequest, function string, err error) {
	r := httptest.NewRequest(method, "https://"+APIHost+"/Prod"+pathQuery, strings.NewReader(body))
	r.RemoteAddr = "198.51.100.7:50123"
	r.Header.Set("User-Agent", "coldstart/1.0")
	r.Header.Set("Accept", "application/json")
	if body != "" {
		r.Header.Set("Content-Type", "application/json")
	}
	if token != "" {
		r.Header.Set("Authorization", "Bearer "+token)
	}
	ev, function, ok := e.gw.Event(r, []byte(body))
	if !ok {
		return ev, "", fmt.Errorf("event: no route in template.yaml for %s %s", method, pathQuery)
	}
	return ev, function, nil
}

// Payload is Event marshalled as Lambda delivers it.
func (e *Events) Payload(method, pathQuery, token, body string) ([]byte, string, error) {
	ev, fn, err := e.Event(method, pathQuery, token, body)
	if err != nil {
		return nil, "", err
	}
	b, err := json.Marshal(ev)
	return b, fn, err
}

// Scenario is the request a function is measured with. Next gives the payload of the i-th
// invocation, so that a request which must differ each time (a new user's email) can.
type Scenario struct {
	Function string
	Status   int // the answer every invocation must get
	Next     func(i int) ([]byte, error)
}

// Scenarios are one typical request per function, plus the hello-world baseline fed the comments
// list event. token is the demo administrator's (from a login through AuthFunction).
func (e *Events) Scenarios(token, runID string) ([]Scenario, error) {
	fixed := func(method, pathQuery, body string, status int) (Scenario, error) {
		_, fn, err := e.Payload(method, pathQuery, token, body)
		if err != nil {
			return Scenario{}, err
		}
		return Scenario{Function: fn, Status: status, Next: func(int) ([]byte, error) {
			b, _, err := e.Payload(method, pathQuery, token, body)
			return b, err
		}}, nil
	}
	list := "/api/v1/comments/?content_type=report&object_id=" + DemoReportID + "&page_size=5"
	login, err := fixed(http.MethodPost, "/api/v1/auth/login", LoginBody(DemoAdminEmail, DemoAdminPassword),
		http.StatusCreated)
	if err != nil {
		return nil, err
	}
	invitation, err := fixed(http.MethodGet, "/api/v1/organization-invitations/"+DemoInvitationID+"/", "", http.StatusOK)
	if err != nil {
		return nil, err
	}
	comments, err := fixed(http.MethodGet, list, "", http.StatusOK)
	if err != nil {
		return nil, err
	}
	hello := comments
	hello.Function = HelloWorld
	users := Scenario{Function: "UsersFunction", Status: http.StatusCreated, Next: func(i int) ([]byte, error) {
		b, _, err := e.Payload(http.MethodPost, "/api/v1/users/", token,
			NewUserBody(fmt.Sprintf("coldstart-%s-%d@example.com", runID, i)))
		return b, err
	}}
	if _, fn, err := e.Payload(http.MethodPost, "/api/v1/users/", token,
		NewUserBody("x@example.com")); err != nil || fn != users.Function {
		return nil, fmt.Errorf("scenarios: POST /api/v1/users/ is served by %q, not %s: %v", fn, users.Function, err)
	}
	return []Scenario{login, users, invitation, comments, hello}, nil
}

// LoginBody is a login request's body.
func LoginBody(email, password string) string {
	return mustJSON(map[string]string{"username": email, "password": password})
}

// NewUserBody is the body of a staff user creation.
func NewUserBody(email string) string {
	const pw = "a-Long-pass-2026"
	return mustJSON(map[string]string{"email": email, "password": pw, "confirm_password": pw, "full_name": "Cold Start"})
}

func mustJSON(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic(err)
	}
	return strings.TrimSpace(b.String())
}

// ProxyResponse decodes a function's answer.
func ProxyResponse(res Result) (events.APIGatewayProxyResponse, error) {
	var out events.APIGatewayProxyResponse
	if res.ErrorType != "" {
		return out, fmt.Errorf("function error %s: %s", res.ErrorType, res.Body)
	}
	if err := json.Unmarshal(res.Body, &out); err != nil {
		return out, fmt.Errorf("answer is not an API Gateway proxy response: %w: %.200s", err, res.Body)
	}
	return out, nil
}
