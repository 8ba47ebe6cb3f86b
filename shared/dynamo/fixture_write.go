package dynamo

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/reportingplatform/api/shared/domain"
)

// PutFixtureUser creates or replaces user u, claiming its email in the same transaction. previousEmail
// is the email stored for u.ID ("" for a new user): the write is conditional on it, so the claim it
// releases when the email changes is the right one. The profile attributes the fixture sets are
// replaced; memberships (kept in step by member writes), last_login, and date_joined and created_at of
// an existing user are kept. Returns EINVALID when the email belongs to another user, ECONFLICT when
// the user changed since it was read.
func (s *Store) PutFixtureUser(ctx context.Context, u domain.User, previousEmail string) error {
	it := toUserItem(u)
	set := map[string]any{
		"id": it.ID, "email": it.Email, "password_hash": it.PasswordHash, "first_name": it.FirstName,
		"last_name": it.LastName, "is_staff": it.IsStaff, "is_superuser": it.IsSuperuser,
		"is_active": it.IsActive, "updated_at": it.UpdatedAt,
	}
	ifAbsent := map[string]any{
		"date_joined": it.DateJoined, "created_at": it.CreatedAt, "memberships": map[string]membershipAttr{},
	}
	update, err := fixtureSetExpression(set, ifAbsent)
	if err != nil {
		return fail("encode user", err)
	}
	update.Key = userKey(u.ID).av()
	if previousEmail == "" {
		update.ConditionExpression = aws.String("attribute_not_exists(PK)")
	} else {
		update.ConditionExpression = aws.String("#email = :previous_email")
		update.ExpressionAttributeValues[":previous_email"] = &types.AttributeValueMemberS{Value: previousEmail}
	}
	ek := emailKey(u.Email)
	claim, err := attributevalue.MarshalMap(toEmailItem(u))
	if err != nil {
		return fail("encode email claim", err)
	}
	userID := map[string]types.AttributeValue{":user": &types.AttributeValueMemberS{Value: u.ID}}
	items := []types.TransactWriteItem{
		{Update: update},
		{Put: &types.Put{
			Item:                      claim,
			ConditionExpression:       aws.String("attribute_not_exists(PK) OR user_id = :user"),
			ExpressionAttributeValues: userID,
		}},
	}
	if previousEmail != "" && emailKey(previousEmail) != ek {
		items = append(items, types.TransactWriteItem{Delete: &types.Delete{
			Key:                       emailKey(previousEmail).av(),
			ConditionExpression:       aws.String("attribute_not_exists(PK) OR user_id = :user"),
			ExpressionAttributeValues: userID,
		}})
	}
	err = s.transact(ctx, "write user "+u.ID, items)
	switch {
	case conditionFailed(err, 1):
		return &domain.Error{Code: domain.EINVALID, Detail: fmt.Sprintf("email %q belongs to another user", u.Email), Err: err}
	case conditionFailed(err, 0):
		return &domain.Error{Code: domain.ECONFLICT, Detail: "the user was changed or created since it was read", Err: err}
	}
	return err
}

// PutFixtureOrganization creates or replaces organization o. When it renames a stored organization,
// the name copied into every member's user profile (memberships.<org>.org_name, which login shows)
// follows: the organization's members are queried and each profile entry rewritten from its member
// item. That is one write per member, after the organization's: not atomic, but a rerun repairs it.
func (s *Store) PutFixtureOrganization(ctx context.Context, o domain.Organization) error {
	out, err := s.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:                 aws.String(s.table),
		Key:                       orgKey(o.ID).av(),
		UpdateExpression:          aws.String("SET #id = :id, #name = :name"),
		ExpressionAttributeNames:  map[string]string{"#id": "id", "#name": "name"},
		ExpressionAttributeValues: map[string]types.AttributeValue{":id": fixtureString(o.ID), ":name": fixtureString(o.Name)},
		ReturnValues:              types.ReturnValueUpdatedOld,
	})
	if err != nil {
		return fail("write organization "+o.ID, err)
	}
	old, ok := out.Attributes["name"].(*types.AttributeValueMemberS)
	if !ok || old.Value == o.Name {
		return nil
	}
	return s.fixtureRenameInMemberships(ctx, o)
}

