package dynamo

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/reportingplatform/api/shared/domain"
)

// PutUser creates or replaces user u, claiming its email in the same transaction. previousEmail
// is the email stored for u.ID ("" for a new user): the write is conditional on it, so the claim it
// releases when the email changes is the right one. The profile attributes the fixture sets are
// replaced; memberships (kept in step by member writes), last_login, and date_joined and created_at of
// an existing user are kept. Returns EINVALID when the email belongs to another user, ECONFLICT when
// the user changed since it was read.
func (s *Store) PutUser(ctx context.Context, u domain.User, previousEmail string) error {
	it := toUserItem(u)
	set := func(upd expression.UpdateBuilder, name string, v any) expression.UpdateBuilder {
		return upd.Set(expression.Name(name), expression.Value(v))
	}
	keep := func(upd expression.UpdateBuilder, name string, v any) expression.UpdateBuilder {
		return upd.Set(expression.Name(name), expression.IfNotExists(expression.Name(name), expression.Value(v)))
	}
	upd := set(expression.UpdateBuilder{}, "id", it.ID)
	upd = set(upd, "email", it.Email)
	upd = set(upd, "password_hash", it.PasswordHash)
	upd = set(upd, "first_name", it.FirstName)
	upd = set(upd, "last_name", it.LastName)
	upd = set(upd, "is_staff", it.IsStaff)
	upd = set(upd, "is_superuser", it.IsSuperuser)
	upd = set(upd, "is_active", it.IsActive)
	upd = set(upd, "updated_at", it.UpdatedAt)
	upd = keep(upd, "date_joined", it.DateJoined)
	upd = keep(upd, "created_at", it.CreatedAt)
	upd = keep(upd, "memberships", map[string]membershipAttr{})
	asRead := itemAbsent()
	if previousEmail != "" {
		asRead = expression.Name("email").Equal(expression.Value(previousEmail))
	}
	user, err := updateItem(userKey(u.ID), upd, &asRead)
	if err != nil {
		return err
	}
	claimItem, err := attributevalue.MarshalMap(toEmailItem(u))
	if err != nil {
		return fail("encode email claim", err)
	}
	owned := itemAbsent().Or(expression.Name("user_id").Equal(expression.Value(u.ID)))
	claim, err := putItem(claimItem, &owned)
	if err != nil {
		return err
	}
	items := []types.TransactWriteItem{user, claim}
	if previousEmail != "" && emailKey(previousEmail) != emailKey(u.Email) {
		release, err := deleteItem(emailKey(previousEmail), &owned)
		if err != nil {
			return err
		}
		items = append(items, release)
	}
	err = s.transact(ctx, "write user "+u.ID, items)
	switch {
	case conditionFailed(err, 1):
		return &domain.Error{Code: domain.EINVALID,
			Detail: fmt.Sprintf("email %q belongs to another user", u.Email), Err: err}
	case conditionFailed(err, 0):
		return &domain.Error{Code: domain.ECONFLICT, Detail: "the user was changed or created since it was read", Err: err}
	}
	return err
}

// PutOrganization creates or replaces organization o, whose stored name is previousName ("" for a new
// one). When it renames a stored organization, the name copied into every member's user profile
// (memberships.<org>.org_name, which login shows) follows: the organization's members are queried and
// each profile entry rewritten from its member item. That is one write per member, after the
// organization's: not atomic, but a rerun repairs it.
func (s *Store) PutOrganization(ctx context.Context, o domain.Organization, previousName string) error {
	upd := expression.Set(expression.Name("id"), expression.Value(o.ID)).Set(expression.Name("name"),
		expression.Value(o.Name))
	item, err := updateItem(orgKey(o.ID), upd, nil)
	if err != nil {
		return err
	}
	if err := s.transact(ctx, "write organization "+o.ID, []types.TransactWriteItem{item}); err != nil {
		return err
	}
	if previousName == "" || previousName == o.Name {
		return nil
	}
	return s.renameInMemberships(ctx, o)
}

