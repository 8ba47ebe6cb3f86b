package dynamo

import (
	"context"
	"errors"
	"sync"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/reportingplatform/api/shared/domain"
)

// Creating, marking and deleting invitations (SPEC §10): what a create reads and checks, its
// transaction, the record of its e-mail, and deletion.

// pendingClaimItem is ORG#<org> / PENDING#<email>: which invitation last claimed the address.
type pendingClaimItem struct {
	PK           string `dynamodbav:"PK"`
	SK           string `dynamodbav:"SK"`
	InvitationID string `dynamodbav:"invitation_id"`
}

// SessionAndDraft reads, with the session, the organization, the portfolios, the email's claim and the
// organization's pending claim on it, and (in parallel) the invitations to the email, whole from GSI4. A
// second call reads only the invitation the pending claim names when GSI4 does not show it (yet: the
// claim is strongly consistent, the index is not). Whether the email's user is a member is left to the
// write (CreateInvitation) or, when a refusal must name it, to HasMember.
func (s *Store) SessionAndDraft(ctx context.Context, ref domain.TokenRef, q domain.InvitationDraft) (domain.DraftRead, error) {
	ok, ek, ck := orgKey(q.OrganizationID), emailKey(q.Email), pendingClaimKey(q.OrganizationID, q.Email)
	keys := append(sessionKeys(ref), ok, ek, ck)
	for _, p := range q.PortfolioIDs {
		keys = append(keys, portfolioKey(q.OrganizationID, p))
	}
	var (
		items    map[key]map[string]types.AttributeValue
		whole    []domain.Invitation
		errItems error
		errWhole error
		wg       sync.WaitGroup
	)
	wg.Add(1)
	go func() { defer wg.Done(); whole, errWhole = s.inviteeInvitations(ctx, q.Email) }()
	items, errItems = s.batchGet(ctx, "read session and invitation draft", keys)
	wg.Wait()
	if err := errors.Join(errItems, errWhole); err != nil {
		return domain.DraftRead{}, err
	}
	var out domain.DraftRead
	var err error
	if out.Session, err = decodeSession(items, ref); err != nil {
		return domain.DraftRead{}, err
	}
	if item := items[ok]; item != nil {
		o, err := decodeOrganization(item)
		if err != nil {
			return domain.DraftRead{}, err
		}
		out.Organization = &o
	}
	out.Portfolios = map[string]domain.Portfolio{}
	for _, p := range q.PortfolioIDs {
		if item := items[portfolioKey(q.OrganizationID, p)]; item != nil {
			if out.Portfolios[p], err = decodePortfolio(item); err != nil {
				return domain.DraftRead{}, err
			}
		}
	}
	if item := items[ck]; item != nil {
		var claim pendingClaimItem
		if err := attributevalue.UnmarshalMap(item, &claim); err != nil {
			return domain.DraftRead{}, fail("decode pending claim", err)
		}
		out.ClaimedBy = claim.InvitationID
	}
	if item := items[ek]; item != nil {
		var claim emailItem
		if err := attributevalue.UnmarshalMap(item, &claim); err != nil {
			return domain.DraftRead{}, fail("decode email claim", err)
		}
		out.EmailUserID = claim.UserID
	}
	if out.Organization == nil {
		return out, nil // refused whatever the invitations
	}
	seen := map[string]bool{}
	keep := func(inv domain.Invitation) {
		if inv.OrganizationID == q.OrganizationID && domain.EmailKey(inv.Email) == domain.EmailKey(q.Email) {
			out.Invitations = append(out.Invitations, inv)
		}
	}
	for _, inv := range whole {
		seen[inv.ID] = true
		keep(inv)
	}
	if out.ClaimedBy == "" || seen[out.ClaimedBy] {
		return out, nil
	}
	claimed, found, err := s.getItem(ctx, "read the claimed invitation", invitationKey(out.ClaimedBy))
	if err != nil || !found { // gone: it claims nothing
		return out, err
	}
	inv, err := decodeInvitation(claimed)
	if err != nil {
		return domain.DraftRead{}, err
	}
	keep(inv)
	return out, nil
}

// HasMember reads ORG#<org> / MEMBER#<user>, strongly consistent.
func (s *Store) HasMember(ctx context.Context, orgID, userID string) (bool, error) {
	_, ok, err := s.getItem(ctx, "read membership", memberKey(orgID, userID))
	return ok, err
}

// CreateInvitation puts the invitation and the organization's pending claim on its address in one
// TransactWriteItems, the claim conditioned on being as read and, when the address has a user, with a
// ConditionCheck that the user has no membership of the organization.
func (s *Store) CreateInvitation(ctx context.Context, inv domain.Invitation, claimedBy, emailUserID string) error {
	inv.Version = 1
	item, err := attributevalue.MarshalMap(toInvitationItem(inv))
	if err != nil {
		return fail("encode invitation", err)
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
	writes := []types.TransactWriteItem{
		{Put: &types.Put{Item: item, ConditionExpression: isNew.Condition(), ExpressionAttributeNames: isNew.Names()}},
		{Put: &types.Put{Item: claim, ConditionExpression: asRead.Condition(),
			ExpressionAttributeNames: asRead.Names(), ExpressionAttributeValues: asRead.Values()}},
	}
	if emailUserID != "" {
		writes = append(writes, types.TransactWriteItem{ConditionCheck: &types.ConditionCheck{
			Key: memberKey(inv.OrganizationID, emailUserID).av(), ConditionExpression: isNew.Condition(),
			ExpressionAttributeNames: isNew.Names(),
		}})
	}
	err = s.transact(ctx, "create invitation", writes)
	var c *cancelled
	switch {
	case emailUserID != "" && conditionFailed(err, 2):
		return domain.ErrAlreadyMember
	case errors.As(err, &c):
		return &domain.Error{Code: domain.ECONFLICT, Err: err}
	}
	return err
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

// DeleteInvitation deletes INVITATION#<id>. Its pending claim, if it holds one, stays: a claim naming an
// invitation that is gone claims nothing (SessionAndDraft's reader checks).
func (s *Store) DeleteInvitation(ctx context.Context, id string) error {
	return s.transact(ctx, "delete invitation", []types.TransactWriteItem{{Delete: &types.Delete{Key: invitationKey(id).av()}}})
}
