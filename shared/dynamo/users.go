package dynamo

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/reportingplatform/api/shared/domain"
)

// userItem is a user as stored: USER#<id> / PROFILE. Memberships (organization id → membership) are
// copied onto it so that authentication reads the caller's organizations with the token, in one call.
type userItem struct {
	PK           string                    `dynamodbav:"PK"`
	SK           string                    `dynamodbav:"SK"`
	ID           string                    `dynamodbav:"id"`
	Email        string                    `dynamodbav:"email"`
	PasswordHash string                    `dynamodbav:"password_hash"`
	FirstName    *string                   `dynamodbav:"first_name"`
	LastName     *string                   `dynamodbav:"last_name"`
	IsStaff      bool                      `dynamodbav:"is_staff"`
	IsSuperuser  bool                      `dynamodbav:"is_superuser"`
	IsActive     bool                      `dynamodbav:"is_active"`
	LastLogin    *string                   `dynamodbav:"last_login"`
	DateJoined   string                    `dynamodbav:"date_joined"`
	CreatedAt    string                    `dynamodbav:"created_at"`
	UpdatedAt    string                    `dynamodbav:"updated_at"`
	Memberships  map[string]membershipAttr `dynamodbav:"memberships"`
}

type membershipAttr struct {
	MemberID string `dynamodbav:"member_id"`
	OrgName  string `dynamodbav:"org_name"`
	Role     int    `dynamodbav:"role"`
}

// emailItem claims an email: EMAIL#<lower-cased email> / EMAIL → the user id.
type emailItem struct {
	PK     string `dynamodbav:"PK"`
	SK     string `dynamodbav:"SK"`
	UserID string `dynamodbav:"user_id"`
}

type tokenItem struct {
	PK        string `dynamodbav:"PK"`
	SK        string `dynamodbav:"SK"`
	UserID    string `dynamodbav:"user_id"`
	CreatedAt string `dynamodbav:"created_at"`
	ExpiresAt string `dynamodbav:"expires_at"`
	TTL       int64  `dynamodbav:"expires_at_epoch"`
}

func toUserItem(u domain.User) userItem {
	k := userKey(u.ID)
	it := userItem{
		PK: k.PK, SK: k.SK, ID: u.ID, Email: u.Email, PasswordHash: u.PasswordHash,
		FirstName: u.FirstName, LastName: u.LastName,
		IsStaff: u.IsStaff, IsSuperuser: u.IsSuperuser, IsActive: u.IsActive,
		DateJoined: domain.FormatTime(u.DateJoined), CreatedAt: domain.FormatTime(u.CreatedAt),
		UpdatedAt: domain.FormatTime(u.UpdatedAt), Memberships: map[string]membershipAttr{},
	}
	if u.LastLogin != nil {
		it.LastLogin = aws.String(domain.FormatTime(*u.LastLogin))
	}
	for _, m := range u.Memberships {
		it.Memberships[m.OrganizationID] = membershipAttr{MemberID: m.MemberID, OrgName: m.OrganizationName, Role: int(m.Role)}
	}
	return it
}

func decodeUser(item map[string]types.AttributeValue) (domain.User, error) {
	var it userItem
	if err := attributevalue.UnmarshalMap(item, &it); err != nil {
		return domain.User{}, fail("decode user", err)
	}
	u := domain.User{
		ID: it.ID, Email: it.Email, PasswordHash: it.PasswordHash, FirstName: it.FirstName, LastName: it.LastName,
		IsStaff: it.IsStaff, IsSuperuser: it.IsSuperuser, IsActive: it.IsActive,
	}
	if err := parseTimes("decode user", timeField{&u.DateJoined, it.DateJoined}, timeField{&u.CreatedAt, it.CreatedAt},
		timeField{&u.UpdatedAt, it.UpdatedAt}); err != nil {
		return domain.User{}, err
	}
	if it.LastLogin != nil {
		t, err := domain.ParseTime(*it.LastLogin)
		if err != nil {
			return domain.User{}, fail("decode user last_login", err)
		}
		u.LastLogin = &t
	}
	for orgID, m := range it.Memberships {
		u.Memberships = append(u.Memberships, domain.Membership{
			MemberID: m.MemberID, OrganizationID: orgID, OrganizationName: m.OrgName, Role: domain.Role(m.Role),
		})
	}
	sortMemberships(u.Memberships)
	return u, nil
}