// fixtureRenameInMemberships rewrites memberships.<org> on the profile of every member of o.
func (s *Store) fixtureRenameInMemberships(ctx context.Context, o domain.Organization) error {
	k := orgKey(o.ID)
	p := dynamodb.NewQueryPaginator(s.db, &dynamodb.QueryInput{
		TableName:                 aws.String(s.table),
		KeyConditionExpression:    aws.String("PK = :pk AND begins_with(SK, :member)"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":pk": fixtureString(k.PK), ":member": fixtureString(memberSKPrefix)},
		ConsistentRead:            aws.Bool(true),
	})
	for p.HasMorePages() {
		out, err := p.NextPage(ctx)
		if err != nil {
			return fail("query members of organization "+o.ID, err)
		}
		var members []memberItem
		if err := attributevalue.UnmarshalListOfMaps(out.Items, &members); err != nil {
			return fail("decode members of organization "+o.ID, err)
		}
		for _, m := range members {
			update, err := fixtureMembershipUpdate(m.domain(), o.Name)
			if err != nil {
				return err
			}
			_, err = s.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{
				TableName: aws.String(s.table), Key: update.Key, UpdateExpression: update.UpdateExpression,
				ConditionExpression: update.ConditionExpression, ExpressionAttributeNames: update.ExpressionAttributeNames,
				ExpressionAttributeValues: update.ExpressionAttributeValues,
			})
			var ccf *types.ConditionalCheckFailedException
			if err != nil && !errors.As(err, &ccf) { // a member item whose user is gone: nothing to rename
				return fail("rename organization in memberships of user "+m.UserID, err)
			}
		}
	}
	return nil
}

// fixtureMembershipUpdate sets memberships.<org> on m's user profile from m, with the organization's
// name. The user must exist: an update must not create a profile without its attributes.
func fixtureMembershipUpdate(m domain.Member, orgName string) (*types.Update, error) {
	entry, err := attributevalue.Marshal(membershipAttr{MemberID: m.ID, OrgName: orgName, Role: int(m.Role)})
	if err != nil {
		return nil, fail("encode membership", err)
	}
	u := &types.Update{
		Key:                       userKey(m.UserID).av(),
		UpdateExpression:          aws.String("SET memberships.#org = :membership"),
		ConditionExpression:       aws.String("attribute_exists(PK)"),
		ExpressionAttributeNames:  map[string]string{"#org": m.OrganizationID},
		ExpressionAttributeValues: map[string]types.AttributeValue{":membership": entry},
	}
	return u, nil
}

// PutFixtureMember creates or replaces member m (whose organization is named orgName) and its entry in
// its user's memberships, in one transaction. previous is the stored member with m's id (nil for a new
// one); when it was another user's or another organization's membership, its item and its profile
// entry go in the same transaction. The write refuses to replace another member of the same user and
// organization (EINVALID) and needs the user to exist.
func (s *Store) PutFixtureMember(ctx context.Context, m domain.Member, orgName string, previous *domain.Member) error {
	item, err := attributevalue.MarshalMap(toMemberItem(m))
	if err != nil {
		return fail("encode member", err)
	}
	profile, err := fixtureMembershipUpdate(m, orgName)
	if err != nil {
		return err
	}
	items := []types.TransactWriteItem{
		{Put: &types.Put{
			Item:                      item,
			ConditionExpression:       aws.String("attribute_not_exists(PK) OR member_id = :id"),
			ExpressionAttributeValues: map[string]types.AttributeValue{":id": fixtureString(m.ID)},
		}},
		{Update: profile},
	}
	moved := previous != nil && (previous.OrganizationID != m.OrganizationID || previous.UserID != m.UserID)
	if moved {
		items = append(items, types.TransactWriteItem{Delete: &types.Delete{
			Key:                       memberKey(previous.OrganizationID, previous.UserID).av(),
			ConditionExpression:       aws.String("member_id = :id"),
			ExpressionAttributeValues: map[string]types.AttributeValue{":id": fixtureString(m.ID)},
		}})
		if previous.UserID == m.UserID { // same profile: one update may touch it only once
			*profile.UpdateExpression += " REMOVE memberships.#old"
			profile.ExpressionAttributeNames["#old"] = previous.OrganizationID
		} else {
			left := &types.Update{
				Key:                      userKey(previous.UserID).av(),
				UpdateExpression:         aws.String("REMOVE memberships.#old"),
				ConditionExpression:      aws.String("attribute_exists(PK)"),
				ExpressionAttributeNames: map[string]string{"#old": previous.OrganizationID},
			}
			items = append(items, types.TransactWriteItem{Update: left})
		}
	}
	err = s.transact(ctx, "write member "+m.ID, items)
	switch {
	case conditionFailed(err, 0):
		return &domain.Error{Code: domain.EINVALID, Detail: "the user already has another membership of this organization", Err: err}
	case conditionFailed(err, 1):
		return &domain.Error{Code: domain.EINVALID, Detail: fmt.Sprintf("user %s does not exist", m.UserID), Err: err}
	case moved && conditionFailed(err, 2):
		return &domain.Error{Code: domain.ECONFLICT, Detail: "the member was changed since it was read", Err: err}
	}
	return err
}

