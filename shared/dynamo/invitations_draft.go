package dynamo

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/reportingplatform/api/shared/domain"
)

// What creating an invitation reads (SPEC §10), in two steps: before the caller is known, a handful of
// items with the session (SPEC §9: nothing in a number the caller chooses); once it is, the portfolios
// the body names and the invitations to the address.

// pendingClaimItem is ORG#<org> / PENDING#<email>: which invitation last claimed the address.
type pendingClaimItem struct {
	PK           string `dynamodbav:"PK"`
	SK           string `dynamodbav:"SK"`
	InvitationID string `dynamodbav:"invitation_id"`
}

// quotaItem counts the invitations of one user in the window that started with the first of them
// (keys.go: invitationQuotaKey). DynamoDB's TTL removes it some time after the window ends; until then
// window_ends tells that it is over.
type quotaItem struct {
	Used       int   `dynamodbav:"used"`
	WindowEnds int64 `dynamodbav:"window_ends"` // Unix milliseconds
}

// SessionAndDraft reads, in one BatchGetItem, the session, the caller's invitation quota and, as far as
// q names them, the organization, the email's claim and the organization's pending claim on it: at
// most seven items, whatever the body. What the caller may choose the number of (portfolios, the
// address's invitations) is DraftDetails', once the session is checked.
func (s *Store) SessionAndDraft(ctx context.Context, ref domain.TokenRef,
	q domain.InvitationDraft) (domain.DraftRead, error) {
	qk := invitationQuotaKey(ref.UserID)
	keys := append(sessionKeys(ref), qk)
	var ok, ek, ck key
	if q.OrganizationID != "" {
		ok = orgKey(q.OrganizationID)
		keys = append(keys, ok)
	}
	if q.Email != "" {
		ek = emailKey(q.Email)
		keys = append(keys, ek)
	}
	if q.OrganizationID != "" && q.Email != "" {
		ck = pendingClaimKey(q.OrganizationID, q.Email)
		keys = append(keys, ck)
	}
	items, err := s.batchGet(ctx, "read session and invitation draft", keys)
	if err != nil {
		return domain.DraftRead{}, err
	}
	var out domain.DraftRead
	if out.Session, err = decodeSession(items, ref); err != nil {
		return domain.DraftRead{}, err
	}
	if out.Quota, err = decodeQuota(items[qk]); err != nil {
		return domain.DraftRead{}, err
	}
	if item := items[ok]; item != nil {
		o, err := decodeOrganization(item)
		if err != nil {
			return domain.DraftRead{}, err
		}
		out.Organization = &o
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
	return out, nil
}

func decodeQuota(item map[string]types.AttributeValue) (domain.InvitationQuota, error) {
	if item == nil {
		return domain.InvitationQuota{}, nil
	}
	var it quotaItem
	if err := attributevalue.UnmarshalMap(item, &it); err != nil {
		return domain.InvitationQuota{}, fail("decode invitation quota", err)
	}
	return domain.InvitationQuota{Used: it.Used, Ends: time.UnixMilli(it.WindowEnds).UTC()}, nil
}

// DraftDetails completes d, what SessionAndDraft read for q, with the portfolios q names and the
// pending invitations to q.Email in q.OrganizationID: the portfolios and the invitation the pending
// claim names in one BatchGetItem, beside one Query of the address's pending invitations from the
// organization in GSI2, which carries their expiry. The claimed invitation is read by key because GSI2
// may not show it yet (the claim is strongly consistent, the
// index is not). Whether the email's user is a member is left to the write (CreateInvitation) or, when
// a refusal must name it, to HasMember.
func (s *Store) DraftDetails(ctx context.Context, q domain.InvitationDraft,
	d domain.DraftRead) (domain.DraftRead, error) {
	var keys []key
	for _, p := range q.PortfolioIDs {
		keys = append(keys, portfolioKey(q.OrganizationID, p))
	}
	if d.ClaimedBy != "" {
		keys = append(keys, invitationKey(d.ClaimedBy))
	}
	var (
		items    map[key]map[string]types.AttributeValue
		whole    []domain.Invitation
		errItems error
		errWhole error
		wg       sync.WaitGroup
	)
	if len(keys) > 0 {
		wg.Add(1)
		go func() { defer wg.Done(); items, errItems = s.batchGet(ctx, "read invitation draft", keys) }()
	}
	whole, errWhole = s.pendingInvitations(ctx, q.OrganizationID, q.Email)
	wg.Wait()
	if err := errors.Join(errItems, errWhole); err != nil {
		return domain.DraftRead{}, err
	}
	d.Portfolios = map[string]domain.Portfolio{}
	folioKey := func(id string) key { return portfolioKey(q.OrganizationID, id) }
	if err := decodeFound(d.Portfolios, q.PortfolioIDs, folioKey, items, decodePortfolio); err != nil {
		return domain.DraftRead{}, err
	}
	d.Invitations = nil
	seen := map[string]bool{}
	keep := func(inv domain.Invitation) {
		seen[inv.ID] = true
		if inv.OrganizationID == q.OrganizationID && domain.EmailKey(inv.Email) == domain.EmailKey(q.Email) {
			d.Invitations = append(d.Invitations, inv)
		}
	}
	for _, inv := range whole {
		keep(inv)
	}
	// A claim naming an invitation that is gone claims nothing.
	if item := items[invitationKey(d.ClaimedBy)]; d.ClaimedBy != "" && !seen[d.ClaimedBy] && item != nil {
		inv, err := decodeInvitation(item)
		if err != nil {
			return domain.DraftRead{}, err
		}
		keep(inv)
	}
	return d, nil
}

// pendingInvitations reads the invitations to email from org stored as pending, with their expiry (an
// effective status's worth of each), from GSI2.
func (s *Store) pendingInvitations(ctx context.Context, org, email string) ([]domain.Invitation, error) {
	src := domain.InvitationSource{OrganizationID: org, Email: email}
	var out []domain.Invitation
	_, err := s.queryPartition(ctx, sourceQuery(src, domain.StatusPending),
		func(item map[string]types.AttributeValue) error {
			expiry, err := domain.ParseTime(stringAttr(item, "expiry_date"))
			if err != nil {
				return fail("decode pending invitation entry", err)
			}
			out = append(out, domain.Invitation{ID: idAfter(stringAttr(item, attrPK), "INVITATION#"),
				OrganizationID: org, Email: email, Status: domain.StatusPending, ExpiryDate: expiry})
			return nil
		})
	return out, err
}
