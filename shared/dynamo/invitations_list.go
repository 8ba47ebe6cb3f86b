package dynamo

import (
	"context"
	"errors"
	"math"
	"strings"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"
	"github.com/reportingplatform/api/shared/domain"
)

// ListInvitations reads the invitations of scope. An organization's come whole from GSI3 (one Query per
// organization), the invitee's whole from GSI4, all in parallel; for staff, everyone's come as keys
// from GSI1 in the same parallel step, and those not already read are then read in one BatchGetItem.
// So a member's or an invitee's list costs one round trip after the session, the staff's two; never a
// Scan.
func (s *Store) ListInvitations(ctx context.Context, scope domain.InvitationScope) ([]domain.Invitation, error) {
	type part struct {
		invs []domain.Invitation
		ids  []string
		err  error
	}
	var jobs []func() part
	for _, org := range scope.OrganizationIDs {
		jobs = append(jobs, func() part {
			invs, err := s.orgInvitations(ctx, org)
			return part{invs: invs, err: err}
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
			ids, err := s.indexedInvitationIDs(ctx, indexGSI1, attrGSI1PK, allInvitationsIndexKey(zeroTime, "").PK)
			return part{ids: ids, err: err}
		})
	}
	parts := make([]part, len(jobs))
	var wg sync.WaitGroup
	for i, job := range jobs {
		wg.Add(1)
		go func() { defer wg.Done(); parts[i] = job() }()
	}
	wg.Wait()

	seen := map[string]bool{}
	var out []domain.Invitation
	var missing []string
	for _, p := range parts {
		if p.err != nil {
			return nil, p.err
		}
		for _, inv := range p.invs {
			if !seen[inv.ID] {
				seen[inv.ID] = true
				out = append(out, inv)
			}
		}
	}
	for _, p := range parts {
		for _, id := range p.ids {
			if !seen[id] {
				seen[id] = true
				missing = append(missing, id)
			}
		}
	}
	more, err := s.indexedInvitations(ctx, "read listed invitations", missing)
	return append(out, more...), err
}

// InvitationIndex reads every invitation's id and creation time from GSI1's one partition of them
// (keys only: the entry's key and sort key are all it brings back).
func (s *Store) InvitationIndex(ctx context.Context) ([]domain.InvitationRef, error) {
	var refs []domain.InvitationRef
	q := partitionQuery{index: indexGSI1, pkAttr: attrGSI1PK, partition: allInvitationsIndexKey(zeroTime, "").PK, projection: &invitationRefProjection}
	err := s.queryPartition(ctx, q, func(item map[string]types.AttributeValue) error {
		created, _, err := parseSortKey(stringAttr(item, attrGSI1SK))
		if err != nil {
			return fail("decode invitation index entry", err)
		}
		refs = append(refs, domain.InvitationRef{ID: idAfter(stringAttr(item, attrPK), "INVITATION#"), CreatedAt: created})
		return nil
	})
	return refs, err
}

// invitationRefProjection is what InvitationIndex reads of an entry.
var invitationRefProjection = projectionOf(attrPK, attrGSI1SK)

// InvitationsByID reads the invitations ids name, whole but for their index keys, in one round trip.
func (s *Store) InvitationsByID(ctx context.Context, ids []string) ([]domain.Invitation, error) {
	return s.indexedInvitations(ctx, "read invitations by id", ids)
}

// indexedInvitations reads the invitations a keys-only index named, eventually consistent like the
// index; one gone since the index said so is left out.
func (s *Store) indexedInvitations(ctx context.Context, step string, ids []string) ([]domain.Invitation, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	keys := make([]key, 0, len(ids))
	for _, id := range ids {
		keys = append(keys, invitationKey(id))
	}
	items, err := s.batchRead(ctx, step, keys, readOptions{eventual: true, projection: &invitationProjection})
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
	return s.wholeInvitations(ctx, partitionQuery{index: indexGSI3, pkAttr: attrGSI3PK, partition: orgInvitationsIndexKey(orgID, zeroTime, "").PK})
}

// inviteeInvitations reads every invitation to an address from GSI4, which projects them whole. While
// DynamoDB builds GSI4 (CloudFormation starts an added index and goes on with the stack, so the new
// functions run before it is active), or where a table lacks it, DynamoDB refuses the Query; they are
// then read the way they were before GSI4, as keys from GSI2 and then as items: two round trips more
// for those minutes, nothing missing.
func (s *Store) inviteeInvitations(ctx context.Context, email string) ([]domain.Invitation, error) {
	partition := inviteeIndexKey(email, zeroTime, "").PK
	invs, err := s.wholeInvitations(ctx, partitionQuery{index: indexGSI4, pkAttr: attrGSI2PK, partition: partition})
	if !indexNotReady(err) {
		return invs, err
	}
	ids, err := s.indexedInvitationIDs(ctx, indexGSI2, attrGSI2PK, partition)
	if err != nil {
		return nil, err
	}
	return s.indexedInvitations(ctx, "read invitations to an address", ids)
}

// indexNotReady reports DynamoDB's refusal to query an index it is still building ("Cannot read from
// backfilling global secondary index") or that the table does not have.
func indexNotReady(err error) bool {
	var apiErr smithy.APIError
	return errors.As(err, &apiErr) && apiErr.ErrorCode() == "ValidationException" &&
		strings.Contains(strings.ToLower(apiErr.ErrorMessage()), "index")
}

// wholeInvitations reads every invitation under one partition of an index that projects them whole.
func (s *Store) wholeInvitations(ctx context.Context, q partitionQuery) ([]domain.Invitation, error) {
	q.projection = &invitationProjection
	var out []domain.Invitation
	err := s.queryPartition(ctx, q, func(item map[string]types.AttributeValue) error {
		inv, err := decodeInvitation(item)
		out = append(out, inv)
		return err
	})
	return out, err
}

// indexedInvitationIDs reads the ids of the invitations under one partition of a keys-only index.
func (s *Store) indexedInvitationIDs(ctx context.Context, index, pkAttr, partition string) ([]string, error) {
	var ids []string
	err := s.queryPartition(ctx, partitionQuery{index: index, pkAttr: pkAttr, partition: partition}, func(item map[string]types.AttributeValue) error {
		ids = append(ids, idAfter(stringAttr(item, attrPK), "INVITATION#"))
		return nil
	})
	return ids, err
}

// partitionQuery is a Query of one index partition: in key order (or reversed), at most limit entries
// (0: all), each with the attributes projection names (nil: all the index has).
type partitionQuery struct {
	index, pkAttr, partition string
	descending               bool
	limit                    int
	projection               *projection
}

// queryPartition hands every entry q reads to each, page by page (a Query stops at 1 MB).
func (s *Store) queryPartition(ctx context.Context, q partitionQuery, each func(map[string]types.AttributeValue) error) error {
	cond, err := expression.NewBuilder().WithKeyCondition(expression.Key(q.pkAttr).Equal(expression.Value(q.partition))).Build()
	if err != nil {
		return fail("build index query", err)
	}
	read := 0
	var start map[string]types.AttributeValue
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
			return fail("query "+q.index+" "+q.partition, err)
		}
		for _, item := range out.Items {
			if err := each(item); err != nil {
				return err
			}
		}
		read += len(out.Items)
		if out.LastEvaluatedKey == nil || (q.limit > 0 && read >= q.limit) {
			return nil
		}
		start = out.LastEvaluatedKey
	}
}

// InvitationPageRefs reads the organizations, inviters and portfolios of invs in one BatchGetItem.
func (s *Store) InvitationPageRefs(ctx context.Context, invs []domain.Invitation) (domain.InvitationRefs, error) {
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