// renameInMemberships rewrites memberships.<org> on the profile of every member of o.
func (s *Store) renameInMemberships(ctx context.Context, o domain.Organization) error {
	members := expression.Key(attrPK).Equal(expression.Value(orgKey(o.ID).PK)).
		And(expression.Key(attrSK).BeginsWith(memberSKPrefix))
	expr, err := expression.NewBuilder().WithKeyCondition(members).Build()
	if err != nil {
		return fail("build members query", err)
	}
	p := dynamodb.NewQueryPaginator(s.db, &dynamodb.QueryInput{
		TableName: aws.String(s.table), KeyConditionExpression: expr.KeyCondition(),
		ExpressionAttributeNames: expr.Names(), ExpressionAttributeValues: expr.Values(), ConsistentRead: aws.Bool(true),
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
			entry, err := membershipEntry(m.domain(), o.Name, nil)
			if err != nil {
				return err
			}
			err = s.transact(ctx, "rename organization in memberships of user "+m.UserID, []types.TransactWriteItem{entry})
			if err != nil && !conditionFailed(err, 0) { // a member item whose user is gone: nothing to rename
				return err
			}
		}
	}
	return nil
}

// membershipEntry sets memberships.<org> on m's user profile from m, with the organization's name, and
// removes the entry of the organization leaving (when it is set). The user must exist: an update must
// not create a profile without its attributes.
func membershipEntry(m domain.Member, orgName string, leaving *string) (types.TransactWriteItem, error) {
	entry := membershipAttr{MemberID: m.ID, OrgName: orgName, Role: int(m.Role)}
	upd := expression.Set(expression.Name("memberships."+m.OrganizationID), expression.Value(entry))
	if leaving != nil {
		upd = upd.Remove(expression.Name("memberships." + *leaving))
	}
	present := itemPresent()
	return updateItem(userKey(m.UserID), upd, &present)
}

// PutMember creates or replaces member m (whose organization is named orgName) and its entry in its
// user's memberships, in one transaction. previous is the stored member with m's id (nil for a new
// one); when it was another user's or another organization's membership, its item and its profile
// entry go in the same transaction. The write refuses to replace another member of the same user and
// organization (EINVALID) and needs the user to exist.
func (s *Store) PutMember(ctx context.Context, m domain.Member, orgName string, previous *domain.Member) error {
	item, err := attributevalue.MarshalMap(toMemberItem(m))
	if err != nil {
		return fail("encode member", err)
	}
	sameID := expression.Name("member_id").Equal(expression.Value(m.ID))
	mine := itemAbsent().Or(sameID)
	put, err := putItem(item, &mine)
	if err != nil {
		return err
	}
	moved := previous != nil && (previous.OrganizationID != m.OrganizationID || previous.UserID != m.UserID)
	var leaving *string // one update may touch a profile only once: the same user's entry moves in one
	if moved && previous.UserID == m.UserID {
		leaving = &previous.OrganizationID
	}
	profile, err := membershipEntry(m, orgName, leaving)
	if err != nil {
		return err
	}
	items := []types.TransactWriteItem{put, profile}
	if moved {
		gone, err := deleteItem(memberKey(previous.OrganizationID, previous.UserID), &sameID)
		if err != nil {
			return err
		}
		items = append(items, gone)
		if leaving == nil {
			present := itemPresent()
			left, err := updateItem(userKey(previous.UserID),
				expression.Remove(expression.Name("memberships."+previous.OrganizationID)), &present)
			if err != nil {
				return err
			}
			items = append(items, left)
		}
	}
	err = s.transact(ctx, "write member "+m.ID, items)
	switch {
	case conditionFailed(err, 0):
		return &domain.Error{Code: domain.EINVALID,
			Detail: "the user already has another membership of this organization", Err: err}
	case conditionFailed(err, 1):
		return &domain.Error{Code: domain.EINVALID, Detail: fmt.Sprintf("user %s does not exist", m.UserID), Err: err}
	case moved && conditionFailed(err, 2):
		return &domain.Error{Code: domain.ECONFLICT, Detail: "the member was changed since it was read", Err: err}
	}
	return err
}

