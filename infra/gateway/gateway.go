package gateway

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-lambda-go/lambdacontext"
	"github.com/awslabs/aws-lambda-go-api-proxy/httpadapter"
	"github.com/google/uuid"
)

// MaxBodyBytes is API Gateway's payload limit: a REST API refuses larger requests before any
// function runs.
const MaxBodyBytes = 10 << 20

// Bodies of the responses the gateway itself produces, byte for byte as the deployed API sends them.
const (
	// notFoundBody is template.yaml's MISSING_AUTHENTICATION_TOKEN gateway response (status 404),
	// which replaces API Gateway's 403 {"message":"Missing Authentication Token"} for paths and
	// methods no function declares.
	notFoundBody = `{"detail": "Not found."}`
	// tooLargeBody is API Gateway's REQUEST_TOO_LARGE response (413).
	tooLargeBody = `{"message":"Request Too Long"}`
	// internalErrorBody is what API Gateway answers (502) when the function fails or returns a
	// response it cannot use, in template.yaml's DEFAULT_5XX gateway response.
	internalErrorBody = `{"detail": "A server error occurred."}`
	// badRequestBody answers a request whose body could not be read (the client went away).
	badRequestBody = `{"message": "Bad Request"}`
)

// Gateway serves HTTP like API Gateway's REST API in front of the functions: it matches the request
// to a route, builds the events.APIGatewayProxyRequest the deployed function would receive, runs the
// function's handler through httpadapter.New(handler).ProxyWithContext, and writes the proxy
// response back. It holds no mutable state, so one Gateway serves concurrent requests.
type Gateway struct {
	resources []*resource
	adapters  map[string]*httpadapter.HandlerAdapter // by function logical id, built once
	stage     string
}

// New builds a Gateway for the routes, each served by the handler registered under its function's
// logical id. A route without a handler, or a handler without a route, is an error: either means the
// template and the code disagree about which functions exist, which would otherwise only show as a
// 404 or an untested function.
func New(routes []Route, handlers map[string]http.Handler, stage string) (*Gateway, error) {
	if stage == "" || strings.Contains(stage, "/") {
		return nil, fmt.Errorf("new gateway: invalid stage name %q", stage)
	}
	g := &Gateway{adapters: make(map[string]*httpadapter.HandlerAdapter, len(handlers)), stage: stage}
	byShape := make(map[string]*resource)
	names := make(map[string]string)
	for _, rt := range routes {
		h, ok := handlers[rt.Function]
		if !ok || h == nil {
			return nil, fmt.Errorf("new gateway: route %s %s names function %q, which has no handler", rt.Method,
				rt.Path, rt.Function)
		}
		if _, ok := g.adapters[rt.Function]; !ok {
			g.adapters[rt.Function] = httpadapter.New(h)
		}
		if err := addRoute(byShape, names, &g.resources, rt); err != nil {
			return nil, fmt.Errorf("new gateway: %w", err)
		}
	}
	var orphans []string
	for fn := range handlers {
		if _, ok := g.adapters[fn]; !ok {
			orphans = append(orphans, fn)
		}
	}
	if len(orphans) > 0 {
		sort.Strings(orphans)
		return nil, fmt.Errorf("new gateway: no route for handler(s) %s", strings.Join(orphans, ", "))
	}
	return g, nil
}

