// Package contract holds every handler test to openapi.yaml, the repository's published description of the
// seed interface. Tests call ValidateExchange on each request they send with its answer (Validate on an
// answer alone), so a handler cannot drift from the document that clients are given: a renamed field, a
// wrong type, a missing required field, an undeclared status or a non-JSON error fails the test that
// produced it, and so does a request the document forbids that the API answered with success.
package contract

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"
)

// specFile is the document's name at the module root.
const specFile = "openapi.yaml"

// Operation is one (method, path template) pair that openapi.yaml declares, such as
// {"GET", "/api/v1/comments/{id}/"}.
type Operation struct{ Method, Path string }

// spec is the loaded document with what validation needs, built once per test binary.
type spec struct {
	doc         *openapi3.T
	router      routers.Router
	errorDetail *openapi3.Schema
}

var (
	loadOnce   sync.Once
	loaded     *spec
	errLoading error
)

// load reads and validates openapi.yaml once: every test in a package shares it, and an invalid document
// is reported by every caller rather than silently accepting everything.
func load() (*spec, error) {
	loadOnce.Do(func() { loaded, errLoading = loadSpec() })
	return loaded, errLoading
}

// loadSpec finds openapi.yaml at the module root, so tests work whatever package directory they run in.
func loadSpec() (*spec, error) {
	wd, err := os.Getwd()
	if err != nil {
		return nil, fmt.Errorf("contract: working directory: %w", err)
	}
	root, err := moduleRoot(wd)
	if err != nil {
		return nil, err
	}
	data, err := os.ReadFile(filepath.Join(root, specFile))
	if err != nil {
		return nil, fmt.Errorf("contract: %w", err)
	}
	return parseSpec(data)
}

// moduleRoot walks up from dir to the directory holding go.mod.
func moduleRoot(dir string) (string, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("contract: %w", err)
	}
	for d := dir; ; {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return d, nil
		}
		parent := filepath.Dir(d)
		if parent == d {
			return "", fmt.Errorf("contract: no go.mod above %s", dir)
		}
		d = parent
	}
}

// parseSpec loads and validates a document and prepares its router.
func parseSpec(data []byte) (*spec, error) {
	ctx := context.Background()
	doc, err := openapi3.NewLoader().LoadFromData(data)
	if err != nil {
		return nil, fmt.Errorf("contract: loading %s: %w", specFile, err)
	}
	if err := doc.Validate(ctx); err != nil {
		return nil, fmt.Errorf("contract: %s is invalid: %w", specFile, err)
	}
	// The router matches the host and scheme of the servers entries; tests use httptest hosts and
	// API Gateway stage prefixes are stripped before Validate, so route on paths alone.
	routed := *doc
	routed.Servers = nil
	router, err := gorillamux.NewRouter(&routed)
	if err != nil {
		return nil, fmt.Errorf("contract: routing %s: %w", specFile, err)
	}
	ref := doc.Components.Schemas["ErrorDetail"]
	if ref == nil || ref.Value == nil {
		return nil, fmt.Errorf("contract: %s has no ErrorDetail schema", specFile)
	}
	return &spec{doc: doc, router: router, errorDetail: ref.Value}, nil
}

// Operations lists every (METHOD, path template) that openapi.yaml declares, sorted by path then method,
// so that a test can check that every declared operation has a route and a test.
func Operations() ([]Operation, error) {
	s, err := load()
	if err != nil {
		return nil, err
	}
	return s.operations(), nil
}

func (s *spec) operations() []Operation {
	var ops []Operation
	for path, item := range s.doc.Paths.Map() {
		for method := range item.Operations() {
			ops = append(ops, Operation{Method: strings.ToUpper(method), Path: path})
		}
	}
	sort.Slice(ops, func(i, j int) bool {
		if ops[i].Path != ops[j].Path {
			return ops[i].Path < ops[j].Path
		}
		return ops[i].Method < ops[j].Method
	})
	return ops
}

