package dynamo

import (
	"context"
	"math"
	"unicode/utf8"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/reportingplatform/api/shared/domain"
)

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
	items, err := s.batchRead(ctx, "read invitations by id", keys,
		readOptions{eventual: true, projection: &invitationProjection})
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

// orgInvitationIDs reads the ids of every invitation of an organization from GSI3's keys.
func (s *Store) orgInvitationIDs(ctx context.Context, orgID string) ([]string, error) {
	var ids []string
	q := partitionQuery{index: indexGSI3, pkAttr: attrGSI3PK, partition: orgInvitationsPartition(orgID)}
	_, err := s.queryPartition(ctx, q, func(item map[string]types.AttributeValue) error {
		ids = append(ids, idAfter(stringAttr(item, attrPK), "INVITATION#"))
		return nil
	})
	return ids, err
}

// partitionQuery is a Query of one index partition: of the entries whose sort key begins with prefix
// (or, with before set, sorts below it), in key order (or reversed), from start (nil: the first entry),
// at most limit entries (0: all), each with the attributes projection names (nil: all the index has).
// With prefix, low and high narrow the range to the keys from low (or up to high), inclusive; without
// it, both set, they are the range. With onePage it is one call, which stops at 1 MB.
type partitionQuery struct {
	index, pkAttr, skAttr, partition string
	prefix, before                   string
	low, high                        string
	onePage                          bool
	// from bounds the entries to those past it in the query's order (at it too with fromIncluded).
	from         string
	fromIncluded bool
	descending   bool
	start        map[string]types.AttributeValue
	limit        int
	projection   *projection
}

// pastKey is the key condition of the entries past q.from in q's order.
func pastKey(q partitionQuery) expression.KeyConditionBuilder {
	k, v := expression.Key(q.skAttr), expression.Value(q.from)
	switch {
	case q.descending && q.fromIncluded:
		return k.LessThanEqual(v)
	case q.descending:
		return k.LessThan(v)
	case q.fromIncluded:
		return k.GreaterThanEqual(v)
	}
	return k.GreaterThan(v)
}

// queryPartition hands every entry q reads to each, page by page (a Query stops at 1 MB). rest is where
// a Query would go on after the limit (nil when the partition was read to its end).
func (s *Store) queryPartition(ctx context.Context, q partitionQuery,
	each func(map[string]types.AttributeValue) error) (rest map[string]types.AttributeValue, err error) {
	keyCond := expression.Key(q.pkAttr).Equal(expression.Value(q.partition))
	switch {
	case q.prefix != "" || (q.low != "" && q.high != ""):
		// BETWEEN the prefix and the prefix followed by the largest code point selects what begins_with
		// would (the keys are ASCII), but DynamoDB Local seeks to it in the index where it scans the
		// partition for begins_with.
		lower, upper := q.prefix, q.prefix+string(utf8.MaxRune)
		if q.low != "" {
			lower = q.low
		}
		if q.high != "" {
			upper = q.high
		}
		keyCond = keyCond.And(expression.Key(q.skAttr).Between(expression.Value(lower), expression.Value(upper)))
	case q.before != "":
		keyCond = keyCond.And(expression.Key(q.skAttr).LessThan(expression.Value(q.before)))
	case q.from != "":
		keyCond = keyCond.And(pastKey(q))
	}
	cond, err := expression.NewBuilder().WithKeyCondition(keyCond).Build()
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
		if out.LastEvaluatedKey == nil || (q.limit > 0 && read >= q.limit) || q.onePage {
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