// addRoute files a route under its resource, refusing what API Gateway's deployment would refuse:
// the same method twice on one resource, and sibling parameters with different names.
func addRoute(byShape map[string]*resource, names map[string]string, resources *[]*resource, rt Route) error {
	segs, err := parsePattern(rt.Path)
	if err != nil {
		return fmt.Errorf("route %s of %s: %w", rt.Method, rt.Function, err)
	}
	method := strings.ToUpper(rt.Method)
	if !validMethods[method] {
		return fmt.Errorf("route %s %s of %s: unknown method", rt.Method, rt.Path, rt.Function)
	}
	rt.Method = method
	shape := shapeKey(segs)
	res, ok := byShape[shape]
	if !ok {
		res = &resource{segments: segs, methods: make(map[string]Route)}
		byShape[shape] = res
		names[shape] = namesKey(segs)
		*resources = append(*resources, res)
	} else if named := namesKey(segs); named != names[shape] {
		return fmt.Errorf("route %s %s of %s: conflicts with sibling resource %s", rt.Method, rt.Path, rt.Function,
			names[shape])
	}
	if prev, dup := res.methods[method]; dup {
		return fmt.Errorf("route %s %s of %s: already served by %s (%s)", method, rt.Path, rt.Function,
			prev.Function, prev.Path)
	}
	res.methods[method] = rt
	return nil
}

// match routes r. The stage prefix is accepted but not required: the deployed API is reached both
// through its execute-api URL ("/Prod/api/...") and through a custom domain ("/api/..."), and
// sam local start-api serves the latter.
func (g *Gateway) match(r *http.Request) (routeMatch, bool) {
	escaped := r.URL.EscapedPath()
	if escaped == "" {
		escaped = "/"
	}
	if rt, params, ok := resolve(g.resources, escaped, r.Method); ok {
		return routeMatch{route: rt, params: params, path: escaped}, true
	}
	prefix := "/" + g.stage
	if rest, found := strings.CutPrefix(escaped, prefix); found && (rest == "" || rest[0] == '/') {
		if rest == "" {
			rest = "/"
		}
		if rt, params, ok := resolve(g.resources, rest, r.Method); ok {
			return routeMatch{route: rt, params: params, staged: true, path: rest}, true
		}
	}
	return routeMatch{}, false
}

// Event builds the API Gateway proxy event for r (exported so tests can build events the same way)
// and the function of the route it matched; ok=false when no route matches. Each call draws a new
// request id, as each call to API Gateway does.
func (g *Gateway) Event(r *http.Request, body []byte) (ev events.APIGatewayProxyRequest, fn string, ok bool) {
	m, ok := g.match(r)
	if !ok {
		return events.APIGatewayProxyRequest{}, "", false
	}
	return g.event(r, body, m, uuid.NewString()), m.route.Function, true
}

func (g *Gateway) event(r *http.Request, body []byte, m routeMatch, requestID string) events.APIGatewayProxyRequest {
	now := time.Now()
	sourceIP := clientIP(r.RemoteAddr)
	headers, multiHeaders := eventHeaders(r, sourceIP)
	query, multiQuery := eventQuery(r.URL.RawQuery)
	ev := events.APIGatewayProxyRequest{
		Resource:                        m.route.Path,
		Path:                            m.path,
		HTTPMethod:                      r.Method,
		Headers:                         headers,
		MultiValueHeaders:               multiHeaders,
		QueryStringParameters:           query,
		MultiValueQueryStringParameters: multiQuery,
		PathParameters:                  m.params,
		RequestContext: events.APIGatewayProxyRequestContext{
			ResourcePath:     m.route.Path,
			Path:             m.path,
			HTTPMethod:       r.Method,
			RequestID:        requestID,
			Stage:            g.stage,
			DomainName:       r.Host,
			Protocol:         r.Proto,
			RequestTime:      now.UTC().Format("02/Jan/2006:15:04:05 -0700"),
			RequestTimeEpoch: now.UnixMilli(),
			Identity: events.APIGatewayRequestIdentity{
				SourceIP:  sourceIP,
				UserAgent: r.UserAgent(),
			},
		},
	}
	if m.staged {
		ev.RequestContext.Path = "/" + g.stage + m.path
	}
	if utf8.Valid(body) {
		ev.Body = string(body)
	} else {
		ev.Body = base64.StdEncoding.EncodeToString(body)
		ev.IsBase64Encoded = true
	}
	return ev
}

