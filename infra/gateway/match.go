package gateway

import (
	"fmt"
	"net/url"
	"strings"
)

// segmentKind orders path parts by how specific they are: API Gateway prefers a literal part to a
// {name} part, and a {name} part to a greedy {name+} part, whatever the order of declaration.
type segmentKind int

const (
	greedySegment segmentKind = iota
	paramSegment
	literalSegment
)

type segment struct {
	kind  segmentKind
	value string // the literal text, or the parameter name without braces and "+"
}

// resource is one API Gateway resource: a path shape and the methods declared on it. Routes that
// differ only by a trailing slash are the same resource, as API Gateway ignores that slash.
type resource struct {
	segments []segment
	methods  map[string]Route // by method, MethodAny included
}

// routeMatch is the outcome of routing one request.
type routeMatch struct {
	route  Route
	params map[string]string // nil when the resource has no parameters, as API Gateway sends null
	// staged is true when the request path started with the stage ("/Prod/api/..."), as it does
	// when a deployed API is called through its execute-api URL rather than a custom domain.
	staged bool
	path   string // the escaped request path without the stage
}

// parsePattern splits a declared path into segments. A trailing slash is dropped: the REST API
// has no resource for "/x/" distinct from "/x".
func parsePattern(path string) ([]segment, error) {
	trimmed := strings.Trim(path, "/")
	if trimmed == "" {
		return nil, nil
	}
	parts := strings.Split(trimmed, "/")
	segs := make([]segment, 0, len(parts))
	for i, p := range parts {
		switch {
		case p == "":
			return nil, fmt.Errorf("path %q has an empty segment", path)
		case strings.HasPrefix(p, "{") && strings.HasSuffix(p, "+}"):
			name := p[1 : len(p)-2]
			if name == "" {
				return nil, fmt.Errorf("path %q has an unnamed greedy parameter", path)
			}
			if i != len(parts)-1 {
				return nil, fmt.Errorf("path %q: greedy parameter {%s+} must be the last segment", path, name)
			}
			segs = append(segs, segment{kind: greedySegment, value: name})
		case strings.HasPrefix(p, "{") && strings.HasSuffix(p, "}"):
			name := p[1 : len(p)-1]
			if name == "" {
				return nil, fmt.Errorf("path %q has an unnamed parameter", path)
			}
			segs = append(segs, segment{kind: paramSegment, value: name})
		case strings.ContainsAny(p, "{}"):
			return nil, fmt.Errorf("path %q: segment %q mixes literal text and a parameter", path, p)
		default:
			segs = append(segs, segment{kind: literalSegment, value: p})
		}
	}
	return segs, nil
}

// shapeKey identifies a resource regardless of parameter names: "/a/{id}" and "/a/{pk}" are the
// same position in API Gateway's resource tree, which refuses such siblings.
func shapeKey(segs []segment) string { return pathKey(segs, false) }

// namesKey is shapeKey with the parameter names, to detect siblings that name a parameter
// differently.
func namesKey(segs []segment) string { return pathKey(segs, true) }

// pathKey writes segs back as a path, each parameter with its name when named is true.
func pathKey(segs []segment, named bool) string {
	var b strings.Builder
	for _, s := range segs {
		name := ""
		if named {
			name = s.value
		}
		b.WriteByte('/')
		switch s.kind {
		case greedySegment:
			b.WriteString("{" + name + "+}")
		case paramSegment:
			b.WriteString("{" + name + "}")
		default:
			b.WriteString(s.value)
		}
	}
	return b.String()
}

// matchSegments matches an escaped request path, split on "/", against a resource. Values are
// URL-decoded, as API Gateway decodes pathParameters; literals are compared decoded too.
func matchSegments(pattern []segment, parts []string) (map[string]string, bool) {
	var params map[string]string
	set := func(name, value string) {
		if params == nil {
			params = make(map[string]string)
		}
		params[name] = value
	}
	for i, seg := range pattern {
		if seg.kind == greedySegment {
			rest := parts[i:]
			if len(rest) == 0 || rest[0] == "" {
				return nil, false
			}
			value, err := url.PathUnescape(strings.Join(rest, "/"))
			if err != nil {
				return nil, false
			}
			set(seg.value, value)
			return params, true
		}
		if i >= len(parts) || parts[i] == "" {
			return nil, false
		}
		value, err := url.PathUnescape(parts[i])
		if err != nil {
			return nil, false
		}
		if seg.kind == literalSegment {
			if value != seg.value {
				return nil, false
			}
			continue
		}
		set(seg.value, value)
	}
	if len(parts) != len(pattern) {
		return nil, false
	}
	return params, true
}

// splitPath splits an escaped path into its segments; "/" gives no segment at all.
func splitPath(escaped string) []string {
	trimmed := strings.TrimPrefix(escaped, "/")
	if trimmed == "" {
		return nil
	}
	return strings.Split(trimmed, "/")
}

// match matches one resource against the request path, first as sent, then without one
// trailing slash: a REST API routes "/x/" to the "/x" resource. The first attempt lets a greedy
// parameter keep the trailing slash in its value.
func (res *resource) match(parts []string) (map[string]string, bool) {
	if params, ok := matchSegments(res.segments, parts); ok {
		return params, true
	}
	if n := len(parts); n > 0 && parts[n-1] == "" {
		return matchSegments(res.segments, parts[:n-1])
	}
	return nil, false
}

// moreSpecific reports whether a should win over b when both match the same path.
func moreSpecific(a, b []segment) bool {
	for i := 0; i < len(a) && i < len(b); i++ {
		if a[i].kind != b[i].kind {
			return a[i].kind > b[i].kind
		}
	}
	return len(a) > len(b)
}

// resolve finds the most specific resource matching the escaped path, then the method on it:
// the exact method first, then ANY. As in API Gateway, a resource without the method is not a
// reason to try a less specific resource; the request simply matches no route.
func resolve(resources []*resource, escapedPath, method string) (Route, map[string]string, bool) {
	parts := splitPath(escapedPath)
	var best *resource
	var bestParams map[string]string
	for _, res := range resources {
		params, ok := res.match(parts)
		if !ok {
			continue
		}
		if best == nil || moreSpecific(res.segments, best.segments) {
			best, bestParams = res, params
		}
	}
	if best == nil {
		return Route{}, nil, false
	}
	if route, ok := best.methods[method]; ok {
		return route, bestParams, true
	}
	if route, ok := best.methods[MethodAny]; ok {
		return route, bestParams, true
	}
	return Route{}, nil, false
}