// Validate checks one exchange against openapi.yaml: the operation must exist for (method, path) — the
// path may be given with or without its trailing slash and with a stage prefix already stripped — and the
// response status, headers (Content-Type application/json, or the text type the operation declares, such
// as the schema's YAML) and body must match that operation's declared
// response for the status. Exchanges with no declared operation (an unknown path, or a method the path does
// not have) are the service's 404 and 405: their body must be a DRF {"detail": "..."} error. It calls
// tb.Fatalf on any mismatch, with the body in the message, so the failing test names the exchange.
func Validate(tb testing.TB, method, path string, query url.Values, status int, header http.Header, body []byte) {
	tb.Helper()
	s, err := load()
	if err != nil {
		tb.Fatalf("%v", err)
		return
	}
	if err := s.check(method, path, query, status, header, body); err != nil {
		tb.Fatalf("contract: %s %s -> %d does not match %s: %v\nbody: %s", method, path, status, specFile, err, body)
	}
}

// check is Validate without the testing.TB, so the package's own tests can assert on failures.
func (s *spec) check(method, path string, query url.Values, status int, header http.Header, body []byte) error {
	if status == http.StatusNoContent {
		// DRF's 204 has no body. (Nor a Content-Type, but API Gateway gives a proxy response without
		// one its default, application/json, and so does infra/gateway.)
		if len(body) != 0 {
			return fmt.Errorf("a 204 with a body of %d bytes", len(body))
		}
		route, _, err := s.findRoute(method, path, query)
		if err != nil {
			return fmt.Errorf("routing: %w", err)
		}
		if route.Operation.Responses.Status(http.StatusNoContent) == nil {
			return fmt.Errorf("operation %s %s declares no 204", method, route.Path)
		}
		return nil
	}
	route, params, err := s.findRoute(method, path, query)
	switch {
	case errors.Is(err, routers.ErrPathNotFound), errors.Is(err, routers.ErrMethodNotAllowed):
		if err := checkJSON(header, body); err != nil {
			return err
		}
		return s.checkUndeclared(status, body)
	case err != nil:
		return fmt.Errorf("routing: %w", err)
	}
	if text, err := declaredText(route, status, header); err != nil || text {
		return err
	}
	if err := checkJSON(header, body); err != nil {
		return err
	}
	opts := &openapi3filter.Options{
		IncludeResponseStatus: true,
		MultiError:            true,
		SchemaValidationOptions: []openapi3.SchemaValidationOption{
			openapi3.WithStringFormatValidators(stringFormats),
		},
	}
	in := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: &openapi3filter.RequestValidationInput{
			Request:     newRequest(method, route.Path, query),
			PathParams:  params,
			QueryParams: query,
			Route:       route,
			Options:     opts,
		},
		Status:  status,
		Header:  header,
		Options: opts,
	}
	in.SetBodyBytes(body)
	if err := openapi3filter.ValidateResponse(context.Background(), in); err != nil {
		return fmt.Errorf("operation %s %s: %w", method, route.Path, err)
	}
	return nil
}

// findRoute resolves the operation for (method, path). The service answers both trailing-slash forms of
// every path, so when the given form is not declared the other one is tried.
func (s *spec) findRoute(method, path string, query url.Values) (*routers.Route, map[string]string, error) {
	route, params, err := s.router.FindRoute(newRequest(method, path, query))
	if !errors.Is(err, routers.ErrPathNotFound) {
		return route, params, err
	}
	other := path + "/"
	if strings.HasSuffix(path, "/") {
		other = strings.TrimSuffix(path, "/")
	}
	if other == "" {
		return route, params, err
	}
	return s.router.FindRoute(newRequest(method, other, query))
}

// checkUndeclared holds responses for exchanges outside the document (404 for an unknown path, 405 for an
// unknown method) to the one shape the service may answer them with: an error status and a DRF detail body.
func (s *spec) checkUndeclared(status int, body []byte) error {
	if status < 400 {
		return fmt.Errorf("no operation is declared for this method and path, yet status %d is not an error", status)
	}
	value, err := decodeJSON(body)
	if err != nil {
		return err
	}
	if err := s.errorDetail.VisitJSON(value, openapi3.VisitAsResponse()); err != nil {
		return fmt.Errorf("undeclared operation: body is not a DRF {\"detail\": \"...\"} error: %w", err)
	}
	return nil
}