// eventHeaders gives the headers in both of payload 1.0's forms (the single-value map keeps the
// last value) plus those API Gateway adds: Host, which Go moves out of r.Header, and X-Forwarded-*.
func eventHeaders(r *http.Request, sourceIP string) (map[string]string, map[string][]string) {
	multi := make(map[string][]string, len(r.Header)+4)
	for k, vs := range r.Header {
		multi[k] = append([]string(nil), vs...)
	}
	multi["Host"] = []string{r.Host}
	// API Gateway appends the caller's address to any X-Forwarded-For the caller sent.
	xff := sourceIP
	if prev := strings.Join(r.Header.Values("X-Forwarded-For"), ", "); prev != "" {
		xff = prev + ", " + sourceIP
	}
	multi["X-Forwarded-For"] = []string{xff}
	// A proxy in front of the local server may have said how the client connected; otherwise say
	// how the client reached us. Deployed, this is always https and 443.
	if len(multi["X-Forwarded-Proto"]) == 0 {
		proto := "http"
		if r.TLS != nil {
			proto = "https"
		}
		multi["X-Forwarded-Proto"] = []string{proto}
	}
	if len(multi["X-Forwarded-Port"]) == 0 {
		multi["X-Forwarded-Port"] = []string{forwardedPort(r.Host, multi["X-Forwarded-Proto"][0])}
	}
	single := make(map[string]string, len(multi))
	for k, vs := range multi {
		if len(vs) > 0 {
			single[k] = vs[len(vs)-1]
		}
	}
	return single, multi
}

func forwardedPort(host, proto string) string {
	if _, port, err := net.SplitHostPort(host); err == nil && port != "" {
		return port
	}
	if proto == "https" {
		return "443"
	}
	return "80"
}

// eventQuery decodes the query string; both maps are nil without a query, as API Gateway sends
// null rather than an empty object.
func eventQuery(rawQuery string) (map[string]string, map[string][]string) {
	if rawQuery == "" {
		return nil, nil
	}
	// Pairs are split at "&" only (url.ParseQuery would drop a pair holding ";", which API Gateway
	// passes on as text); a pair that does not decode is dropped and the rest kept.
	values := url.Values{}
	for _, pair := range strings.Split(rawQuery, "&") {
		if pair == "" {
			continue
		}
		k, v, _ := strings.Cut(pair, "=")
		key, err1 := url.QueryUnescape(k)
		val, err2 := url.QueryUnescape(v)
		if err1 != nil || err2 != nil {
			continue
		}
		values[key] = append(values[key], val)
	}
	if len(values) == 0 {
		return nil, nil
	}
	single := make(map[string]string, len(values))
	for k, vs := range values {
		single[k] = vs[len(vs)-1]
	}
	return single, values
}

func clientIP(remoteAddr string) string {
	if host, _, err := net.SplitHostPort(remoteAddr); err == nil {
		return host
	}
	return remoteAddr
}

// ServeHTTP routes r to its function through the Lambda proxy adapter, answering as API Gateway
// does when no route matches, the body is too large or the function fails.
func (g *Gateway) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	// A declared oversize body is refused before routing, as API Gateway refuses it on arrival.
	if r.ContentLength > MaxBodyBytes {
		writeGatewayError(w, http.StatusRequestEntityTooLarge, tooLargeBody, uuid.NewString())
		return
	}
	m, ok := g.match(r)
	if !ok {
		writeGatewayError(w, http.StatusNotFound, notFoundBody, uuid.NewString())
		return
	}
	requestID := uuid.NewString()
	body, err := readBody(r.Body)
	if errors.Is(err, errBodyTooLarge) {
		writeGatewayError(w, http.StatusRequestEntityTooLarge, tooLargeBody, requestID)
		return
	}
	if err != nil {
		log.Printf("gateway: %s %s: %v", r.Method, r.URL.Path, err)
		writeGatewayError(w, http.StatusBadRequest, badRequestBody, requestID)
		return
	}
	ev := g.event(r, body, m, requestID)
	resp, err := g.invoke(r.Context(), m.route.Function, ev)
	if err != nil {
		log.Printf("gateway: %s %s -> %s: %v", r.Method, r.URL.Path, m.route.Function, err)
		writeGatewayError(w, http.StatusBadGateway, internalErrorBody, requestID)
		return
	}
	writeProxyResponse(w, resp, requestID)
}

