package dynamo

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/reportingplatform/api/shared/domain"
)

var _ domain.InvitationStore = (*Store)(nil)

// Invitation reads INVITATION#<id> / INVITATION, strongly consistent. Returns ENOTFOUND when it does not
// exist.
func (s *Store) Invitation(ctx context.Context, id string) (domain.Invitation, error) {
	return getDecoded(ctx, s, "get invitation", invitationKey(id), readOptions{}, decodeInvitation)
}

// InvitationRefs reads the organizations, users, portfolios and email claim q names in one
// BatchGetItem. A portfolio is looked up under ORG#<q.PortfolioOrgID>, so one that exists in another
// organization is reported missing: that is the "portfolio of this organization" check, for free.
func (s *Store) InvitationRefs(ctx context.Context, q domain.InvitationRefsQuery) (domain.InvitationRefs, error) {
	refs := domain.InvitationRefs{
		Organizations: map[string]domain.Organization{},
		Users:         map[string]domain.User{},
		Portfolios:    map[string]domain.Portfolio{},
	}
	folioKey := func(id string) key { return portfolioKey(q.PortfolioOrgID, id) }
	keys := appendKeys(nil, q.OrganizationIDs, orgKey)
	keys = appendKeys(keys, q.UserIDs, userKey)
	keys = appendKeys(keys, q.PortfolioIDs, folioKey)
	if q.Email != "" {
		keys = append(keys, emailKey(q.Email))
	}
	if len(keys) == 0 {
		return refs, nil
	}
	items, err := s.batchGet(ctx, "get invitation references", keys)
	if err != nil {
		return domain.InvitationRefs{}, err
	}
	if err := decodeFound(refs.Organizations, q.OrganizationIDs, orgKey, items, decodeOrganization); err != nil {
		return domain.InvitationRefs{}, err
	}
	if err := decodeFound(refs.Users, q.UserIDs, userKey, items, decodeUser); err != nil {
		return domain.InvitationRefs{}, err
	}
	if err := decodeFound(refs.Portfolios, q.PortfolioIDs, folioKey, items, decodePortfolio); err != nil {
		return domain.InvitationRefs{}, err
	}
	if q.Email != "" {
		if item := items[emailKey(q.Email)]; item != nil {
			var claim emailItem
			if err := attributevalue.UnmarshalMap(item, &claim); err != nil {
				return domain.InvitationRefs{}, fail("decode email claim", err)
			}
			refs.EmailUserID = claim.UserID
		}
	}
	return refs, nil
}

// SaveInvitation writes the invitation's changeable fields in one TransactWriteItems, conditioned on the
// version that was read, with the counts it moves between (countChanges) and with join the membership
// it gives (see joinItems). Returns ECONFLICT when the version condition fails or another transaction
// held the items: the caller re-reads and retries.
func (s *Store) SaveInvitation(ctx context.Context, before, inv domain.Invitation, join *domain.NewMembership) error {
	update, err := invitationUpdate(inv)
	if err != nil {
		return err
	}
	counts, err := countChanges(&before, &inv)
	if err != nil {
		return err
	}
	items := append([]types.TransactWriteItem{{Update: update}}, counts...)
	if join != nil {
		more, err := joinItems(*join)
		if err != nil {
			return err
		}
		items = append(items, more...)
	}
	err = s.transact(ctx, "save invitation", items)
	if conditionFailed(err, 0) {
		return &domain.Error{Code: domain.ECONFLICT,
			Err: fmt.Errorf("save invitation %s: version %d is stale", inv.ID, inv.Version)}
	}
	return err
}

