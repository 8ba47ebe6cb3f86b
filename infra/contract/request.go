package contract

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
)

// Request is what a client sent, as the validator needs it: the path without the API Gateway stage a
// client may put in front of it ("/Prod"), the headers as sent (Content-Type, Authorization,
// Idempotency-Key) and the body.
type Request struct {
	Method string
	Path   string
	Query  url.Values
	Header http.Header
	Body   []byte
}

// Response is what the API answered.
type Response struct {
	Status int
	Header http.Header
	Body   []byte
}

// ValidateExchange holds one request and its answer to openapi.yaml in both directions: the answer must
// be one the document describes (as Validate), and a request the document forbids (a parameter or body
// it does not allow, no token where one is required) must not be answered with success. Tests send
// such requests on purpose to see them refused; a 4xx (or a 5xx the document describes) is their
// expected answer, a 2xx means the API accepts what its document says clients cannot send, so a typed
// client could not send it and a validating proxy would refuse it.
func ValidateExchange(tb testing.TB, req Request, resp Response) {
	tb.Helper()
	s, err := load()
	if err != nil {
		tb.Fatalf("%v", err)
		return
	}
	if err := s.checkExchange(req, resp); err != nil {
		tb.Fatalf("contract: %s %s?%s -> %d does not match %s: %v\nrequest body: %s\nresponse body: %s",
			req.Method, req.Path, req.Query.Encode(), resp.Status, specFile, err, req.Body, resp.Body)
	}
}

// checkExchange is ValidateExchange without the testing.TB.
func (s *spec) checkExchange(req Request, resp Response) error {
	if resp.Status < 400 {
		if err := s.checkRequest(req); err != nil {
			return fmt.Errorf("the document forbids this request, yet it was answered %d: %w", resp.Status, err)
		}
	}
	return s.check(req.Method, req.Path, req.Query, resp.Status, resp.Header, resp.Body)
}

// checkRequest validates a request against its operation: path and query parameters, headers, the
// security requirement and the body. A request for no declared operation is not checked here: its
// answer must be the 404 or 405 that check holds it to.
func (s *spec) checkRequest(req Request) error {
	method := req.Method
	if method == http.MethodHead {
		// The service answers HEAD wherever GET (Django does); the document declares the GETs.
		method = http.MethodGet
	}
	query := lastValues(req.Query)
	route, params, err := s.findRoute(method, req.Path, query)
	switch {
	case errors.Is(err, routers.ErrPathNotFound), errors.Is(err, routers.ErrMethodNotAllowed):
		return nil
	case err != nil:
		return fmt.Errorf("routing: %w", err)
	}
	r := newRequest(method, route.Path, query)
	r.Header = req.Header.Clone()
	if r.Header == nil {
		r.Header = http.Header{}
	}
	r.Body = io.NopCloser(bytes.NewReader(req.Body))
	r.ContentLength = int64(len(req.Body))
	in := &openapi3filter.RequestValidationInput{
		Request:     r,
		PathParams:  params,
		QueryParams: query,
		Route:       route,
		Options: &openapi3filter.Options{
			ExcludeRequestBody: outOfRange(req.Body),
			MultiError:         true,
			AuthenticationFunc: bearerPresent,
			// Defaults are the document's to describe, not the validator's to add to the request.
			SkipSettingDefaults: true,
			SchemaValidationOptions: []openapi3.SchemaValidationOption{
				openapi3.WithStringFormatValidators(requestFormats),
			},
		},
	}
	if err := openapi3filter.ValidateRequest(context.Background(), in); err != nil {
		return fmt.Errorf("operation %s %s: %w", method, route.Path, err)
	}
	return nil
}

// outOfRange reports a JSON body holding a number beyond float64's range (1e400): JSON and the
// document's number type allow it (DRF reads it as Python's float, inf), but kin-openapi cannot decode
// it, so such a body is not judged.
func outOfRange(body []byte) bool {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	for {
		tok, err := dec.Token()
		if err != nil {
			return false
		}
		if n, ok := tok.(json.Number); ok {
			if _, err := strconv.ParseFloat(string(n), 64); errors.Is(err, strconv.ErrRange) {
				return true
			}
		}
	}
}

// bearerPresent is the document's bearerAuth as a client can satisfy it: an Authorization header with
// the Bearer scheme (RFC 7235: the scheme is case-insensitive) and a credential. Whether the token is
// valid is the API's to say (401), not the document's.
func bearerPresent(_ context.Context, in *openapi3filter.AuthenticationInput) error {
	if in.SecurityScheme == nil || in.SecurityScheme.Type != "http" || !strings.EqualFold(in.SecurityScheme.Scheme, "bearer") {
		return fmt.Errorf("unknown security scheme %q", in.SecuritySchemeName)
	}
	scheme, credential, _ := strings.Cut(in.RequestValidationInput.Request.Header.Get("Authorization"), " ")
	if !strings.EqualFold(scheme, "bearer") || strings.TrimSpace(credential) == "" {
		return errors.New("no Bearer credentials")
	}
	return nil
}

// lastValues keeps the last value of each query parameter: the document's parameters are single
// values, and its description says that a repeated one counts with its last value (Django's
// QueryDict.get), which is the one to judge.
func lastValues(q url.Values) url.Values {
	out := make(url.Values, len(q))
	for k, vs := range q {
		if len(vs) > 0 {
			out[k] = []string{vs[len(vs)-1]}
		}
	}
	return out
}

// requestFormats are the formats a request's strings are held to, as the document's description
// defines them for requests; responses are held to what DRF writes (stringFormats).
var requestFormats = map[string]openapi3.StringFormatValidator{
	"uuid":  openapi3.NewCallbackValidator(pythonUUID),
	"email": openapi3.NewCallbackValidator(trimmedEmail),
	"uri":   openapi3.NewCallbackValidator(validateAbsoluteURI),
}

var emailFormat = regexp.MustCompile(openapi3.FormatOfStringForEmail)

// trimmedEmail is the email format of a text field that DRF trims first, as the document's description
// says text fields are read.
func trimmedEmail(s string) error {
	if !emailFormat.MatchString(strings.TrimSpace(s)) {
		return fmt.Errorf("%q is not an email address", s)
	}
	return nil
}

// pythonUUID accepts the spellings the document allows in requests: what Python's uuid.UUID(hex) reads
// ("urn:" and "uuid:" prefixes, braces, hyphens anywhere, 32 hex digits in either case), with the
// white space around it that a query filter strips. A body's UUID with white space around it is
// refused by the API (400), which the validator need not tell apart.
func pythonUUID(s string) error {
	t := strings.ReplaceAll(strings.ReplaceAll(strings.TrimSpace(s), "urn:", ""), "uuid:", "")
	t = strings.ReplaceAll(strings.Trim(t, "{}"), "-", "")
	if len(t) != 32 || strings.Trim(t, "0123456789abcdefABCDEF") != "" {
		return fmt.Errorf("%q is not a UUID", s)
	}
	return nil
}
