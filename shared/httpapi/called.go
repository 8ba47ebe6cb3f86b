package httpapi

import (
	"net/http"
	"strings"

	"github.com/awslabs/aws-lambda-go-api-proxy/core"
	"github.com/google/uuid"
)

// called is what API Gateway says about the URL the client called, which the function cannot see
// otherwise: a custom domain may map a base path ("/reports") to the stage, and the execute-api URL
// carries the stage ("/Prod").
type called struct {
	host     string // requestContext.domainName; "" outside API Gateway
	base     string // what the client's path had in front of the resource's path
	segments int    // how many segments the resource's path has; 0 when unknown
}

// gatewayContext returns API Gateway's request id and what the client called, when the request came
// through API Gateway. This is the one place the stage and the base path mapping are known: the router
// strips them and pagination links put them back.
//
// The REST API's event says it in three places. requestContext.resourcePath is the resource
// ("/api/v1/comments/{id}"), requestContext.path the path the client called: "/Prod/api/v1/comments/x/"
// through the execute-api URL, "/reports/api/v1/comments/x/" behind a custom domain that maps
// "reports" to the stage, "/api/v1/comments/x/" at a custom domain's root. The event's own path has
// the stage removed but not the mapping. So the base is what requestContext.path has in front of as many
// segments as the resource has; a name in it ("/api" as a stage or a mapping) counts as nothing more.
// sam local start-api puts the resource in requestContext.path, which gives no base, as it serves none.
func gatewayContext(r *http.Request) (string, called) {
	gw, ok := core.GetAPIGatewayContextFromContext(r.Context())
	if !ok {
		return uuid.NewString(), called{}
	}
	reqID := gw.RequestID
	if reqID == "" {
		reqID = uuid.NewString()
	}
	c := called{host: gw.DomainName}
	if gw.Path != "" && gw.ResourcePath != "" {
		c.segments = len(segments(gw.ResourcePath))
		if clientSegs := segments(gw.Path); len(clientSegs) > c.segments {
			c.base = "/" + strings.Join(clientSegs[:len(clientSegs)-c.segments], "/")
		}
	}
	return reqID, c
}

// resourcePath is path (the event's) without the base path mapping in front of it. Through the
// execute-api URL the event's path has no stage in it already: it is cut only when the path has more
// segments than the resource, so a stage named like the resource's first segment stays.
func (c called) resourcePath(path string) string {
	if c.base == "" || c.segments == 0 || len(segments(path)) <= c.segments {
		return path
	}
	if rest, ok := strings.CutPrefix(path, c.base); ok && strings.HasPrefix(rest, "/") {
		return rest
	}
	return path
}

// segments are the path's segments, without the empty ones its leading and trailing slashes make.
func segments(p string) []string {
	p = strings.Trim(p, "/")
	if p == "" {
		return nil
	}
	return strings.Split(p, "/")
}

// calledHost is the host the client called: the domain API Gateway says it was (the custom domain or
// the execute-api domain), else the Host header, as Django's get_host reads it. X-Forwarded-Host is
// not honoured (Django's USE_X_FORWARDED_HOST is off by default): API Gateway passes on whatever a
// client sends in it, so it would let any client write the links the API hands out. A proxy in front
// of the local server keeps the Host it was called with (nginx's proxy_set_header Host $host).
func calledHost(r *http.Request) string {
	if h := info(r.Context()).host; h != "" {
		return h
	}
	if h := r.Header.Get("Host"); h != "" {
		return h
	}
	return r.Host
}