// checkJSON holds a response to JSON: its Content-Type and a body of one JSON value (kin-openapi decodes
// only the first JSON value of a body; a body with trailing bytes is still broken).
func checkJSON(header http.Header, body []byte) error {
	if err := checkJSONContentType(header); err != nil {
		return err
	}
	if !json.Valid(body) {
		return errors.New("body is not a single valid JSON value")
	}
	return nil
}

// declaredText reports whether the response is one of the operation's text answers (the schema as YAML,
// the docs page and its files): a media type other than JSON that the operation declares for the status
// with a string schema, whose body the schema cannot say more about. Any other media type but JSON's
// (and the +json of the schema's JSON form) is an error.
func declaredText(route *routers.Route, status int, header http.Header) (bool, error) {
	mediaType, _, err := mime.ParseMediaType(header.Get("Content-Type"))
	if err != nil || mediaType == "application/json" || strings.HasSuffix(mediaType, "+json") {
		return false, nil // checkJSON names the fault, if any
	}
	resp := route.Operation.Responses.Status(status)
	if resp == nil || resp.Value == nil {
		return false, nil // ValidateResponse names the undeclared status
	}
	content := resp.Value.Content.Get(mediaType)
	if content == nil || content.Schema == nil || content.Schema.Value == nil {
		return false, fmt.Errorf("operation %s %s declares no %s answer for %d", route.Method, route.Path, mediaType, status)
	}
	if !content.Schema.Value.Type.Is("string") {
		return false, fmt.Errorf("operation %s %s declares a %s answer that is not text", route.Method, route.Path, mediaType)
	}
	return true, nil
}

// checkJSONContentType enforces the transport rule that every response is application/json, whatever the
// status; parameters such as charset are allowed.
func checkJSONContentType(header http.Header) error {
	ct := header.Get("Content-Type")
	if ct == "" {
		return errors.New("response has no Content-Type header; want application/json")
	}
	mediaType, _, err := mime.ParseMediaType(ct)
	if err != nil {
		return fmt.Errorf("response Content-Type %q: %w", ct, err)
	}
	if mediaType != "application/json" {
		return fmt.Errorf("response Content-Type is %q; want application/json", ct)
	}
	return nil
}

// decodeJSON parses a whole body as one JSON value.
func decodeJSON(body []byte) (any, error) {
	var value any
	if err := json.Unmarshal(body, &value); err != nil {
		return nil, fmt.Errorf("body is not JSON: %w", err)
	}
	return value, nil
}

// newRequest builds the request the router and validator need; only method, path and query matter.
func newRequest(method, path string, query url.Values) *http.Request {
	return &http.Request{
		Method: method,
		URL:    &url.URL{Scheme: "http", Host: "127.0.0.1:3000", Path: path, RawQuery: query.Encode()},
		Header: http.Header{},
		Body:   io.NopCloser(bytes.NewReader(nil)),
		Host:   "127.0.0.1:3000",
	}
}

// The formats the document uses that kin-openapi does not check by default. They are passed per validation
// rather than registered globally so that no other user of kin-openapi in the test binary is affected.
var (
	// uuidPattern is the canonical lower-case form that Python's str(uuid.UUID) (and so DRF) writes; any
	// version is accepted because fixtures may use hand-written ids.
	uuidPattern = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)

	stringFormats = map[string]openapi3.StringFormatValidator{
		"uuid":  openapi3.NewRegexpFormatValidator(uuidPattern.String()),
		"email": openapi3.NewRegexpFormatValidator(openapi3.FormatOfStringForEmail),
		"uri":   openapi3.NewCallbackValidator(validateAbsoluteURI),
	}
)

// validateAbsoluteURI accepts absolute URLs only: pagination links are built from the request's scheme and
// host, and a relative one would break clients that follow them.
func validateAbsoluteURI(s string) error {
	u, err := url.Parse(s)
	if err != nil {
		return err
	}
	if u.Scheme == "" || u.Host == "" {
		return fmt.Errorf("%q is not an absolute URI", s)
	}
	return nil
}
