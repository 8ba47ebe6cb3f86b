// Package domain holds the entities of the Reporting Platform API, the one error type every layer returns,
// and the store interfaces the functions need. It imports nothing of HTTP or DynamoDB: handlers depend on
// it, and the DynamoDB store implements its interfaces.
package domain

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"strings"
	"time"
)

// Code classifies an Error. The HTTP layer maps each code to one status in one place (httpapi.WriteError).
type Code string

const (
	EINVALID         Code = "invalid"         // bad input: field errors or a non-field error
	EUNAUTHENTICATED Code = "unauthenticated" // no, bad or expired credentials
	EFORBIDDEN       Code = "forbidden"       // authenticated, but not allowed
	ENOTFOUND        Code = "not_found"       // does not exist, or the caller may not know it exists
	EMETHOD          Code = "method"          // known path, other method
	EMEDIATYPE       Code = "media_type"      // a body that is not JSON
	ETOOLARGE        Code = "too_large"       // a body over the limit
	ECONFLICT        Code = "conflict"        // a conditional write lost a race; the caller may retry
	EINPROGRESS      Code = "in_progress"     // a request with the same Idempotency-Key is being processed
	EMISMATCH        Code = "mismatch"        // an Idempotency-Key used before with another request
	EUNAVAILABLE     Code = "unavailable"     // the store is throttled or unreachable after retries
	EOPEN            Code = "open"            // a write the store sent, whose outcome it could not learn in time
	ETHROTTLED       Code = "throttled"       // the client sent too many requests (login failures, invitations)
	EINTERNAL        Code = "internal"        // a fault of ours; never shown to the client
)

// Outcomes a store reports and handlers phrase for clients (the store knows nothing of DRF's messages).
var (
	// ErrEmailTaken: another user has the email (case-insensitively).
	ErrEmailTaken = errors.New("email taken")
	// ErrAlreadyMember: the invited address belongs to a member of the organization (CreateInvitation).
	ErrAlreadyMember = errors.New("the address belongs to a member of the organization")
	// ErrQuotaChanged: the creator's invitation quota is no longer as read (CreateInvitation); the
	// caller reads it again and decides between 429 and another attempt.
	ErrQuotaChanged = errors.New("the invitation quota changed since it was read")
	// ErrObjectOwnedElsewhere: the commented object belongs to another organization.
	ErrObjectOwnedElsewhere = errors.New("object owned by another organization")
)

// NonFieldErrors is DRF's key for errors that belong to no single field.
const NonFieldErrors = "non_field_errors"

// FieldErrors collects DRF field errors ({"field": ["message", ...]}) so that every failing field is
// reported at once, as DRF's serializers and django-filter's forms do. The one collector: request
// bodies (httpapi.Body), query filters and the rules that need stored data all add to one of these.
type FieldErrors map[string][]string

// Add records msg under field.
func (e *FieldErrors) Add(field, msg string) {
	if *e == nil {
		*e = FieldErrors{}
	}
	(*e)[field] = append((*e)[field], msg)
}

// Has reports whether field already has an error.
func (e FieldErrors) Has(field string) bool { return len(e[field]) > 0 }

// Merge adds every error of other.
func (e *FieldErrors) Merge(other FieldErrors) {
	for f, msgs := range other {
		for _, m := range msgs {
			e.Add(f, m)
		}
	}
}

// Err returns the collected errors as one EINVALID error (a copy: adding later does not change it), nil
// when there are none.
func (e FieldErrors) Err() error {
	if len(e) == 0 {
		return nil
	}
	var fields FieldErrors
	fields.Merge(e)
	return &Error{Code: EINVALID, Fields: fields}
}

// Error is the one error type of the service. Detail is the client-facing message of {"detail": ...}
// bodies; Fields holds DRF field errors ({"field": ["message", ...]}). RetryAfter, for ETHROTTLED, is
// when the client may try again. Internal causes are wrapped in Err and never reach a client.
type Error struct {
	Code       Code
	Detail     string
	Fields     FieldErrors
	RetryAfter time.Duration
	Err        error
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(string(e.Code))
	if e.Detail != "" {
		b.WriteString(": " + e.Detail)
	}
	if len(e.Fields) > 0 {
		keys := make([]string, 0, len(e.Fields))
		for k := range e.Fields {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			fmt.Fprintf(&b, " %s=%q", k, e.Fields[k])
		}
	}
	if e.Err != nil {
		b.WriteString(": " + e.Err.Error())
	}
	return b.String()
}

func (e *Error) Unwrap() error { return e.Err }

// Errorf returns an Error with a client-facing detail message.
func Errorf(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Detail: fmt.Sprintf(format, args...)}
}

// FieldError returns an EINVALID error with one message under one field.
func FieldError(field, message string) *Error {
	return &Error{Code: EINVALID, Fields: FieldErrors{field: {message}}}
}

// ErrorCode returns the code of err, EINTERNAL for anything that is not an *Error.
func ErrorCode(err error) Code {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return EINTERNAL
}

// Messages DRF and Django use, written once so every handler says the same thing.
const (
	MsgRequired       = "This field is required."
	MsgNull           = "This field may not be null."
	MsgBlank          = "This field may not be blank."
	MsgNotString      = "Not a valid string."
	MsgEmail          = "Enter a valid email address."
	MsgUUID           = "Must be a valid UUID."
	MsgInteger        = "A valid integer is required."
	MsgNotFound       = "Not found."
	MsgPermission     = "You do not have permission to perform this action."
	MsgNoCredentials  = "Authentication credentials were not provided."
	MsgInvalidToken   = "Invalid token."
	MsgBadCredentials = "Unable to log in with provided credentials."
)

// MsgMaxLength is DRF's max_length message.
func MsgMaxLength(n int) string {
	return fmt.Sprintf("Ensure this field has no more than %d characters.", n)
}

// MsgMaxElements is DRF ListField's max_length message.
func MsgMaxElements(n int) string {
	return fmt.Sprintf("Ensure this field has no more than %d elements.", n)
}

// MsgChoice is DRF's invalid-choice message; sent is the value as the client sent it.
func MsgChoice(sent string) string { return fmt.Sprintf("\"%s\" is not a valid choice.", sent) }

// MsgDoesNotExist is DRF's message for a reference to nothing.
func MsgDoesNotExist(pk string) string {
	return fmt.Sprintf("Invalid pk \"%s\" - object does not exist.", pk)
}

// NotFound is the 404 every lookup returns, whether the object is missing or hidden from the caller.
func NotFound() *Error { return Errorf(ENOTFOUND, MsgNotFound) }

// Forbidden is DRF's permission-denied 403.
func Forbidden() *Error { return Errorf(EFORBIDDEN, MsgPermission) }

// Throttled is DRF's 429 for a client that must wait: Throttled.wait is the wait rounded up to whole
// seconds (math.ceil), with DRF's singular for one second.
func Throttled(wait time.Duration) *Error {
	secs := int(math.Ceil(wait.Seconds()))
	unit := "seconds"
	if secs == 1 {
		unit = "second"
	}
	return &Error{
		Code:       ETHROTTLED,
		Detail:     fmt.Sprintf("Request was throttled. Expected available in %d %s.", secs, unit),
		RetryAfter: time.Duration(secs) * time.Second,
	}
}
