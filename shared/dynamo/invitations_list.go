package dynamo

import (
	"context"
	"math"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/reportingplatform/api/shared/domain"
)

// ListInvitations reads the invitations of scope. An organization's newest come whole from GSI3 (one
// Query per organization) and, of an organization with more than the store's listWhole, the rest as
// entries (orgListing); the invitee's come whole from GSI4; all in parallel. For staff, everyone's come
// as keys from GSI1 in the same parallel step, and those not already read are then read in one
// BatchGetItem. So a member's or an invitee's list costs one round trip after the session (two for an
// organization with many), the staff's two; never a Scan.
func (s *Store) ListInvitations(ctx context.Context, scope domain.InvitationScope) (domain.InvitationListing, error) {
	type part struct {
		invs    []domain.Invitation
		entries []domain.InvitationEntry
		ids     []string
		err     error
	}
	var jobs []func() part
	for _, org := range scope.OrganizationIDs {
		jobs = append(jobs, func() part {
			invs, entries, err := s.orgListing(ctx, org)
			return part{invs: invs, entries: entries, err: err}
		})
	}
	if scope.Email != "" {
		jobs = append(jobs, func() part {
			invs, err := s.inviteeInvitations(ctx, scope.Email)
			return part{invs: invs, err: err}
		})
	}
	if scope.All {
		jobs = append(jobs, func() part {
			entries, err := s.InvitationIndex(ctx)
			ids := make([]string, len(entries))
			for i, e := range entries {
				ids[i] = e.ID
			}
			return part{ids: ids, err: err}
		})
	}
	parts := make([]part, len(jobs))
	inParallel(len(jobs), func(i int) { parts[i] = jobs[i]() })

	// Each invitation once, whole where some part read it whole.
	seen := map[string]bool{}
	var out domain.InvitationListing
	var missing []string
	for _, p := range parts {
		if p.err != nil {
			return domain.InvitationListing{}, p.err
		}
		for _, inv := range p.invs {
			if !seen[inv.ID] {
				seen[inv.ID] = true
				out.Whole = append(out.Whole, inv)
			}
		}
	}
	for _, p := range parts {
		for _, e := range p.entries {
			if !seen[e.ID] {
				seen[e.ID] = true
				out.Entries = append(out.Entries, e)
			}
		}
		for _, id := range p.ids {
			if !seen[id] {
				seen[id] = true
				missing = append(missing, id)
			}
		}
	}
	more, err := s.InvitationsByID(ctx, missing)
	out.Whole = append(out.Whole, more...)
	return out, err
}

// orgListing reads an organization's invitations from GSI3, newest first: the first listWhole whole,
// the rest, when there are more, as entries from where that Query stopped. The SDK's decoding of whole
// invitations is most of what a long list costs, and an entry is a small part of one; DynamoDB bills
// the two Queries by the invitations they read, as it would bill one.
func (s *Store) orgListing(ctx context.Context, orgID string) ([]domain.Invitation, []domain.InvitationEntry, error) {
	q := orgPartition(orgID)
	q.descending, q.limit = true, s.listWhole
	invs, rest, err := s.wholeInvitations(ctx, q)
	if err != nil || rest == nil {
		return invs, nil, err
	}
	q.limit, q.start, q.projection = 0, rest, &invitationEntryProjection
	var entries []domain.InvitationEntry
	_, err = s.queryPartition(ctx, q, func(item map[string]types.AttributeValue) error {
		e, err := decodeInvitationEntry(item)
		entries = append(entries, e)
		return err
	})
	return invs, entries, err
}

// InvitationIndex reads every invitation's id and creation time from GSI1's one partition of them
// (keys only: the entry's key and sort key are all it brings back).
func (s *Store) InvitationIndex(ctx context.Context) ([]domain.InvitationEntry, error) {
	var entries []domain.InvitationEntry
	q := partitionQuery{index: indexGSI1, pkAttr: attrGSI1PK, partition: allInvitationsIndexKey(zeroTime, "").PK, projection: &invitationRefProjection}
	_, err := s.queryPartition(ctx, q, func(item map[string]types.AttributeValue) error {
		created, _, err := parseSortKey(stringAttr(item, attrGSI1SK))
		if err != nil {
			return fail("decode invitation index entry", err)
		}
		entries = append(entries, domain.InvitationEntry{ID: idAfter(stringAttr(item, attrPK), "INVITATION#"), CreatedAt: created})
		return nil
	})
	return entries, err
}

// invitationRefProjection is what InvitationIndex reads of an entry.
var invitationRefProjection = projectionOf(attrPK, attrGSI1SK)

// InvitationsByID reads the invitations ids name (as an index named them), whole but for their index
// keys, in one round trip, eventually consistent like the index; one gone since is left out.
func (s *Store) InvitationsByID(ctx context.Context, ids []string) ([]domain.Invitation, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	keys := make([]key, 0, len(ids))
	for _, id := range ids {
		keys = append(keys, invitationKey(id))
	}
	items, err := s.batchRead(ctx, "read invitations by id", keys, readOptions{eventual: true, projection: &invitationProjection})
	if err != nil {
		return nil, err
	}
	var out []domain.Invitation
	for _, k := range keys {
		if item := items[k]; item != nil {
			inv, err := decodeInvitation(item)
			if err != nil {
				return nil, err
			}
			out = append(out, inv)
		}
	}
	return out, nil
}

