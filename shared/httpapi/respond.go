// Package httpapi is the HTTP plumbing every function shares: routing with DRF's 404/405, JSON bodies
// with the size and content-type rules, DRF error bodies, Bearer authentication, request ids and logs.
// It turns domain errors into HTTP responses in exactly one place (WriteError).
package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/reportingplatform/api/shared/domain"
	"github.com/reportingplatform/api/shared/metrics"
)

// WriteJSON writes v as the JSON body with status. Every response goes through here or WriteError, so
// every response is application/json.
func WriteJSON(w http.ResponseWriter, status int, v any) {
	body, err := MarshalJSON(v)
	writeBody(w, status, body, err)
}

// writeBody answers status with body, a marshalled JSON document, or 500 when marshalling it failed.
func writeBody(w http.ResponseWriter, status int, body []byte, err error) {
	if err != nil {
		status, body = http.StatusInternalServerError, []byte(`{"detail":"A server error occurred."}`)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// WriteNoContent answers 204 with no body and, as DRF does for an empty body, no Content-Type.
func WriteNoContent(w http.ResponseWriter) {
	w.Header().Del("Content-Type")
	w.WriteHeader(http.StatusNoContent)
}

// MarshalJSON is json.Marshal without HTML escaping: like DRF, "&" and "<" are written as they are
// (pagination links carry query strings).
func MarshalJSON(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

type detailBody struct {
	Detail string `json:"detail"`
}

// Messages of the errors that carry no domain detail.
const (
	msgServerError = "A server error occurred."
	msgUnavailable = "Service temporarily unavailable, try again soon."
	msgOpen        = "Service temporarily unavailable; the change may have been saved. Retry with the same " +
		"Idempotency-Key to find out."
)

// causeOf names, for the operators' metric of 503s, why a request got one.
var causeOf = map[domain.Code]string{
	domain.EUNAVAILABLE: metrics.CauseStore,
	domain.ECONFLICT:    metrics.CauseConflict,
	domain.EOPEN:        metrics.CauseOpen,
}

// statusOf is the one table from error codes to HTTP statuses.
var statusOf = map[domain.Code]int{
	domain.EINVALID:         http.StatusBadRequest,
	domain.EUNAUTHENTICATED: http.StatusUnauthorized,
	domain.EFORBIDDEN:       http.StatusForbidden,
	domain.ENOTFOUND:        http.StatusNotFound,
	domain.EMETHOD:          http.StatusMethodNotAllowed,
	domain.ETOOLARGE:        http.StatusRequestEntityTooLarge,
	domain.EMEDIATYPE:       http.StatusUnsupportedMediaType,
	domain.ECONFLICT:        http.StatusServiceUnavailable,
	domain.EINPROGRESS:      http.StatusConflict,
	domain.EMISMATCH:        http.StatusUnprocessableEntity,
	domain.EUNAVAILABLE:     http.StatusServiceUnavailable,
	domain.EOPEN:            http.StatusServiceUnavailable,
	domain.ETHROTTLED:       http.StatusTooManyRequests,
	domain.EINTERNAL:        http.StatusInternalServerError,
}

// WriteError renders err as DRF would. Internal errors are logged with the request id and answered with
// a generic message; nothing internal reaches the client.
func WriteError(w http.ResponseWriter, r *http.Request, err error) {
	var e *domain.Error
	switch {
	case errors.As(err, &e):
	case errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled):
		// The request's budget ran out while the handler waited (for the store, or between retries).
		e = &domain.Error{Code: domain.EUNAVAILABLE, Err: err}
	default:
		e = &domain.Error{Code: domain.EINTERNAL, Err: err}
	}
	status, ok := statusOf[e.Code]
	if !ok {
		status = http.StatusInternalServerError
	}
	switch status {
	case http.StatusInternalServerError:
		Logger(r.Context()).Error("request failed", "error", err.Error())
		WriteJSON(w, status, detailBody{msgServerError})
		return
	case http.StatusServiceUnavailable:
		Logger(r.Context()).Warn("store unavailable", "error", err.Error())
		info(r.Context()).metrics.Count(metrics.Unavailable, causeOf[e.Code])
		w.Header().Set("Retry-After", "1")
		msg := msgUnavailable
		if e.Code == domain.EOPEN {
			msg = msgOpen
		}
		WriteJSON(w, status, detailBody{msg})
		return
	case http.StatusUnauthorized:
		w.Header().Set("WWW-Authenticate", `Bearer realm="api"`)
	case http.StatusTooManyRequests:
		w.Header().Set("Retry-After", strconv.Itoa(int(e.RetryAfter/time.Second)))
	}
	if len(e.Fields) > 0 {
		WriteJSON(w, status, orderedFields(e.Fields))
		return
	}
	WriteJSON(w, status, detailBody{e.Detail})
}

// orderedFields renders field errors with the keys sorted and non_field_errors first, so that bodies
// are stable for clients and tests.
type orderedFields map[string][]string

func (f orderedFields) MarshalJSON() ([]byte, error) {
	keys := make([]string, 0, len(f))
	for k := range f {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if (keys[i] == domain.NonFieldErrors) != (keys[j] == domain.NonFieldErrors) {
			return keys[i] == domain.NonFieldErrors
		}
		return keys[i] < keys[j]
	})
	var b strings.Builder
	b.WriteByte('{')
	for i, k := range keys {
		if i > 0 {
			b.WriteByte(',')
		}
		name, err := MarshalJSON(k)
		if err != nil {
			return nil, err
		}
		msgs, err := MarshalJSON(f[k])
		if err != nil {
			return nil, err
		}
		b.Write(name)
		b.WriteByte(':')
		b.Write(msgs)
	}
	b.WriteByte('}')
	return []byte(b.String()), nil
}
