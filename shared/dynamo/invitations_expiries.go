package dynamo

import (
	"context"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/reportingplatform/api/shared/domain"
)

var _ domain.ExpiryStore = (*Store)(nil)

// expiriesPerRun bounds the entries a run reads: a backlog (after a load of old invitations, or runs
// that failed) is worked down over several runs, each within its time limit.
const expiriesPerRun = 500

// RecordExpiries reads the pending invitations past their expiry from GSI5, oldest expiry first, and
// records each as expired (status 3) in a transaction of its own with the counts it moves
// (countChanges), conditioned on it being pending with the expiry that was read: one a save changed
// meanwhile is that save's to record (SPEC §5: a save stores 3 for an expired invitation). Neither
// expiry_date nor updated_at change: what the invitation shows stays as it was, it only leaves the
// pending lists' index entries. The version grows, so that a save that read it before retries. The
// transactions go one after another: every one of them changes a shard of everyone's count, and DynamoDB
// cancels a transaction that meets another on an item. One that still meets a concurrent write after
// a few attempts is left to the next run.
func (s *Store) RecordExpiries(ctx context.Context, now time.Time) (int, error) {
	entries, err := s.unrecordedExpiryKeys(ctx, now)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, e := range entries {
		recorded := false
		err := domain.RetryOnConflict(ctx, expiryAttempts, func(int) error {
			var err error
			recorded, err = s.recordExpiry(ctx, e)
			return err
		})
		switch {
		case domain.ErrorCode(err) == domain.ECONFLICT:
		case err != nil:
			return n, err
		case recorded:
			n++
		}
	}
	return n, nil
}

// expiryAttempts is how often a run sends an expiry that meets another transaction.
const expiryAttempts = 3

// pendingEntry is a GSI5 entry: enough of an invitation to move it out of its pending index entries.
type pendingEntry struct {
	inv    domain.Invitation
	expiry string
}

// unrecordedExpiryKeys reads the GSI5 entries of the invitations past their expiry at now.
func (s *Store) unrecordedExpiryKeys(ctx context.Context, now time.Time) ([]pendingEntry, error) {
	entries, err := s.unrecordedExpiries(ctx, now, expiriesPerRun)
	if err != nil {
		return nil, err
	}
	out := make([]pendingEntry, 0, len(entries))
	for _, e := range entries {
		out = append(out, pendingEntry{
			inv:    domain.Invitation{ID: e.ID, OrganizationID: e.OrganizationID, Email: e.Email, CreatedAt: e.CreatedAt},
			expiry: domain.FormatTime(e.ExpiryDate),
		})
	}
	return out, nil
}

// recordExpiry records one expiry; false when the invitation was no longer pending with that expiry.
func (s *Store) recordExpiry(ctx context.Context, e pendingEntry) (bool, error) {
	expired := e.inv
	expired.Status = domain.StatusExpired
	it := toInvitationItem(expired)
	set := func(u expression.UpdateBuilder, name string, v any) expression.UpdateBuilder {
		return u.Set(expression.Name(name), expression.Value(v))
	}
	u := expression.UpdateBuilder{}
	u = set(u, "status", it.Status)
	u = set(u, attrGSI1SK, it.GSI1SK)
	u = set(u, attrGSI2SK, it.GSI2SK)
	u = set(u, attrGSI3SK, it.GSI3SK)
	u = u.Remove(expression.Name(attrGSI5PK)).Remove(expression.Name(attrGSI5SK))
	u = u.Set(expression.Name(attrVersion), expression.Name(attrVersion).Plus(expression.Value(1)))
	cond := expression.Name("status").Equal(expression.Value(int(domain.StatusPending))).
		And(expression.Name("expiry_date").Equal(expression.Value(e.expiry)))
	update, err := updateItem(invitationKey(e.inv.ID), u, &cond)
	if err != nil {
		return false, err
	}
	pending := e.inv
	pending.Status = domain.StatusPending
	counts, err := countChanges(&pending, &expired)
	if err != nil {
		return false, err
	}
	err = s.transact(ctx, "record expiry", append([]types.TransactWriteItem{update}, counts...))
	if conditionFailed(err, 0) {
		return false, nil
	}
	return err == nil, err
}
