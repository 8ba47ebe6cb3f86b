package httpapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/reportingplatform/api/shared/domain"
)

// MaxBodyBytes is the largest request body accepted (SPEC §1).
const MaxBodyBytes = 1 << 20

// DecodeObject reads a JSON object body by SPEC §1's rules, in DRF's order: size (413), media type (415),
// syntax (400 "JSON parse error"), then shape (400 non_field_errors). An empty body is an empty object,
// as in DRF, whatever its Content-Type; a body of white space is not empty (it is not JSON either).
func DecodeObject(r *http.Request) (*Body, error) {
	raw, err := io.ReadAll(io.LimitReader(r.Body, MaxBodyBytes+1))
	if err != nil {
		return nil, domain.Errorf(domain.EINVALID, "JSON parse error - %s", "could not read the body")
	}
	if len(raw) > MaxBodyBytes {
		return nil, domain.Errorf(domain.ETOOLARGE, "Request body too large.")
	}
	if len(raw) == 0 {
		return &Body{fields: map[string]json.RawMessage{}}, nil
	}
	ct := r.Header.Get("Content-Type")
	if mt, _, err := mime.ParseMediaType(ct); err != nil || mt != "application/json" {
		return nil, domain.Errorf(domain.EMEDIATYPE, "Unsupported media type \"%s\" in request.", ct)
	}
	if !utf8.Valid(raw) {
		// Python reads the body as UTF-8 before parsing it; a body that is not is a parse error there too.
		return nil, domain.Errorf(domain.EINVALID, "JSON parse error - %s", "the body is not valid UTF-8")
	}
	var v json.RawMessage
	dec := json.NewDecoder(bytes.NewReader(raw))
	if err := dec.Decode(&v); err != nil {
		return nil, domain.Errorf(domain.EINVALID, "JSON parse error - %s", parseReason(err))
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, domain.Errorf(domain.EINVALID, "JSON parse error - %s", "Extra data after the JSON value")
	}
	if kind := pythonType(v); kind != "dict" {
		return nil, domain.FieldError(domain.NonFieldErrors,
			fmt.Sprintf("Invalid data. Expected a dictionary, but got %s.", kind))
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(v, &fields); err != nil {
		return nil, domain.Errorf(domain.EINVALID, "JSON parse error - %s", parseReason(err))
	}
	return &Body{fields: fields}, nil
}

// parseReason says what is wrong with the JSON without echoing the body back.
func parseReason(err error) string {
	var syn *json.SyntaxError
	if errors.As(err, &syn) {
		return fmt.Sprintf("%s (at byte %d)", syn.Error(), syn.Offset)
	}
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		return "unexpected end of JSON input"
	}
	return strings.TrimPrefix(err.Error(), "json: ")
}
