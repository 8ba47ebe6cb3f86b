package dynamo

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/reportingplatform/api/shared/domain"
)

// userItem is a user as stored: USER#<id> / PROFILE. Memberships (organization id → membership) are
// copied onto it so that authentication reads the caller's organizations with the token, in one call.
type userItem struct {
	PK           string  `dynamodbav:"PK"`
	SK           string  `dynamodbav:"SK"`
	PasswordHash string  `dynamodbav:"password_hash"`
	LastLogin    *string `dynamodbav:"last_login"`
	profileAttrs
}

// profileAttrs are what a login shows of a user.
type profileAttrs struct {
	ID          string                    `dynamodbav:"id"`
	Email       string                    `dynamodbav:"email"`
	FirstName   *string                   `dynamodbav:"first_name"`
	LastName    *string                   `dynamodbav:"last_name"`
	IsStaff     bool                      `dynamodbav:"is_staff"`
	IsSuperuser bool                      `dynamodbav:"is_superuser"`
	IsActive    bool                      `dynamodbav:"is_active"`
	DateJoined  string                    `dynamodbav:"date_joined"`
	CreatedAt   string                    `dynamodbav:"created_at"`
	UpdatedAt   string                    `dynamodbav:"updated_at"`
	Memberships map[string]membershipAttr `dynamodbav:"memberships"`
}

// attrVersion is the version of items whose writes are conditional on it (invitations, comments).
const attrVersion = "version"

type membershipAttr struct {
	MemberID string `dynamodbav:"member_id"`
	OrgName  string `dynamodbav:"org_name"`
	Role     int    `dynamodbav:"role"`
}

// emailItem claims an email: EMAIL#<lower-cased email> / EMAIL → the user id. It also carries a copy
// of the user's credentials (password hash, active flag), written in the same transaction as the user
// whenever they change, so that login decides with the one read that finds the email.
type emailItem struct {
	PK           string `dynamodbav:"PK"`
	SK           string `dynamodbav:"SK"`
	UserID       string `dynamodbav:"user_id"`
	PasswordHash string `dynamodbav:"password_hash"`
	IsActive     bool   `dynamodbav:"is_active"`
}

func toEmailItem(u domain.User) emailItem {
	k := emailKey(u.Email)
	return emailItem{PK: k.PK, SK: k.SK, UserID: u.ID, PasswordHash: u.PasswordHash, IsActive: u.IsActive}
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
	it := userItem{PK: k.PK, SK: k.SK, PasswordHash: u.PasswordHash, profileAttrs: toProfileAttrs(u)}
	if u.LastLogin != nil {
		it.LastLogin = aws.String(domain.FormatTime(*u.LastLogin))
	}
	return it
}

func toProfileAttrs(u domain.User) profileAttrs {
	p := profileAttrs{
		ID: u.ID, Email: u.Email, FirstName: u.FirstName, LastName: u.LastName,
		IsStaff: u.IsStaff, IsSuperuser: u.IsSuperuser, IsActive: u.IsActive,
		DateJoined: domain.FormatTime(u.DateJoined), CreatedAt: domain.FormatTime(u.CreatedAt),
		UpdatedAt: domain.FormatTime(u.UpdatedAt), Memberships: map[string]membershipAttr{},
	}
	for _, m := range u.Memberships {
		p.Memberships[m.OrganizationID] = membershipAttr{MemberID: m.MemberID, OrgName: m.OrganizationName, Role: int(m.Role)}
	}
	return p
}

func decodeUser(item map[string]types.AttributeValue) (domain.User, error) {
	var it userItem
	if err := attributevalue.UnmarshalMap(item, &it); err != nil {
		return domain.User{}, fail("decode user", err)
	}
	u, err := it.profileAttrs.domain()
	if err != nil {
		return domain.User{}, err
	}
	u.PasswordHash = it.PasswordHash
	if it.LastLogin != nil {
		t, err := domain.ParseTime(*it.LastLogin)
		if err != nil {
			return domain.User{}, fail("decode user last_login", err)
		}
		u.LastLogin = &t
	}
	return u, nil
}