var errBodyTooLarge = errors.New("request body exceeds API Gateway's payload limit")

func readBody(body io.Reader) ([]byte, error) {
	if body == nil {
		return nil, nil
	}
	data, err := io.ReadAll(io.LimitReader(body, MaxBodyBytes+1))
	if err != nil {
		return nil, fmt.Errorf("read request body: %w", err)
	}
	if len(data) > MaxBodyBytes {
		return nil, errBodyTooLarge
	}
	return data, nil
}

// invoke runs the function as the Lambda runtime would: with a Lambda context carrying its own
// request id, and with a panic turned into a failed invocation (which API Gateway answers with 502)
// instead of a dropped connection.
func (g *Gateway) invoke(ctx context.Context, function string,
	ev events.APIGatewayProxyRequest) (resp events.APIGatewayProxyResponse, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("invoke %s: panic: %v", function, p)
		}
	}()
	ctx = lambdacontext.NewContext(ctx, &lambdacontext.LambdaContext{AwsRequestID: uuid.NewString()})
	resp, err = g.adapters[function].ProxyWithContext(ctx, ev)
	if err != nil {
		return resp, fmt.Errorf("invoke %s: %w", function, err)
	}
	if resp.StatusCode < 100 || resp.StatusCode > 599 {
		return resp, fmt.Errorf("invoke %s: malformed proxy response: status %d", function, resp.StatusCode)
	}
	if resp.IsBase64Encoded {
		if _, err := base64.StdEncoding.DecodeString(resp.Body); err != nil {
			return resp, fmt.Errorf("invoke %s: malformed proxy response: base64 body: %w", function, err)
		}
	}
	return resp, nil
}

// hopByHop are response headers the gateway sets itself: a function's value would either be wrong
// (the body may have been decoded) or meaningless across the proxy.
var hopByHop = map[string]bool{"Content-Length": true, "Transfer-Encoding": true, "Connection": true}

// writeProxyResponse writes a function's response. As in API Gateway, multiValueHeaders and
// headers are merged, a pair present in both appearing once; a response without Content-Type is
// sent as application/json, the REST API's default.
func writeProxyResponse(w http.ResponseWriter, resp events.APIGatewayProxyResponse, requestID string) {
	h := w.Header()
	for k, vs := range resp.MultiValueHeaders {
		if hopByHop[http.CanonicalHeaderKey(k)] {
			continue
		}
		for _, v := range vs {
			h.Add(k, v)
		}
	}
	for k, v := range resp.Headers {
		if hopByHop[http.CanonicalHeaderKey(k)] || slices.Contains(h.Values(k), v) {
			continue
		}
		h.Add(k, v)
	}
	if h.Get("Content-Type") == "" {
		h.Set("Content-Type", "application/json")
	}
	h.Set("X-Amzn-Requestid", requestID)
	body := []byte(resp.Body)
	if resp.IsBase64Encoded {
		// Validated in invoke.
		body, _ = base64.StdEncoding.DecodeString(resp.Body)
	}
	w.WriteHeader(resp.StatusCode)
	_, _ = w.Write(body)
}

// writeGatewayError writes a response produced by the gateway itself rather than by a function. It
// carries the request id as X-Request-Id (and as API Gateway's own x-amzn-RequestId) so that even a
// request no function saw can be traced in the logs.
func writeGatewayError(w http.ResponseWriter, status int, body, requestID string) {
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("X-Request-Id", requestID)
	h.Set("X-Amzn-Requestid", requestID)
	w.WriteHeader(status)
	_, _ = io.WriteString(w, body)
}