// orgInvitations reads every invitation of an organization from GSI3, which projects them whole.
func (s *Store) orgInvitations(ctx context.Context, orgID string) ([]domain.Invitation, error) {
	invs, _, err := s.wholeInvitations(ctx, orgPartition(orgID))
	return invs, err
}

// orgPartition is the Query of an organization's invitations in GSI3.
func orgPartition(orgID string) partitionQuery {
	return partitionQuery{index: indexGSI3, pkAttr: attrGSI3PK, partition: orgInvitationsIndexKey(orgID, zeroTime, "").PK}
}

// inviteeInvitations reads every invitation to an address from GSI4, which projects them whole.
func (s *Store) inviteeInvitations(ctx context.Context, email string) ([]domain.Invitation, error) {
	partition := inviteeIndexKey(email, zeroTime, "").PK
	invs, _, err := s.wholeInvitations(ctx, partitionQuery{index: indexGSI4, pkAttr: attrGSI2PK, partition: partition})
	return invs, err
}

// wholeInvitations reads the invitations q names under one partition of an index that projects them
// whole, and where a Query would go on past q.limit (nil when the partition is read to its end).
func (s *Store) wholeInvitations(ctx context.Context, q partitionQuery) ([]domain.Invitation, map[string]types.AttributeValue, error) {
	q.projection = &invitationProjection
	var out []domain.Invitation
	rest, err := s.queryPartition(ctx, q, func(item map[string]types.AttributeValue) error {
		inv, err := decodeInvitation(item)
		out = append(out, inv)
		return err
	})
	return out, rest, err
}

// partitionQuery is a Query of one index partition: in key order (or reversed), from start (nil: the
// first entry), at most limit entries (0: all), each with the attributes projection names (nil: all the
// index has).
type partitionQuery struct {
	index, pkAttr, partition string
	descending               bool
	start                    map[string]types.AttributeValue
	limit                    int
	projection               *projection
}

// queryPartition hands every entry q reads to each, page by page (a Query stops at 1 MB). rest is where
// a Query would go on after the limit (nil when the partition was read to its end).
func (s *Store) queryPartition(ctx context.Context, q partitionQuery, each func(map[string]types.AttributeValue) error) (rest map[string]types.AttributeValue, err error) {
	cond, err := expression.NewBuilder().WithKeyCondition(expression.Key(q.pkAttr).Equal(expression.Value(q.partition))).Build()
	if err != nil {
		return nil, fail("build index query", err)
	}
	read := 0
	start := q.start
	for {
		in := &dynamodb.QueryInput{
			TableName:                 aws.String(s.table),
			IndexName:                 aws.String(q.index),
			KeyConditionExpression:    cond.KeyCondition(),
			ExpressionAttributeNames:  cond.Names(),
			ExpressionAttributeValues: cond.Values(),
			ScanIndexForward:          aws.Bool(!q.descending),
			ExclusiveStartKey:         start,
			ReturnConsumedCapacity:    types.ReturnConsumedCapacityTotal,
		}
		if q.limit > 0 {
			in.Limit = aws.Int32(int32(min(q.limit-read, math.MaxInt32)))
		}
		if q.projection != nil {
			in.ProjectionExpression, in.ExpressionAttributeNames = &q.projection.expr, q.projection.with(cond.Names())
		}
		out, err := s.db.Query(ctx, in)
		if err != nil {
			return nil, fail("query "+q.index+" "+q.partition, err)
		}
		for _, item := range out.Items {
			if err := each(item); err != nil {
				return nil, err
			}
		}
		read += len(out.Items)
		if out.LastEvaluatedKey == nil || (q.limit > 0 && read >= q.limit) {
			return out.LastEvaluatedKey, nil
		}
		start = out.LastEvaluatedKey
	}
}

// invitationPageRefs reads the organizations, inviters and portfolios of invs in one BatchGetItem.
func (s *Store) invitationPageRefs(ctx context.Context, invs []domain.Invitation) (domain.InvitationRefs, error) {
	refs := domain.InvitationRefs{
		Organizations: map[string]domain.Organization{},
		Users:         map[string]domain.User{},
		Portfolios:    map[string]domain.Portfolio{},
	}
	var keys []key
	for _, inv := range invs {
		keys = append(keys, orgKey(inv.OrganizationID), userKey(inv.InviterUserID))
		for _, p := range inv.PortfolioIDs {
			keys = append(keys, portfolioKey(inv.OrganizationID, p))
		}
	}
	if len(keys) == 0 {
		return refs, nil
	}
	items, err := s.batchGet(ctx, "read invitation page references", keys)
	if err != nil {
		return domain.InvitationRefs{}, err
	}
	for k, item := range items {
		switch {
		case k.SK == "ORG":
			o, err := decodeOrganization(item)
			if err != nil {
				return domain.InvitationRefs{}, err
			}
			refs.Organizations[o.ID] = o
		case k.SK == "PROFILE":
			u, err := decodeUser(item)
			if err != nil {
				return domain.InvitationRefs{}, err
			}
			refs.Users[u.ID] = u
		default:
			p, err := decodePortfolio(item)
			if err != nil {
				return domain.InvitationRefs{}, err
			}
			refs.Portfolios[p.ID] = p
		}
	}
	return refs, nil
}