// PutFixturePortfolio creates or replaces portfolio p. previousOrgID is the organization it is stored
// under ("" for a new one): the organization is part of the key, so a portfolio that changes
// organization is deleted there in the same transaction.
func (s *Store) PutFixturePortfolio(ctx context.Context, p domain.Portfolio, previousOrgID string) error {
	item, err := attributevalue.MarshalMap(toPortfolioItem(p))
	if err != nil {
		return fail("encode portfolio", err)
	}
	items := []types.TransactWriteItem{{Put: &types.Put{Item: item}}}
	if previousOrgID != "" && previousOrgID != p.OrganizationID {
		items = append(items, types.TransactWriteItem{Delete: &types.Delete{Key: portfolioKey(previousOrgID, p.ID).av()}})
	}
	return s.transact(ctx, "write portfolio "+p.ID, items)
}

// PutFixtureInvitation creates or replaces invitation inv, with the copy of what it shows read from the
// items it refers to (the loader writes them first). previousVersion is the stored version (0 for
// a new invitation); the write is conditional on it, like every invitation save, so that a concurrent
// API save is not lost silently. Returns ECONFLICT when the invitation changed since it was read.
func (s *Store) PutFixtureInvitation(ctx context.Context, inv domain.Invitation, previousVersion int64) error {
	refs, err := s.InvitationPageRefs(ctx, []domain.Invitation{inv})
	if err != nil {
		return err
	}
	inv.Shown = nil // a reference that is not there (the loader validated them) is a fault a read reports
	if shown, err := inv.ShownFrom(refs); err == nil {
		inv.Shown = &shown
	}
	item, err := attributevalue.MarshalMap(toInvitationItem(inv))
	if err != nil {
		return fail("encode invitation", err)
	}
	put := &dynamodb.PutItemInput{TableName: aws.String(s.table), Item: item}
	if previousVersion == 0 {
		put.ConditionExpression = aws.String("attribute_not_exists(PK)")
	} else {
		put.ConditionExpression = aws.String("version = :version")
		put.ExpressionAttributeValues = map[string]types.AttributeValue{
			":version": &types.AttributeValueMemberN{Value: fmt.Sprint(previousVersion)},
		}
	}
	_, err = s.db.PutItem(ctx, put)
	var ccf *types.ConditionalCheckFailedException
	if errors.As(err, &ccf) {
		return &domain.Error{Code: domain.ECONFLICT, Detail: "the invitation was changed or created since it was read", Err: err}
	}
	return fail("write invitation "+inv.ID, err)
}