// CreateUser writes the user and claims its email in one transaction, so two concurrent creates of one
// email give one user. Returns EINVALID under "email" when the email is taken.
func (s *Store) CreateUser(ctx context.Context, u domain.User) error {
	user, err := attributevalue.MarshalMap(toUserItem(u))
	if err != nil {
		return fail("encode user", err)
	}
	ek := emailKey(u.Email)
	claim, err := attributevalue.MarshalMap(emailItem{PK: ek.PK, SK: ek.SK, UserID: u.ID})
	if err != nil {
		return fail("encode email claim", err)
	}
	err = s.transact(ctx, "create user", []types.TransactWriteItem{
		{Put: &types.Put{Item: user, ConditionExpression: aws.String("attribute_not_exists(PK)")}},
		{Put: &types.Put{Item: claim, ConditionExpression: aws.String("attribute_not_exists(PK)")}},
	})
	if conditionFailed(err, 1) {
		return domain.FieldError("email", "user with this email already exists.")
	}
	return err
}

// noUserID names no user: UserByEmail reads it when the email is unknown.
const noUserID = "00000000-0000-0000-0000-000000000000"

// UserByEmail reads the email claim, then the user. Returns ENOTFOUND when there is no such user. An
// unknown email still costs the second read (of a user that never exists), so that login takes as long
// for an unknown email as for a known one: response times must not tell which emails have accounts.
func (s *Store) UserByEmail(ctx context.Context, email string) (domain.User, error) {
	item, ok, err := s.getItem(ctx, "get email claim", emailKey(email))
	if err != nil {
		return domain.User{}, err
	}
	if !ok {
		if _, _, err := s.getItem(ctx, "get no user", userKey(noUserID)); err != nil {
			return domain.User{}, err
		}
		return domain.User{}, domain.NotFound()
	}
	var claim emailItem
	if err := attributevalue.UnmarshalMap(item, &claim); err != nil {
		return domain.User{}, fail("decode email claim", err)
	}
	return s.User(ctx, claim.UserID)
}

// User reads one user. Returns ENOTFOUND when it does not exist.
func (s *Store) User(ctx context.Context, id string) (domain.User, error) {
	item, ok, err := s.getItem(ctx, "get user", userKey(id))
	if err != nil {
		return domain.User{}, err
	}
	if !ok {
		return domain.User{}, domain.NotFound()
	}
	return decodeUser(item)
}

// TokenUser reads the token and its user in one BatchGetItem. Returns ENOTFOUND when either is missing
// or they do not belong together.
func (s *Store) TokenUser(ctx context.Context, userID, tokenHash string) (domain.User, domain.Token, error) {
	uk, tk := userKey(userID), tokenKey(tokenHash)
	items, err := s.batchGet(ctx, "get token and user", []key{uk, tk})
	if err != nil {
		return domain.User{}, domain.Token{}, err
	}
	if items[uk] == nil || items[tk] == nil {
		return domain.User{}, domain.Token{}, domain.NotFound()
	}
	var ti tokenItem
	if err := attributevalue.UnmarshalMap(items[tk], &ti); err != nil {
		return domain.User{}, domain.Token{}, fail("decode token", err)
	}
	if ti.UserID != userID {
		return domain.User{}, domain.Token{}, domain.NotFound()
	}
	t := domain.Token{Hash: tokenHash, UserID: ti.UserID}
	if t.CreatedAt, err = domain.ParseTime(ti.CreatedAt); err != nil {
		return domain.User{}, domain.Token{}, fail("decode token created_at", err)
	}
	if t.ExpiresAt, err = domain.ParseTime(ti.ExpiresAt); err != nil {
		return domain.User{}, domain.Token{}, fail("decode token expires_at", err)
	}
	u, err := decodeUser(items[uk])
	return u, t, err
}

// RecordLogin stores the new token and the user's last_login (and an upgraded password hash) in one
// transaction. The user must still exist.
func (s *Store) RecordLogin(ctx context.Context, u domain.User, t domain.Token, newPasswordHash string) error {
	tk := tokenKey(t.Hash)
	token, err := attributevalue.MarshalMap(tokenItem{
		PK: tk.PK, SK: tk.SK, UserID: t.UserID, CreatedAt: domain.FormatTime(t.CreatedAt),
		ExpiresAt: domain.FormatTime(t.ExpiresAt), TTL: t.ExpiresAt.Unix(),
	})
	if err != nil {
		return fail("encode token", err)
	}
	set := "SET last_login = :login"
	values := map[string]types.AttributeValue{
		":login": &types.AttributeValueMemberS{Value: domain.FormatTime(*u.LastLogin)},
	}
	if newPasswordHash != "" {
		set += ", password_hash = :hash"
		values[":hash"] = &types.AttributeValueMemberS{Value: newPasswordHash}
	}
	return s.transact(ctx, "record login", []types.TransactWriteItem{
		{Put: &types.Put{Item: token, ConditionExpression: aws.String("attribute_not_exists(PK)")}},
		{Update: &types.Update{
			Key: userKey(u.ID).av(), UpdateExpression: aws.String(set),
			ConditionExpression:       aws.String("attribute_exists(PK)"),
			ExpressionAttributeValues: values,
		}},
	})
}
