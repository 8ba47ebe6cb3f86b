package httpapi

import (
	"net/http"
	"strings"
)

// CORS, answered by the functions rather than API Gateway (template.yaml's CorsAllowedOrigins says
// why): the router knows each path's methods, and every real response comes from a function anyway.
const (
	// corsAllowHeaders are the request headers a browser may send: the Bearer token, the JSON body's
	// media type and a create's Idempotency-Key (SPEC §9). No cookies are involved, so
	// Access-Control-Allow-Credentials is never sent.
	corsAllowHeaders = "Authorization, Content-Type, " + IdempotencyHeader
	// corsExposeHeaders are the response headers, beyond the CORS-safelisted ones, that a page may read.
	corsExposeHeaders = "Retry-After, X-Request-Id"
	// corsMaxAge is how long (seconds) a browser may reuse a preflight answer.
	corsMaxAge = "600"
)

// AllowOrigins lets browsers on these origins call the API (CORS). Each must be exactly as a browser
// sends it in Origin (config.FromEnv reads and normalises CORS_ALLOWED_ORIGINS): the match is exact
// and case-sensitive, with no wildcards. Empty (the default) means no CORS at all: no CORS header on
// any response, and OPTIONS is a 405 like any other method a path does not serve. Call it before the
// router serves (a main's wiring).
func (rt *Router) AllowOrigins(origins []string) {
	rt.origins = make(map[string]bool, len(origins))
	for _, o := range origins {
		rt.origins[o] = true
	}
}

// cors adds the CORS headers every response to r carries, before the handler runs, so that errors
// (401, 404, a recovered panic's 500, the budget's 503) have them too. It reports whether r is a
// preflight from an allowed origin, which dispatch answers instead of a 405.
//
// With a list, every response varies on Origin, whether the origin is in it or not: a shared cache
// must not hand one origin's answer (with or without Access-Control-Allow-Origin) to another.
func (rt *Router) cors(h http.Header, r *http.Request) (preflight bool) {
	if len(rt.origins) == 0 {
		return false
	}
	h.Add("Vary", "Origin")
	origin := r.Header.Get("Origin")
	if !rt.origins[origin] {
		return false
	}
	h.Set("Access-Control-Allow-Origin", origin)
	if r.Method == http.MethodOptions && r.Header.Get("Access-Control-Request-Method") != "" {
		return true
	}
	h.Set("Access-Control-Expose-Headers", corsExposeHeaders)
	return false
}

// writePreflight answers a preflight for a path that serves the methods allowed: 204 without a body.
// Access-Control-Allow-Methods is the path's Allow list whichever method the browser asked about; the
// browser itself refuses one that is not in it.
func writePreflight(w http.ResponseWriter, allowed []string) {
	h := w.Header()
	h.Set("Access-Control-Allow-Methods", strings.Join(allowed, ", "))
	h.Set("Access-Control-Allow-Headers", corsAllowHeaders)
	h.Set("Access-Control-Max-Age", corsMaxAge)
	w.WriteHeader(http.StatusNoContent)
}