// fixtureSetExpression builds "SET a = :a, …, b = if_not_exists(b, :b), …" with every name and value
// as placeholders (several attribute names are reserved words), in a stable order.
func fixtureSetExpression(set, ifAbsent map[string]any) (*types.Update, error) {
	u := &types.Update{ExpressionAttributeNames: map[string]string{}, ExpressionAttributeValues: map[string]types.AttributeValue{}}
	expr := ""
	add := func(name string, value any, keep bool) error {
		av, err := attributevalue.Marshal(value)
		if err != nil {
			return fmt.Errorf("encode %s: %w", name, err)
		}
		u.ExpressionAttributeNames["#"+name] = name
		u.ExpressionAttributeValues[":"+name] = av
		if expr != "" {
			expr += ", "
		}
		if keep {
			expr += fmt.Sprintf("#%s = if_not_exists(#%s, :%s)", name, name, name)
		} else {
			expr += fmt.Sprintf("#%s = :%s", name, name)
		}
		return nil
	}
	for _, name := range slices.Sorted(maps.Keys(set)) {
		if err := add(name, set[name], false); err != nil {
			return nil, err
		}
	}
	for _, name := range slices.Sorted(maps.Keys(ifAbsent)) {
		if err := add(name, ifAbsent[name], true); err != nil {
			return nil, err
		}
	}
	u.UpdateExpression = aws.String("SET " + expr)
	return u, nil
}

func fixtureString(s string) types.AttributeValue { return &types.AttributeValueMemberS{Value: s} }

// RefreshInvitationCopies brings the copy each invitation of the organizations keeps of what it shows
// (its organization's name, its inviter's names and email, its portfolios) in step with the items
// themselves, after the loader changed some of them. An invitation whose copy is right is not written;
// one whose copy is wrong is rewritten conditional on its version, and its version grows, so that an API
// save that read the old names retries rather than write them back. One that changed meanwhile is read
// again (strongly consistent) and refreshed from that. Like the memberships' copy of an organization's
// name, this follows the entries' writes rather than joining them: a rerun of the load repairs a copy
// that an interrupted load left behind.
func (s *Store) RefreshInvitationCopies(ctx context.Context, orgIDs []string) error {
	for _, org := range orgIDs {
		invs, err := s.orgInvitations(ctx, org)
		if err != nil {
			return err
		}
		if len(invs) == 0 {
			continue
		}
		// What the organization's invitations refer to, read together (batches of 100 keys, in parallel).
		refs, err := s.InvitationPageRefs(ctx, invs)
		if err != nil {
			return err
		}
		for _, inv := range invs {
			if err := s.refreshInvitationCopy(ctx, inv, refs); err != nil {
				return err
			}
		}
	}
	return nil
}

// refreshInvitationCopy writes inv's copy from refs when it differs; an invitation that changed since
// it was read is read again, with what it now refers to.
func (s *Store) refreshInvitationCopy(ctx context.Context, inv domain.Invitation, refs domain.InvitationRefs) error {
	const attempts = 5
	for n := 1; ; n++ {
		shown, err := inv.ShownFrom(refs)
		if err != nil || inv.Shown.Equal(&shown) {
			return nil // nothing to copy from (a read reports the fault), or nothing to change
		}
		upd := expression.Set(expression.Name(attrShown), expression.Value(toShownAttr(&shown))).
			Add(expression.Name(attrVersion), expression.Value(1))
		cond := expression.Name(attrVersion).Equal(expression.Value(inv.Version))
		item, err := updateItem(invitationKey(inv.ID), upd, &cond)
		if err != nil {
			return err
		}
		err = s.transact(ctx, "refresh invitation copy "+inv.ID, []types.TransactWriteItem{item})
		if !conditionFailed(err, 0) {
			return err
		}
		if n == attempts {
			return &domain.Error{Code: domain.ECONFLICT, Detail: "the invitation kept changing while its copy was refreshed", Err: err}
		}
		if inv, err = s.Invitation(ctx, inv.ID); err != nil {
			if domain.ErrorCode(err) == domain.ENOTFOUND {
				return nil // deleted meanwhile: nothing to refresh
			}
			return err
		}
		if refs, err = s.InvitationPageRefs(ctx, []domain.Invitation{inv}); err != nil {
			return err
		}
	}
}
