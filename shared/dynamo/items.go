package dynamo

import (
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/reportingplatform/api/shared/domain"
)

// The stored forms of organizations, members, portfolios, invitations, comments and comment counters,
// and their conversions. Keys come from keys.go.

type orgItem struct {
	PK   string `dynamodbav:"PK"`
	SK   string `dynamodbav:"SK"`
	ID   string `dynamodbav:"id"`
	Name string `dynamodbav:"name"`
}

func (it orgItem) domain() domain.Organization { return domain.Organization{ID: it.ID, Name: it.Name} }

func decodeOrganization(item map[string]types.AttributeValue) (domain.Organization, error) {
	var it orgItem
	if err := attributevalue.UnmarshalMap(item, &it); err != nil {
		return domain.Organization{}, fail("decode organization", err)
	}
	return it.domain(), nil
}

// memberItem is ORG#<org> / MEMBER#<user>: one membership per user and organization by construction.
type memberItem struct {
	PK     string `dynamodbav:"PK"`
	SK     string `dynamodbav:"SK"`
	GSI1PK string `dynamodbav:"GSI1PK"`
	GSI1SK string `dynamodbav:"GSI1SK"`
	ID     string `dynamodbav:"member_id"`
	OrgID  string `dynamodbav:"org_id"`
	UserID string `dynamodbav:"user_id"`
	Role   int    `dynamodbav:"role"`
}

func toMemberItem(m domain.Member) memberItem {
	k, ik := memberKey(m.OrganizationID, m.UserID), memberIndexKey(m.ID)
	return memberItem{PK: k.PK, SK: k.SK, GSI1PK: ik.PK, GSI1SK: ik.SK, ID: m.ID, OrgID: m.OrganizationID,
		UserID: m.UserID, Role: int(m.Role)}
}

func (it memberItem) domain() domain.Member {
	return domain.Member{ID: it.ID, OrganizationID: it.OrgID, UserID: it.UserID, Role: domain.Role(it.Role)}
}

type portfolioItem struct {
	PK     string `dynamodbav:"PK"`
	SK     string `dynamodbav:"SK"`
	GSI1PK string `dynamodbav:"GSI1PK"`
	GSI1SK string `dynamodbav:"GSI1SK"`
	ID     string `dynamodbav:"id"`
	OrgID  string `dynamodbav:"org_id"`
	Name   string `dynamodbav:"name"`
}

func toPortfolioItem(p domain.Portfolio) portfolioItem {
	k, ik := portfolioKey(p.OrganizationID, p.ID), portfolioIndexKey(p.ID)
	return portfolioItem{PK: k.PK, SK: k.SK, GSI1PK: ik.PK, GSI1SK: ik.SK, ID: p.ID, OrgID: p.OrganizationID, Name: p.Name}
}

func (it portfolioItem) domain() domain.Portfolio {
	return domain.Portfolio{ID: it.ID, OrganizationID: it.OrgID, Name: it.Name}
}

func decodePortfolio(item map[string]types.AttributeValue) (domain.Portfolio, error) {
	var it portfolioItem
	if err := attributevalue.UnmarshalMap(item, &it); err != nil {
		return domain.Portfolio{}, fail("decode portfolio", err)
	}
	return it.domain(), nil
}

type invitationItem struct {
	PK              string     `dynamodbav:"PK"`
	SK              string     `dynamodbav:"SK"`
	GSI1PK          string     `dynamodbav:"GSI1PK"`
	GSI1SK          string     `dynamodbav:"GSI1SK"`
	GSI2PK          string     `dynamodbav:"GSI2PK"`
	GSI2SK          string     `dynamodbav:"GSI2SK"`
	GSI3PK          string     `dynamodbav:"GSI3PK"`
	GSI3SK          string     `dynamodbav:"GSI3SK"`
	GSI5PK          string     `dynamodbav:"GSI5PK,omitempty"`
	GSI5SK          string     `dynamodbav:"GSI5SK,omitempty"`
	ID              string     `dynamodbav:"id"`
	Token           string     `dynamodbav:"token"`
	OrgID           string     `dynamodbav:"org_id"`
	InviterMemberID string     `dynamodbav:"inviter_member_id"`
	InviterUserID   string     `dynamodbav:"inviter_user_id"`
	Email           string     `dynamodbav:"email"`
	FirstName       *string    `dynamodbav:"first_name"`
	LastName        *string    `dynamodbav:"last_name"`
	Role            int        `dynamodbav:"role"`
	Status          int        `dynamodbav:"status"`
	EmailSent       bool       `dynamodbav:"email_sent"`
	PortfolioIDs    []string   `dynamodbav:"portfolio_ids"`
	ExpiryDate      string     `dynamodbav:"expiry_date"`
	CreatedAt       string     `dynamodbav:"created_at"`
	UpdatedAt       string     `dynamodbav:"updated_at"`
	Version         int64      `dynamodbav:"version"`
	Shown           *shownAttr `dynamodbav:"shown,omitempty"`
}