func (p profileAttrs) domain() (domain.User, error) {
	u := domain.User{
		ID: p.ID, Email: p.Email, FirstName: p.FirstName, LastName: p.LastName,
		IsStaff: p.IsStaff, IsSuperuser: p.IsSuperuser, IsActive: p.IsActive,
	}
	if err := parseTimes("decode user", timeField{&u.DateJoined, p.DateJoined}, timeField{&u.CreatedAt, p.CreatedAt},
		timeField{&u.UpdatedAt, p.UpdatedAt}); err != nil {
		return domain.User{}, err
	}
	for orgID, m := range p.Memberships {
		u.Memberships = append(u.Memberships, domain.Membership{
			MemberID: m.MemberID, OrganizationID: orgID, OrganizationName: m.OrgName, Role: domain.Role(m.Role),
		})
	}
	sortMemberships(u.Memberships)
	return u, nil
}

// CreateUser writes the user and claims its email in one transaction, so two concurrent creates of one
// email give one user; the same transaction completes done's claim. Returns domain.ErrEmailTaken when
// the email is taken.
func (s *Store) CreateUser(ctx context.Context, u domain.User, done *domain.IdempotencyDone) error {
	var puts []types.TransactWriteItem
	for _, it := range []any{toUserItem(u), toEmailItem(u)} {
		put, err := putNew("user", it)
		if err != nil {
			return err
		}
		puts = append(puts, put)
	}
	err := s.transactDone(ctx, "create user", puts, done)
	if conditionFailed(err, 1) {
		return fmt.Errorf("create user %s: %w", u.ID, domain.ErrEmailTaken)
	}
	return err
}

// User reads one user. Returns ENOTFOUND when it does not exist.
func (s *Store) User(ctx context.Context, id string) (domain.User, error) {
	return getDecoded(ctx, s, "get user", userKey(id), readOptions{}, decodeUser)
}

// Session reads the token and its user in one BatchGetItem.
func (s *Store) Session(ctx context.Context, ref domain.TokenRef) (domain.Session, error) {
	items, err := s.batchGet(ctx, "read session", sessionKeys(ref))
	if err != nil {
		return domain.Session{}, err
	}
	return decodeSession(items, ref)
}

// RevokeToken deletes the token of ref; deleting one already gone is no error (a logout said twice).
func (s *Store) RevokeToken(ctx context.Context, ref domain.TokenRef) error {
	return s.transact(ctx, "revoke token",
		[]types.TransactWriteItem{{Delete: &types.Delete{Key: tokenKey(ref.Hash).av()}}})
}

// sessionKeys are the items of a session, to be read in the same BatchGetItem as a request's first data.
func sessionKeys(ref domain.TokenRef) []key { return []key{userKey(ref.UserID), tokenKey(ref.Hash)} }

// decodeSession makes the session of ref out of a batch that read sessionKeys(ref).
func decodeSession(items map[key]map[string]types.AttributeValue, ref domain.TokenRef) (domain.Session, error) {
	uk, tk := userKey(ref.UserID), tokenKey(ref.Hash)
	if items[uk] == nil || items[tk] == nil {
		return domain.Session{}, nil
	}
	var ti tokenItem
	if err := attributevalue.UnmarshalMap(items[tk], &ti); err != nil {
		return domain.Session{}, fail("decode token", err)
	}
	if ti.UserID != ref.UserID {
		return domain.Session{}, nil
	}
	t := domain.Token{Hash: ref.Hash, UserID: ti.UserID}
	var err error
	if t.CreatedAt, err = domain.ParseTime(ti.CreatedAt); err != nil {
		return domain.Session{}, fail("decode token created_at", err)
	}
	if t.ExpiresAt, err = domain.ParseTime(ti.ExpiresAt); err != nil {
		return domain.Session{}, fail("decode token expires_at", err)
	}
	u, err := decodeUser(items[uk])
	if err != nil {
		return domain.Session{}, err
	}
	return domain.Session{User: u, Token: t, Found: true}, nil
}
