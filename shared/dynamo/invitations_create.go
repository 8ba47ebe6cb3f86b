package dynamo

import (
	"context"
	"errors"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/reportingplatform/api/shared/domain"
)

// Creating and marking invitations (SPEC §10): what a create reads and checks, its
// transaction and the record of its e-mail (invitations_delete.go deletes).

// HasMember reads ORG#<org> / MEMBER#<user>, strongly consistent.
func (s *Store) HasMember(ctx context.Context, orgID, userID string) (bool, error) {
	_, ok, err := s.getItem(ctx, "read membership", memberKey(orgID, userID), readOptions{})
	return ok, err
}

// CreateInvitation puts the invitation, its counts (countChanges) and the organization's pending claim on its
// address in one TransactWriteItems, the claim conditioned on being as read and, when the address has a user,
// with a ConditionCheck that the user has no membership of the organization. The same transaction counts the
// invitation against its inviter's quota (quotaUpdate), so that creates sent at once cannot all pass, and,
// with done set, completes its Idempotency-Key claim.
func (s *Store) CreateInvitation(ctx context.Context, inv domain.Invitation, claimedBy, emailUserID string,
	quota domain.InvitationQuota, done *domain.IdempotencyDone) error {
	inv.Version = 1
	put, err := putNew("invitation", toInvitationItem(inv))
	if err != nil {
		return err
	}
	ck := pendingClaimKey(inv.OrganizationID, inv.Email)
	claim, err := attributevalue.MarshalMap(pendingClaimItem{PK: ck.PK, SK: ck.SK, InvitationID: inv.ID})
	if err != nil {
		return fail("encode pending claim", err)
	}
	isNew, err := expression.NewBuilder().WithCondition(expression.AttributeNotExists(expression.Name(attrPK))).Build()
	if err != nil {
		return fail("build invitation create", err)
	}
	claimCond := expression.AttributeNotExists(expression.Name(attrPK))
	if claimedBy != "" {
		claimCond = expression.Name("invitation_id").Equal(expression.Value(claimedBy))
	}
	asRead, err := expression.NewBuilder().WithCondition(claimCond).Build()
	if err != nil {
		return fail("build pending claim", err)
	}
	count, err := quotaUpdate(inv.InviterUserID, quota, inv.CreatedAt)
	if err != nil {
		return err
	}
	writes := []types.TransactWriteItem{
		put,
		{Put: &types.Put{Item: claim, ConditionExpression: asRead.Condition(),
			ExpressionAttributeNames: asRead.Names(), ExpressionAttributeValues: asRead.Values()}},
		count,
	}
	if emailUserID != "" {
		writes = append(writes, types.TransactWriteItem{ConditionCheck: &types.ConditionCheck{
			Key: memberKey(inv.OrganizationID, emailUserID).av(), ConditionExpression: isNew.Condition(),
			ExpressionAttributeNames: isNew.Names(),
		}})
	}
	counts, err := countChanges(nil, &inv)
	if err != nil {
		return err
	}
	writes = append(writes, counts...)
	err = s.transactDone(ctx, "create invitation", writes, done)
	var c *cancelled
	switch {
	case errors.Is(err, domain.ErrIdempotencyKeyLost):
		return err
	case conditionFailed(err, 2):
		return &domain.Error{Code: domain.ECONFLICT, Err: errors.Join(domain.ErrQuotaChanged, err)}
	case emailUserID != "" && conditionFailed(err, 3):
		return domain.ErrAlreadyMember
	case errors.As(err, &c):
		return &domain.Error{Code: domain.ECONFLICT, Err: err}
	}
	return err
}

// quotaUpdate counts one invitation of userID at now: one more in the window quota read as open, on
// the condition that it is still open and below the limit; else a new window of one, on the condition
// that none is open. Either condition failing means the quota is not as read: the caller reads it
// again and decides (429, or another attempt).
func quotaUpdate(userID string, quota domain.InvitationQuota, now time.Time) (types.TransactWriteItem, error) {
	used, ends, nowMs := expression.Name("used"), expression.Name("window_ends"), expression.Value(now.UnixMilli())
	if quota.Open(now) {
		cond := ends.GreaterThan(nowMs).And(used.LessThan(expression.Value(domain.InvitationsPerWindow)))
		return updateItem(invitationQuotaKey(userID), expression.Add(used, expression.Value(1)), &cond)
	}
	end := now.Add(domain.InvitationWindow)
	cond := expression.AttributeNotExists(expression.Name(attrPK)).Or(ends.LessThanEqual(nowMs))
	start := expression.Set(used, expression.Value(1)).
		Set(ends, expression.Value(end.UnixMilli())).
		Set(expression.Name(attrTTL), expression.Value(end.Unix()))
	return updateItem(invitationQuotaKey(userID), start, &cond)
}

// MarkInvitationSent sets email_sent, conditioned on the address it was sent to still being the
// invitation's. Returns ECONFLICT when it is not (or the invitation is gone).
func (s *Store) MarkInvitationSent(ctx context.Context, inv domain.Invitation) error {
	upd := expression.Set(expression.Name("email_sent"), expression.Value(true)).
		Set(expression.Name("version"), expression.Name("version").Plus(expression.Value(1)))
	cond := expression.Name("email").Equal(expression.Value(inv.Email))
	item, err := updateItem(invitationKey(inv.ID), upd, &cond)
	if err != nil {
		return err
	}
	err = s.transact(ctx, "mark invitation sent", []types.TransactWriteItem{item})
	var c *cancelled
	if errors.As(err, &c) {
		return &domain.Error{Code: domain.ECONFLICT, Err: err}
	}
	return err
}
