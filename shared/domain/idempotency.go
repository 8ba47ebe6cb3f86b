package domain

import (
	"context"
	"errors"
	"time"
)

// Idempotency-Key (SPEC §9): a create that carries a key claims it for its caller before it does
// anything that cannot be undone, and its transaction completes the claim with what it created, so that
// the client's retry of the same request is answered from the record instead of writing again.

const (
	// IdempotencyTTL is how long a key's record is kept after its first request (SPEC §9).
	IdempotencyTTL = 24 * time.Hour
	// IdempotencyLease is how long a claim in progress holds its key against other requests. It outlasts
	// the longest any request may run (API Gateway gives up on one sooner; TestTimeLimitsNest holds the
	// Lambda timeout below it), so a request is never overtaken while it runs, and the retry of one whose
	// process died takes the key over once the lease has run out.
	IdempotencyLease = 30 * time.Second
)

// ErrIdempotencyKeyLost: the create's claim is no longer its own (its lease ran out and a retry took the
// key over), so its transaction wrote nothing.
var ErrIdempotencyKeyLost = errors.New("the idempotency key was taken over by another request")

// IdempotencyClaim is one request's hold on a key of its caller's.
type IdempotencyClaim struct {
	UserID      string    // the caller: each caller's keys are its own
	Key         string    // as the client sent it
	Fingerprint string    // the request (its route and its body as parsed JSON), hashed
	Owner       string    // this request's own id: only it completes or releases the claim
	At          time.Time // when the record was made; it is kept IdempotencyTTL from then
}

// LeaseEnds is when another request may take over the claim if it is still in progress.
func (c IdempotencyClaim) LeaseEnds() time.Time { return c.At.Add(IdempotencyLease) }

// Expires is when the record stops counting (and DynamoDB's time to live removes it).
func (c IdempotencyClaim) Expires() time.Time { return c.At.Add(IdempotencyTTL) }

// IdempotencyDone is what a create's transaction records with its claim: the resource it created and
// the status its client is answered, which a replay answers again.
type IdempotencyDone struct {
	Claim      IdempotencyClaim
	ResourceID string
	Status     int
}

// IdempotencyRecord is a key's record as a claim that could not take it found it.
type IdempotencyRecord struct {
	Fingerprint string
	Done        bool   // the create it records landed
	ResourceID  string // with Done: what it created
	Status      int    // with Done: what its client was answered
}

// IdempotencyStore is what a create with an Idempotency-Key needs from storage besides its own write,
// which takes an *IdempotencyDone and completes the claim in the same transaction.
type IdempotencyStore interface {
	// ClaimIdempotencyKey records c in progress, unless the key holds a live record: one completed
	// within its time to live, or one in progress whose lease runs. Then nothing is written, and that
	// record comes back with held true.
	ClaimIdempotencyKey(ctx context.Context, c IdempotencyClaim) (rec IdempotencyRecord, held bool, err error)
	// ReleaseIdempotencyKey removes c's record while it is still c's and in progress: a create that
	// failed gives the key back for the client's retry. A record completed or taken over stays.
	ReleaseIdempotencyKey(ctx context.Context, c IdempotencyClaim) error
}