// attrShown holds the invitation's copy of what it shows (shownAttr).
const attrShown = "shown"

// invitationProjection names what a read of many invitations brings back: what decodeInvitation reads
// and the item's key (batchRead files its answers under it), not the index keys. Those are a large part
// of an invitation's bytes, and the SDK's decoding of a list's answer costs about as much as DynamoDB
// takes to send it. TestInvitationProjection holds it to invitationItem.
var invitationProjection = projectionOf(attrPK, attrSK, "id", "token", "org_id", "inviter_member_id",
	"inviter_user_id", "email", "first_name", "last_name", "role", "status", "email_sent", "portfolio_ids",
	"expiry_date", "created_at", "updated_at", attrVersion, attrShown)

// shownAttr is domain.InvitationShown as stored on the invitation.
type shownAttr struct {
	OrgName    string             `dynamodbav:"org_name"`
	Inviter    personAttr         `dynamodbav:"inviter"`
	Portfolios []portfolioRefAttr `dynamodbav:"portfolios"`
}

type personAttr struct {
	FirstName *string `dynamodbav:"first_name"`
	LastName  *string `dynamodbav:"last_name"`
	Email     string  `dynamodbav:"email"`
}

type portfolioRefAttr struct {
	ID   string `dynamodbav:"id"`
	Name string `dynamodbav:"name"`
}

func toShownAttr(s *domain.InvitationShown) *shownAttr {
	if s == nil {
		return nil
	}
	a := &shownAttr{
		OrgName:    s.OrganizationName,
		Inviter:    personAttr{FirstName: s.Inviter.FirstName, LastName: s.Inviter.LastName, Email: s.Inviter.Email},
		Portfolios: make([]portfolioRefAttr, 0, len(s.Portfolios)),
	}
	for _, p := range s.Portfolios {
		a.Portfolios = append(a.Portfolios, portfolioRefAttr{ID: p.ID, Name: p.Name})
	}
	return a
}

func (a *shownAttr) domain() *domain.InvitationShown {
	if a == nil {
		return nil
	}
	s := &domain.InvitationShown{
		OrganizationName: a.OrgName,
		Inviter:          domain.Person{FirstName: a.Inviter.FirstName, LastName: a.Inviter.LastName, Email: a.Inviter.Email},
		Portfolios:       make([]domain.Portfolio, 0, len(a.Portfolios)),
	}
	for _, p := range a.Portfolios {
		s.Portfolios = append(s.Portfolios, domain.Portfolio{ID: p.ID, Name: p.Name})
	}
	return s
}

func toInvitationItem(inv domain.Invitation) invitationItem {
	k := invitationKey(inv.ID)
	all := allInvitationsIndexKey(inv.Status, inv.CreatedAt, inv.ID)
	invitee := inviteeIndexKey(inv.Email, inv.OrganizationID, inv.Status, inv.CreatedAt, inv.ID)
	org := orgInvitationsIndexKey(inv.OrganizationID, inv.Status, inv.CreatedAt, inv.ID)
	var pending key // only a pending invitation is listed by expiry
	if inv.Status == domain.StatusPending {
		pending = pendingIndexKey(inv.ExpiryDate, inv.ID)
	}
	ids := inv.PortfolioIDs
	if ids == nil {
		ids = []string{}
	}
	return invitationItem{
		PK: k.PK, SK: k.SK, GSI1PK: all.PK, GSI1SK: all.SK, GSI2PK: invitee.PK, GSI2SK: invitee.SK,
		GSI3PK: org.PK, GSI3SK: org.SK, GSI5PK: pending.PK, GSI5SK: pending.SK, ID: inv.ID, Token: inv.Token,
		OrgID: inv.OrganizationID, InviterMemberID: inv.InviterMemberID, InviterUserID: inv.InviterUserID,
		Email: inv.Email, FirstName: inv.FirstName, LastName: inv.LastName, Role: int(inv.Role),
		Status: int(inv.Status), EmailSent: inv.EmailSent, PortfolioIDs: ids,
		ExpiryDate: domain.FormatTime(inv.ExpiryDate), CreatedAt: domain.FormatTime(inv.CreatedAt),
		UpdatedAt: domain.FormatTime(inv.UpdatedAt), Version: inv.Version, Shown: toShownAttr(inv.Shown),
	}
}

