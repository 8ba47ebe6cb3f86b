package httpapi

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"net/http"
	"net/textproto"
	"time"

	"github.com/google/uuid"
	"github.com/reportingplatform/api/shared/domain"
)

// IdempotencyHeader is SPEC §9's request header (the IETF httpapi Idempotency-Key draft) on the creates.
const IdempotencyHeader = "Idempotency-Key"

// MaxIdempotencyKey is the longest key accepted, in characters (all ASCII).
const MaxIdempotencyKey = 255

// IdempotencyReleaseBudget is how long a failed create may spend giving its key back after its request
// budget ran out: RequestBudget and it stay within SPEC §9's time to answer (TestTimeLimitsNest), and a
// key that could not be given back frees itself when its lease ends.
const IdempotencyReleaseBudget = 500 * time.Millisecond

// Messages of SPEC §9's Idempotency-Key.
const (
	msgInvalidKey = "Invalid Idempotency-Key header."
	msgKeyReused  = "This Idempotency-Key was already used with a different request."
	msgKeyBusy    = "A request with this Idempotency-Key is being processed."
)

// Idempotency claims the Idempotency-Key of one create route for its caller (SPEC §9).
type Idempotency struct {
	Store domain.IdempotencyStore
	Clock domain.Clock
	Route string // the create's path: the same key on another route is another request
}

// Claim reads the request's Idempotency-Key and, when there is one, claims it for the caller before the
// create does anything that cannot be undone. It is called once the caller is authenticated and allowed
// and the body is valid (a request refused before leaves the key alone). Without the header it returns
// nil, whose methods do nothing: the create runs as it would anyway.
//
// A key this caller used before with another request (route and body, compared as parsed JSON) is
// refused (422), one whose first request is still being processed too (409). One whose create landed
// comes back as a KeyClaim that Replay reports: the handler answers with the resource as it is now and
// writes nothing.
func (i *Idempotency) Claim(r *http.Request, callerID string, body *Body) (*KeyClaim, error) {
	key, ok, err := idempotencyKey(r.Header)
	if err != nil || !ok {
		return nil, err
	}
	fp, err := fingerprint(i.Route, body)
	if err != nil {
		return nil, err
	}
	c := domain.IdempotencyClaim{UserID: callerID, Key: key, Fingerprint: fp, Owner: uuid.NewString(), At: i.Clock.Now()}
	rec, held, err := i.Store.ClaimIdempotencyKey(r.Context(), c)
	switch {
	case err != nil:
		return nil, err
	case !held:
		return &KeyClaim{store: i.Store, claim: c}, nil
	case rec.Fingerprint != fp:
		return nil, domain.Errorf(domain.EMISMATCH, msgKeyReused)
	case !rec.Done:
		return nil, domain.Errorf(domain.EINPROGRESS, msgKeyBusy)
	}
	return &KeyClaim{replay: &rec}, nil
}

// idempotencyKey returns the header's value; ok is false when the request has none. One value of 1 to
// MaxIdempotencyKey visible ASCII characters, taken as sent, else 400.
func idempotencyKey(h http.Header) (key string, ok bool, err error) {
	values, present := h[textproto.CanonicalMIMEHeaderKey(IdempotencyHeader)]
	if !present {
		return "", false, nil
	}
	invalid := domain.Errorf(domain.EINVALID, msgInvalidKey)
	if len(values) != 1 || len(values[0]) == 0 || len(values[0]) > MaxIdempotencyKey {
		return "", false, invalid
	}
	for _, b := range []byte(values[0]) {
		if b < '!' || b > '~' {
			return "", false, invalid
		}
	}
	return values[0], true, nil
}

// fingerprint hashes the route and the body as parsed JSON: fields in any order, any white space, any
// escaping of the same string give the same fingerprint. Numbers are compared as written.
func fingerprint(route string, body *Body) (string, error) {
	doc := make(map[string]any, len(body.fields))
	for name, raw := range body.fields {
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.UseNumber()
		var v any
		if err := dec.Decode(&v); err != nil {
			return "", err
		}
		doc[name] = v
	}
	canonical, err := json.Marshal(doc) // maps come out with their keys sorted, at every depth
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(append([]byte(route+"\n"), canonical...))
	return hex.EncodeToString(sum[:]), nil
}

// KeyClaim is a create's claim on its Idempotency-Key, or the record of the earlier create that the
// request repeats. A nil KeyClaim (no key) does nothing.
type KeyClaim struct {
	store  domain.IdempotencyStore
	claim  domain.IdempotencyClaim
	replay *domain.IdempotencyRecord
}

// Replay reports whether the request repeats a create that landed, with what it created and the status
// it was answered.
func (k *KeyClaim) Replay() (resourceID string, status int, ok bool) {
	if k == nil || k.replay == nil {
		return "", 0, false
	}
	return k.replay.ResourceID, k.replay.Status, true
}

// Done is what the create's transaction records with the claim: the resource it creates, answered 201.
// Nil without a claim.
func (k *KeyClaim) Done(resourceID string) *domain.IdempotencyDone {
	if k == nil || k.replay != nil {
		return nil
	}
	return &domain.IdempotencyDone{Claim: k.claim, ResourceID: resourceID, Status: http.StatusCreated}
}

// Settle ends the claim of a create that returns *err, deferred right after Claim. A create that
// failed wrote nothing (its transaction, which would have completed the claim, did not land), so the key
// is released for the client's retry; one whose claim was taken over answers as the key being
// processed.
func (k *KeyClaim) Settle(ctx context.Context, err *error) {
	if k == nil || k.replay != nil || *err == nil {
		return
	}
	if errors.Is(*err, domain.ErrIdempotencyKeyLost) {
		*err = &domain.Error{Code: domain.EINPROGRESS, Detail: msgKeyBusy, Err: *err}
		return
	}
	// A create whose budget ran out still gives its key back, within a budget of its own.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), IdempotencyReleaseBudget)
	defer cancel()
	if rerr := k.store.ReleaseIdempotencyKey(ctx, k.claim); rerr != nil {
		Logger(ctx).Warn("idempotency key not released; it is free again when its lease ends", "error", rerr.Error())
	}
}
