package comments_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-lambda-go/lambdacontext"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/awslabs/aws-lambda-go-api-proxy/httpadapter"
	"github.com/google/uuid"
	"github.com/reportingplatform/api/functions/comments"
	"github.com/reportingplatform/api/infra/testkit"
)

// deployment is one way a client reaches the deployed API, and deliver what API Gateway's REST API then
// hands the function for a URL the client calls there.
type deployment struct {
	name    string
	origin  string // scheme, host and base path a client calls
	deliver func(t *testing.T, u *url.URL) events.APIGatewayProxyRequest
}

// restEvent is the proxy event of a GET of the comment list, with the paths API Gateway reports: path
// (the event's), requestContext.path (what the client called) and the resource.
func restEvent(u *url.URL, path, calledPath, token string) events.APIGatewayProxyRequest {
	headers := map[string][]string{
		"Host": {u.Host}, "X-Forwarded-Proto": {"https"}, "Authorization": {"Bearer " + token},
		// A client can send any X-Forwarded-Host, and API Gateway passes it on: it must not move the links.
		"X-Forwarded-Host": {"attacker.example"},
	}
	single := map[string]string{}
	for k, vs := range headers {
		single[k] = vs[0]
	}
	query := map[string]string{}
	for k, vs := range u.Query() {
		query[k] = vs[len(vs)-1]
	}
	return events.APIGatewayProxyRequest{
		Resource: "/api/v1/comments", Path: path, HTTPMethod: http.MethodGet,
		Headers: single, MultiValueHeaders: headers,
		QueryStringParameters: query, MultiValueQueryStringParameters: u.Query(),
		RequestContext: events.APIGatewayProxyRequestContext{
			ResourcePath: "/api/v1/comments", Path: calledPath, HTTPMethod: http.MethodGet, Stage: "Prod",
			DomainName: u.Host, RequestID: uuid.NewString(),
			Identity: events.APIGatewayRequestIdentity{SourceIP: "192.0.2.7"},
		},
	}
}

// deployments: a custom domain whose base path mapping "reports" names the Prod stage, the same
// domain's root mapped to it, and the execute-api URL, where the stage is the first segment. The event's
// path keeps a mapping but not the stage; requestContext.path is what the client called in each case.
func deployments(token string) []deployment {
	return []deployment{
		{"custom domain with a base path mapping", "https://api.example.com/reports",
			func(t *testing.T, u *url.URL) events.APIGatewayProxyRequest {
				if u.Host != "api.example.com" || !strings.HasPrefix(u.Path, "/reports/api/") {
					t.Fatalf("a link leaves the custom domain's mapping: %s", u)
				}
				return restEvent(u, u.Path, u.Path, token)
			}},
		{"custom domain at its root", "https://api.example.com",
			func(t *testing.T, u *url.URL) events.APIGatewayProxyRequest {
				if u.Host != "api.example.com" || !strings.HasPrefix(u.Path, "/api/") {
					t.Fatalf("a link leaves the custom domain's root: %s", u)
				}
				return restEvent(u, u.Path, u.Path, token)
			}},
		{"execute-api URL with its stage", "https://abc123.execute-api.eu-west-1.amazonaws.com/Prod",
			func(t *testing.T, u *url.URL) events.APIGatewayProxyRequest {
				rest, ok := strings.CutPrefix(u.Path, "/Prod/")
				if u.Host != "abc123.execute-api.eu-west-1.amazonaws.com" || !ok {
					t.Fatalf("a link leaves the stage: %s", u)
				}
				return restEvent(u, "/"+rest, u.Path, token)
			}},
	}
}

// TestLinksFollowTheURLTheClientCalled: next and previous are built from what API Gateway says the client
// called (requestContext.domainName and requestContext.path), so that behind a custom domain they carry
// its base path mapping and no stage, and through the execute-api URL the stage; a client walks the list
// both ways by following them.
func TestLinksFollowTheURLTheClientCalled(t *testing.T) {
	e := setup(t)
	th := e.thread("report")
	var all []map[string]any
	for range 5 {
		all = append(all, e.readJSON(t, th.add("", "")))
	}
	th.load(t)
	h := comments.New(e.db.Store, testkit.Log(t), func() time.Time { return e.now })
	h.SetBudget(testkit.TestBudget)
	adapter := httpadapter.New(h)

	for _, d := range deployments(e.tokens["alice"]) {
		t.Run(d.name, func(t *testing.T) {
			get := func(link string) testkit.Response {
				t.Helper()
				u, err := url.Parse(link)
				if err != nil {
					t.Fatal(err)
				}
				ctx := lambdacontext.NewContext(context.Background(), &lambdacontext.LambdaContext{AwsRequestID: uuid.NewString()})
				resp, err := adapter.ProxyWithContext(ctx, d.deliver(t, u))
				if err != nil {
					t.Fatalf("GET %s: %v", link, err)
				}
				return testkit.Response{Status: resp.StatusCode, Body: []byte(resp.Body)}
			}
			list := d.origin + "/api/v1/comments/?content_type=report&object_id=" + th.objectID
			linked := d.origin + "/api/v1/comments/?content_type=report&cursor=C&object_id=" + th.objectID
			page1 := linked + "&page_size=2"
			page2 := linked + "&page=2&page_size=2"
			page3 := linked + "&page=3&page_size=2"

			// Followed links carry continuations: the pages they reach are read from where the last
			// one ended (a page and one entry, whatever the page's number), through each deployment's
			// paths.
			follow := func(link *string) testkit.Response {
				t.Helper()
				e.db.Calls.Reset()
				resp := get(*link)
				if limits := queryLimits(e.db.Calls); len(limits) != 1 || limits[0] != 3 {
					t.Fatalf("%s read index entries %v, want one Query of 3 from its continuation", *link, limits)
				}
				return resp
			}
			first := get(list + "&page_size=2")
			masked(t, first).Expect(t, 200, listJSON(5, &page2, nil, all[0:2]...))
			second := follow(next(t, first))
			masked(t, second).Expect(t, 200, listJSON(5, &page3, &page1, all[2:4]...))
			third := follow(next(t, second))
			masked(t, third).Expect(t, 200, listJSON(5, nil, &page2, all[4:]...))
			back := follow(previous(t, third))
			masked(t, back).Expect(t, 200, listJSON(5, &page3, &page1, all[2:4]...))
			masked(t, follow(previous(t, back))).Expect(t, 200, listJSON(5, &page2, nil, all[0:2]...))
		})
	}
}

// queryLimits are the Limits of the Queries of the keys-only indexes calls recorded (not the page's
// Query of GSI6, whose Limit is the page's entries).
func queryLimits(calls *testkit.Calls) []int32 {
	var out []int32
	for _, in := range calls.Inputs() {
		if q, ok := in.(*dynamodb.QueryInput); ok && aws.ToString(q.IndexName) != "GSI6" {
			out = append(out, aws.ToInt32(q.Limit))
		}
	}
	return out
}

func listJSON(count int, next, previous *string, results ...map[string]any) string {
	return list(count, next, previous, results...)
}

func next(t *testing.T, r testkit.Response) *string     { return link(t, r, "next") }
func previous(t *testing.T, r testkit.Response) *string { return link(t, r, "previous") }

func link(t *testing.T, r testkit.Response, name string) *string {
	t.Helper()
	s, ok := r.Object(t)[name].(string)
	if !ok {
		t.Fatalf("%s is not a link: %s", name, r.Body)
	}
	return &s
}