func decodeInvitation(item map[string]types.AttributeValue) (domain.Invitation, error) {
	var it invitationItem
	if err := attributevalue.UnmarshalMap(item, &it); err != nil {
		return domain.Invitation{}, fail("decode invitation", err)
	}
	inv := domain.Invitation{
		ID: it.ID, Token: it.Token, OrganizationID: it.OrgID, InviterMemberID: it.InviterMemberID,
		InviterUserID: it.InviterUserID, Email: it.Email, FirstName: it.FirstName, LastName: it.LastName,
		Role: domain.Role(it.Role), Status: domain.InvitationStatus(it.Status), EmailSent: it.EmailSent,
		PortfolioIDs: it.PortfolioIDs, Version: it.Version, Shown: it.Shown.domain(),
	}
	err := parseTimes("decode invitation",
		timeField{&inv.ExpiryDate, it.ExpiryDate}, timeField{&inv.CreatedAt, it.CreatedAt},
		timeField{&inv.UpdatedAt, it.UpdatedAt})
	return inv, err
}

// commentItem is COMMENT#<id> / COMMENT. Its GSI1 key lists it under its object in creation order, its
// GSI2 key (only when it has a tag) under its object and tag.
type commentItem struct {
	PK          string  `dynamodbav:"PK"`
	SK          string  `dynamodbav:"SK"`
	GSI1PK      string  `dynamodbav:"GSI1PK"`
	GSI1SK      string  `dynamodbav:"GSI1SK"`
	GSI2PK      string  `dynamodbav:"GSI2PK,omitempty"`
	GSI2SK      string  `dynamodbav:"GSI2SK,omitempty"`
	ID          string  `dynamodbav:"id"`
	OrgID       string  `dynamodbav:"org_id"`
	CommenterID string  `dynamodbav:"commenter_id"`
	ContentType string  `dynamodbav:"content_type"`
	ObjectID    string  `dynamodbav:"object_id"`
	Tag         *string `dynamodbav:"tag"`
	Text        string  `dynamodbav:"text"`
	ParentID    *string `dynamodbav:"parent_id"`
	CreatedAt   string  `dynamodbav:"created_at"`
	UpdatedAt   string  `dynamodbav:"updated_at"`
	Replies     int     `dynamodbav:"replies"`
	Version     int64   `dynamodbav:"version"`
	// Depth and Ancestors (root first, at most domain.MaxThreadDepth) place the comment in its thread,
	// so that a write checks depth and cycles from its parent alone.
	Depth     int      `dynamodbav:"depth"`
	Ancestors []string `dynamodbav:"ancestors,omitempty"`
}

func toCommentItem(c domain.Comment) commentItem {
	k, ik := commentKey(c.ID), commentIndexKey(c.ContentType, c.ObjectID, c.CreatedAt, c.ID)
	it := commentItem{
		PK: k.PK, SK: k.SK, GSI1PK: ik.PK, GSI1SK: ik.SK, ID: c.ID, OrgID: c.OrganizationID,
		CommenterID: c.CommenterID, ContentType: c.ContentType, ObjectID: c.ObjectID, Tag: c.Tag, Text: c.Text,
		ParentID: c.ParentID, CreatedAt: domain.FormatTime(c.CreatedAt), UpdatedAt: domain.FormatTime(c.UpdatedAt),
		Replies: c.Replies, Version: c.Version, Depth: c.Depth, Ancestors: c.Ancestors,
	}
	if c.Tag != nil {
		tk := commentTagIndexKey(c.ContentType, c.ObjectID, *c.Tag, c.CreatedAt, c.ID)
		it.GSI2PK, it.GSI2SK = tk.PK, tk.SK
	}
	return it
}

func decodeComment(item map[string]types.AttributeValue) (domain.Comment, error) {
	var it commentItem
	if err := attributevalue.UnmarshalMap(item, &it); err != nil {
		return domain.Comment{}, fail("decode comment", err)
	}
	c := domain.Comment{
		ID: it.ID, OrganizationID: it.OrgID, CommenterID: it.CommenterID, ContentType: it.ContentType,
		ObjectID: it.ObjectID, Tag: it.Tag, Text: it.Text, ParentID: it.ParentID, Replies: it.Replies, Version: it.Version,
		Depth: it.Depth, Ancestors: it.Ancestors,
	}
	err := parseTimes("decode comment", timeField{&c.CreatedAt, it.CreatedAt}, timeField{&c.UpdatedAt, it.UpdatedAt})
	return c, err
}

// countItem is an object's comment counter: OBJECT#<type>#<id> / COUNT (all comments, and the owning
// organization) or / COUNT#TAG#<tag> (comments with that tag). Counters change in the same transaction
// as the comments they count, so a list's count never needs a read of the comments.
type countItem struct {
	PK    string `dynamodbav:"PK"`
	SK    string `dynamodbav:"SK"`
	OrgID string `dynamodbav:"org_id,omitempty"`
	Count int    `dynamodbav:"n"`
	// Months are its counts by month ("M#2006-01" attributes, keys.go), read by decodeCount.
	Months map[string]int `dynamodbav:"-"`
}

type timeField struct {
	dst *time.Time
	src string
}

func parseTimes(step string, fields ...timeField) error {
	for _, f := range fields {
		t, err := domain.ParseTime(f.src)
		if err != nil {
			return fail(step, err)
		}
		*f.dst = t
	}
	return nil
}