// invitationUpdate sets every field a PATCH may change (and what follows from them: the index keys,
// expiry, updated_at, the copy of what it shows) and the inviter, which only the loader changes, bumping
// the version. The id, token and created_at never change.
func invitationUpdate(inv domain.Invitation) (*types.Update, error) {
	it := toInvitationItem(inv)
	set := func(u expression.UpdateBuilder, name string, v any) expression.UpdateBuilder {
		return u.Set(expression.Name(name), expression.Value(v))
	}
	u := expression.UpdateBuilder{}
	u = set(u, attrGSI1PK, it.GSI1PK)
	u = set(u, attrGSI1SK, it.GSI1SK)
	u = set(u, attrGSI2PK, it.GSI2PK)
	u = set(u, attrGSI2SK, it.GSI2SK)
	u = set(u, attrGSI3PK, it.GSI3PK)
	u = set(u, attrGSI3SK, it.GSI3SK)
	if it.GSI5PK != "" {
		u = set(u, attrGSI5PK, it.GSI5PK)
		u = set(u, attrGSI5SK, it.GSI5SK)
	} else {
		u = u.Remove(expression.Name(attrGSI5PK)).Remove(expression.Name(attrGSI5SK))
	}
	u = set(u, "org_id", it.OrgID)
	u = set(u, "inviter_member_id", it.InviterMemberID)
	u = set(u, "inviter_user_id", it.InviterUserID)
	u = set(u, "email", it.Email)
	u = set(u, "first_name", it.FirstName)
	u = set(u, "last_name", it.LastName)
	u = set(u, "role", it.Role)
	u = set(u, "status", it.Status)
	u = set(u, "email_sent", it.EmailSent)
	u = set(u, "portfolio_ids", it.PortfolioIDs)
	u = set(u, "expiry_date", it.ExpiryDate)
	u = set(u, "updated_at", it.UpdatedAt)
	if it.Shown != nil {
		u = set(u, attrShown, it.Shown)
	} else {
		u = u.Remove(expression.Name(attrShown))
	}
	u = u.Set(expression.Name("version"), expression.Name("version").Plus(expression.Value(1)))
	cond := expression.Name("version").Equal(expression.Value(inv.Version))
	expr, err := expression.NewBuilder().WithUpdate(u).WithCondition(cond).Build()
	if err != nil {
		return nil, fail("build invitation update", err)
	}
	return &types.Update{
		Key:                       invitationKey(inv.ID).av(),
		UpdateExpression:          expr.Update(),
		ConditionExpression:       expr.Condition(),
		ExpressionAttributeNames:  expr.Names(),
		ExpressionAttributeValues: expr.Values(),
	}, nil
}

// joinItems makes a user a member without a read: the member item and the membership copy on the user
// (which authentication and login read) are written with if_not_exists, so an existing membership keeps
// its id and role. The user must exist: its email claim named it.
func joinItems(j domain.NewMembership) ([]types.TransactWriteItem, error) {
	m := j.Member
	ik := memberIndexKey(m.ID)
	keep := func(u expression.UpdateBuilder, name string, v any) expression.UpdateBuilder {
		return u.Set(expression.Name(name), expression.IfNotExists(expression.Name(name), expression.Value(v)))
	}
	mu := expression.UpdateBuilder{}
	mu = keep(mu, "member_id", m.ID)
	mu = keep(mu, "role", int(m.Role))
	mu = keep(mu, attrGSI1PK, ik.PK)
	mu = keep(mu, attrGSI1SK, ik.SK)
	mu = mu.Set(expression.Name("org_id"), expression.Value(m.OrganizationID))
	mu = mu.Set(expression.Name("user_id"), expression.Value(m.UserID))
	memberExpr, err := expression.NewBuilder().WithUpdate(mu).Build()
	if err != nil {
		return nil, fail("build member update", err)
	}

	entry := expression.Name("memberships." + m.OrganizationID)
	copyAttr := membershipAttr{MemberID: m.ID, OrgName: j.OrganizationName, Role: int(m.Role)}
	uu := expression.Set(entry, expression.IfNotExists(entry, expression.Value(copyAttr)))
	userExpr, err := expression.NewBuilder().WithUpdate(uu).
		WithCondition(expression.AttributeExists(expression.Name(attrPK))).Build()
	if err != nil {
		return nil, fail("build membership copy update", err)
	}
	return []types.TransactWriteItem{
		{Update: &types.Update{
			Key:                       memberKey(m.OrganizationID, m.UserID).av(),
			UpdateExpression:          memberExpr.Update(),
			ExpressionAttributeNames:  memberExpr.Names(),
			ExpressionAttributeValues: memberExpr.Values(),
		}},
		{Update: &types.Update{
			Key:                       userKey(m.UserID).av(),
			UpdateExpression:          userExpr.Update(),
			ConditionExpression:       userExpr.Condition(),
			ExpressionAttributeNames:  userExpr.Names(),
			ExpressionAttributeValues: userExpr.Values(),
		}},
	}, nil
}
