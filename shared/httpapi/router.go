package httpapi

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"sort"
	"strings"
	"time"

	"github.com/awslabs/aws-lambda-go-api-proxy/core"
	"github.com/reportingplatform/api/shared/domain"
	"github.com/reportingplatform/api/shared/metrics"
)

// HandlerFunc is a handler that returns its error instead of writing it, so that every error is
// rendered by WriteError.
type HandlerFunc func(w http.ResponseWriter, r *http.Request) error

// Route is one method and path pattern a Router serves.
type Route struct {
	Method  string
	Pattern string // e.g. "/api/v1/comments/{id}/"
	Open    bool   // needs no token (SPEC §1: login, the schema, the docs); every other route needs one
}

type route struct {
	Route
	segments []string
	handler  HandlerFunc
}

// Router serves a function's routes. A pattern matches its path with or without the trailing slash
// (SPEC §1: no redirect, a redirect loses a POST body); `{name}` matches one segment, read with
// r.PathValue(name). Unknown paths answer DRF's 404, known paths with another method DRF's 405, in
// DRF's order of checks: on a path that needs a token the caller is authenticated first, so that a
// request without valid credentials gets its 401 whatever its method (SPEC §1). A CORS preflight from
// an allowed origin (AllowOrigins) is answered by the router itself.
type Router struct {
	routes  []route
	log     *slog.Logger
	budget  time.Duration
	origins map[string]bool // AllowOrigins; empty: no CORS
	auth    *Authenticator  // checks the token of a method that a path needing one does not serve
	metrics *metrics.Recorder
}

// RequestBudget is how long a request may wait for its store in all (SPEC §9: a 503 within 6 s of
// arriving, never a hang; a slow store, each call up to 700 ms, still answers a request of four
// sequential calls and a lost write's resends). The DynamoDB client's own per-attempt timeouts and retries (dynamo.NewClient)
// fit inside it; whatever is still waiting when it ends is given up and answered 503 with Retry-After.
// The functions' Lambda timeout (template.yaml) sits above it, API Gateway's 29 s further above.
const RequestBudget = 4500 * time.Millisecond

// answerMargin is kept free before the Lambda's own deadline, to write the 503 before Lambda ends the
// invocation (which API Gateway would turn into a 502 without our body or headers).
const answerMargin = 200 * time.Millisecond

// NewRouter returns an empty router that logs to log.
func NewRouter(log *slog.Logger) *Router { return &Router{log: log, budget: RequestBudget} }

// SetBudget replaces RequestBudget for this router. Tests lift it (testkit.Gateway): on a shared, busy
// machine a request may wait seconds for the CPU, which is not what they test. A deployment keeps the
// default.
func (rt *Router) SetBudget(d time.Duration) { rt.budget = d }

// SetMetrics makes the router count its 503s by cause (SPEC §9: operators see a slow or failing store).
func (rt *Router) SetMetrics(m *metrics.Recorder) { rt.metrics = m }

// UseAuthenticator sets how the router checks the token of a request whose method a path needing one
// does not serve; the handlers of the path check their own. Call it before Handle.
func (rt *Router) UseAuthenticator(a *Authenticator) { rt.auth = a }

// Handle registers h for method and pattern, a route that needs the caller's token (h authenticates
// the request itself, with the first data it reads).
func (rt *Router) Handle(method, pattern string, h HandlerFunc) {
	if rt.auth == nil {
		panic(fmt.Sprintf("httpapi: %s %s needs a token, and the router has no authenticator (UseAuthenticator)",
			method, pattern))
	}
	rt.add(Route{Method: method, Pattern: pattern}, h)
}

// HandleOpen registers h for method and pattern, a route that needs no token.
func (rt *Router) HandleOpen(method, pattern string, h HandlerFunc) {
	rt.add(Route{Method: method, Pattern: pattern, Open: true}, h)
}

func (rt *Router) add(r Route, h HandlerFunc) {
	rt.routes = append(rt.routes, route{Route: r, segments: splitPath(r.Pattern), handler: h})
}

// Routes lists what the router serves, for the tests that hold handlers, template.yaml and openapi.yaml
// together.
func (rt *Router) Routes() []Route {
	out := make([]Route, len(rt.routes))
	for i, r := range rt.routes {
		out[i] = r.Route
	}
	return out
}

// Matches tells whether the route serves a request of method for path (without its query), as the
// router matches them: for the tests that name the route of a request they send.
func (r Route) Matches(method, path string) bool {
	_, ok := match(splitPath(r.Pattern), splitPath(path))
	return ok && r.Method == method
}

// splitPath drops one leading and one trailing slash, no more: "/x//" (or an encoded "/x/%2F/") has an
// empty segment and matches nothing.
func splitPath(p string) []string {
	return strings.Split(strings.TrimSuffix(strings.TrimPrefix(p, "/"), "/"), "/")
}