// PutPortfolio creates or replaces portfolio p. previousOrgID is the organization it is stored under
// ("" for a new one): the organization is part of the key, so a portfolio that changes organization is
// deleted there in the same transaction.
func (s *Store) PutPortfolio(ctx context.Context, p domain.Portfolio, previousOrgID string) error {
	item, err := attributevalue.MarshalMap(toPortfolioItem(p))
	if err != nil {
		return fail("encode portfolio", err)
	}
	put, err := putItem(item, nil)
	if err != nil {
		return err
	}
	items := []types.TransactWriteItem{put}
	if previousOrgID != "" && previousOrgID != p.OrganizationID {
		gone, err := deleteItem(portfolioKey(previousOrgID, p.ID), nil)
		if err != nil {
			return err
		}
		items = append(items, gone)
	}
	return s.transact(ctx, "write portfolio "+p.ID, items)
}

// PutInvitation creates invitation inv, or saves it over stored (the invitation as read) with the API's
// own SaveInvitation, as the loader gives it (inviter included), with the copy of what it shows read from
// the items it refers to (the loader writes them first). A create is conditional on there being none,
// a save on the version read, so that a concurrent API save is not lost silently; both move the
// invitation's counts as the API's writes do. Returns ECONFLICT when the invitation changed since it
// was read.
func (s *Store) PutInvitation(ctx context.Context, inv domain.Invitation, stored *domain.Invitation) error {
	if stored == nil {
		return s.PutNewInvitations(ctx, []domain.Invitation{inv})
	}
	refs, err := s.invitationPageRefs(ctx, []domain.Invitation{inv})
	if err != nil {
		return err
	}
	inv.Shown = nil // a reference that is not there (the loader validated them) is a fault a read reports
	if shown, err := inv.ShownFrom(refs); err == nil {
		inv.Shown = &shown
	}
	// One that exists is saved as the API saves one (its inviter included), from its version.
	inv.Version = stored.Version
	return s.SaveInvitation(ctx, *stored, inv, nil)
}

// RefreshInvitationCopies brings the copy each invitation of the organizations keeps of what it shows
// (its organization's name, its inviter's names and email, its portfolios) in step with the items
// themselves, after the loader changed some of them. An invitation whose copy is right is not written;
// one whose copy is wrong is saved with the API's write (SaveInvitation: conditional on its version,
// which grows, so that an API save that read the old names retries rather than write them back). Like
// the memberships' copy of an organization's name, this follows the entries' writes rather than joining
// them: a rerun of the load repairs a copy that an interrupted load left behind.
func (s *Store) RefreshInvitationCopies(ctx context.Context, orgIDs []string) error {
	for _, org := range orgIDs {
		ids, err := s.orgInvitationIDs(ctx, org)
		if err != nil {
			return err
		}
		invs, err := s.InvitationsByID(ctx, ids)
		if err != nil {
			return err
		}
		if len(invs) == 0 {
			continue
		}
		// What the organization's invitations refer to, read together (batches of 100 keys, in parallel).
		refs, err := s.invitationPageRefs(ctx, invs)
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

// refreshInvitationCopy saves inv's copy from refs when it differs. inv comes from an index, which may
// lag behind the item: when its version is stale the item itself is read, strongly consistent, and
// refreshed from that once. A second stale version is a concurrent save: ECONFLICT, and a rerun of the
// load completes the refresh.
func (s *Store) refreshInvitationCopy(ctx context.Context, inv domain.Invitation, refs domain.InvitationRefs) error {
	err := s.saveShown(ctx, inv, refs)
	if domain.ErrorCode(err) != domain.ECONFLICT {
		return err
	}
	if inv, err = s.Invitation(ctx, inv.ID); err != nil {
		if domain.ErrorCode(err) == domain.ENOTFOUND {
			return nil // deleted meanwhile: nothing to refresh
		}
		return err
	}
	if refs, err = s.invitationPageRefs(ctx, []domain.Invitation{inv}); err != nil {
		return err
	}
	return s.saveShown(ctx, inv, refs)
}

// saveShown saves inv with the copy refs give, unless that is what it holds already.
func (s *Store) saveShown(ctx context.Context, inv domain.Invitation, refs domain.InvitationRefs) error {
	shown, err := inv.ShownFrom(refs)
	if err != nil || inv.Shown.Equal(&shown) {
		return nil // nothing to copy from (a read reports the fault), or nothing to change
	}
	before := inv
	inv.Shown = &shown
	return s.SaveInvitation(ctx, before, inv, nil)
}
