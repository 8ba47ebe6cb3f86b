package httpapi

import (
	"context"
	"net/http/httptest"
	"testing"

	"github.com/aws/aws-lambda-go/events"
	"github.com/awslabs/aws-lambda-go-api-proxy/core"
)

// TestWhatTheClientCalled: the base path is what requestContext.path has in front of the resource's
// segments, and the router routes the event's path without it.
func TestWhatTheClientCalled(t *testing.T) {
	for _, tc := range []struct {
		name                           string
		eventPath, calledPath, resPath string
		wantBase, wantRouted           string
	}{
		{"execute-api URL", "/api/v1/comments/", "/Prod/api/v1/comments/", "/api/v1/comments", "/Prod", "/api/v1/comments/"},
		{"execute-api, an id, no slash", "/api/v1/comments/x", "/Prod/api/v1/comments/x", "/api/v1/comments/{id}", "/Prod",
			"/api/v1/comments/x"},
		{"custom domain mapping", "/reports/api/v1/comments/", "/reports/api/v1/comments/", "/api/v1/comments", "/reports",
			"/api/v1/comments/"},
		{"custom domain, two-segment mapping", "/a/b/api/v1/comments/x/", "/a/b/api/v1/comments/x/",
			"/api/v1/comments/{id}", "/a/b", "/api/v1/comments/x/"},
		{"custom domain root", "/api/v1/comments/", "/api/v1/comments/", "/api/v1/comments", "", "/api/v1/comments/"},
		{"a mapping named api", "/api/api/v1/comments/", "/api/api/v1/comments/", "/api/v1/comments", "/api",
			"/api/v1/comments/"},
		{"a stage named api", "/api/v1/comments/", "/api/api/v1/comments/", "/api/v1/comments", "/api", "/api/v1/comments/"},
		{"sam local start-api: the resource as requestContext.path", "/api/v1/comments/x/", "/api/v1/comments/{id}",
			"/api/v1/comments/{id}", "", "/api/v1/comments/x/"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := (&core.RequestAccessor{}).EventToRequestWithContext(context.Background(), events.APIGatewayProxyRequest{
				HTTPMethod: "GET", Path: tc.eventPath, Resource: tc.resPath,
				RequestContext: events.APIGatewayProxyRequestContext{
					Path: tc.calledPath, ResourcePath: tc.resPath, RequestID: "req", DomainName: "h"},
			})
			if err != nil {
				t.Fatal(err)
			}
			id, c := gatewayContext(r)
			if id != "req" || c.base != tc.wantBase || c.host != "h" {
				t.Fatalf("gatewayContext = %q, %+v; want req, base %q, host h", id, c, tc.wantBase)
			}
			if got := c.resourcePath(r.URL.Path); got != tc.wantRouted {
				t.Fatalf("resourcePath(%q) = %q, want %q", r.URL.Path, got, tc.wantRouted)
			}
		})
	}
}

// TestRequestURLIsTheDomainTheClientCalled: through API Gateway the host is requestContext.domainName;
// neither a Host header a proxy rewrote nor an X-Forwarded-Host a client sent moves it.
func TestRequestURLIsTheDomainTheClientCalled(t *testing.T) {
	r := httptest.NewRequest("GET", "https://internal.example/api/v1/comments/?a=1", nil)
	r.Header.Set("Host", "upstream.internal")
	r.Header.Set("X-Forwarded-Host", "attacker.example")
	r.Header.Set("X-Forwarded-Proto", "https")
	r = r.WithContext(context.WithValue(r.Context(), ctxKey{}, requestInfo{host: "api.example.com", basePath: "/reports"}))
	if got := RequestURL(r).String(); got != "https://api.example.com/reports/api/v1/comments/?a=1" {
		t.Fatalf("got %s", got)
	}
}