// ServeHTTP runs the matching handler with a request id, a request logger and a recover that turns a
// panic into DRF's 500.
func (rt *Router) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	reqID, called := gatewayContext(r)
	log := rt.log.With("request_id", reqID)
	ctx, cancel := context.WithDeadline(r.Context(), rt.deadline(r.Context(), start))
	defer cancel()
	ctx = context.WithValue(ctx, ctxKey{}, requestInfo{id: reqID, log: log, basePath: called.base, host: called.host,
		metrics: rt.metrics})
	r = r.WithContext(ctx)
	w.Header().Set("X-Request-Id", reqID)
	preflight := rt.cors(w.Header(), r)
	rec := &statusRecorder{ResponseWriter: w}
	defer func() {
		if p := recover(); p != nil {
			WriteError(rec, r, fmt.Errorf("panic: %v", p))
		}
		log.Info("request", "method", r.Method, "path", r.URL.Path, "status", rec.status,
			"duration_ms", time.Since(start).Milliseconds())
	}()
	// Behind a custom domain the event's path carries the base path mapping too; handlers, and the links
	// they build (BasePath + the resource's path), see the resource's path alone.
	path := called.resourcePath(r.URL.Path)
	if path != r.URL.Path {
		u := *r.URL
		u.Path, u.RawPath = path, ""
		r.URL = &u
	}
	err := rt.dispatch(rec, r, path, preflight)
	if err == nil && rec.status == 0 {
		err = fmt.Errorf("handler for %s %s wrote no response", r.Method, path)
	}
	if err != nil {
		WriteError(rec, r, err)
	}
}

// deadline is the end of the request's budget, or earlier when the Lambda invocation (whose deadline
// the adapter puts on the request's context) ends sooner.
func (rt *Router) deadline(ctx context.Context, start time.Time) time.Time {
	d := start.Add(rt.budget)
	if lambda, ok := ctx.Deadline(); ok && lambda.Add(-answerMargin).Before(d) {
		d = lambda.Add(-answerMargin)
	}
	return d
}

// dispatch runs the route of r's method and path. A preflight (from an allowed origin) on a known path is
// answered 204 before any handler, so before authentication: a browser sends no credentials with it.
// A method the path does not serve is answered 405 to anyone on a path that needs no token, and only to
// an authenticated caller on one that does (one read of the session; SPEC §1: DRF authenticates before
// it looks up the method).
func (rt *Router) dispatch(w http.ResponseWriter, r *http.Request, path string, preflight bool) error {
	segs := splitPath(path)
	// HEAD is GET without the body, as Django serves it.
	method := r.Method
	if method == http.MethodHead {
		method, w = http.MethodGet, headWriter{w}
	}
	var allowed []string
	needsToken := false
	for _, rte := range rt.routes {
		params, ok := match(rte.segments, segs)
		if !ok {
			continue
		}
		needsToken = needsToken || !rte.Open
		if rte.Method != method {
			allowed = append(allowed, rte.Method)
			if rte.Method == http.MethodGet {
				allowed = append(allowed, http.MethodHead)
			}
			continue
		}
		for k, v := range params {
			r.SetPathValue(k, v)
		}
		return rte.handler(w, r)
	}
	if len(allowed) == 0 {
		return domain.NotFound()
	}
	sort.Strings(allowed)
	if preflight {
		writePreflight(w, allowed)
		return nil
	}
	if needsToken {
		if _, err := rt.auth.Authenticate(r); err != nil {
			return err
		}
	}
	w.Header().Set("Allow", strings.Join(allowed, ", "))
	return domain.Errorf(domain.EMETHOD, "Method \"%s\" not allowed.", r.Method)
}

func match(pattern, path []string) (map[string]string, bool) {
	if len(pattern) != len(path) {
		return nil, false
	}
	var params map[string]string
	for i, p := range pattern {
		if path[i] == "" {
			return nil, false
		}
		if strings.HasPrefix(p, "{") && strings.HasSuffix(p, "}") {
			if params == nil {
				params = map[string]string{}
			}
			params[p[1:len(p)-1]] = path[i]
			continue
		}
		if p != path[i] {
			return nil, false
		}
	}
	return params, true
}

// SourceIP returns the caller's address as API Gateway saw it (requestContext.identity.sourceIp: the
// connection's, which a client cannot forge the way it can X-Forwarded-For); empty outside API Gateway.
func SourceIP(ctx context.Context) string {
	if gw, ok := core.GetAPIGatewayContextFromContext(ctx); ok {
		return gw.Identity.SourceIP
	}
	return ""
}

type ctxKey struct{}

type requestInfo struct {
	id       string
	log      *slog.Logger
	basePath string
	host     string // the domain the client called, as API Gateway says; "" outside it
	metrics  *metrics.Recorder
}

func info(ctx context.Context) requestInfo {
	ri, _ := ctx.Value(ctxKey{}).(requestInfo)
	if ri.log == nil {
		ri.log = slog.Default()
	}
	return ri
}

// Logger returns the logger of the request, which carries its request id.
func Logger(ctx context.Context) *slog.Logger { return info(ctx).log }

// RequestID returns the id of the request (API Gateway's where there is one).
func RequestID(ctx context.Context) string { return info(ctx).id }

// BasePath returns what the client's path had in front of the resource's path: the API Gateway stage
// ("/Prod") through the execute-api URL, the base path mapping ("/reports") behind a custom domain,
// empty at a custom domain's root and locally without a stage.
func BasePath(ctx context.Context) string { return info(ctx).basePath }

// headWriter answers HEAD: the headers and status of GET, no body.
type headWriter struct{ http.ResponseWriter }

func (h headWriter) Write(b []byte) (int, error) { return len(b), nil }

// statusRecorder remembers the status for the access log and makes sure one is always written: the
// proxy adapter fails on a response without a status.
type statusRecorder struct {
	http.ResponseWriter
	status int
}

func (s *statusRecorder) WriteHeader(code int) {
	if s.status == 0 {
		s.status = code
		s.ResponseWriter.WriteHeader(code)
	}
}

func (s *statusRecorder) Write(b []byte) (int, error) {
	if s.status == 0 {
		s.WriteHeader(http.StatusOK)
	}
	return s.ResponseWriter.Write(b)
}
