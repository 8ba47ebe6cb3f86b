package dynamo

import (
	"cmp"
	"context"
	"maps"
	"slices"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/reportingplatform/api/shared/domain"
)

// The loader's read (infra/fixture, SPEC §7): it validates a whole file against what is stored before
// it writes anything, so it reads the state of everything the file names at once. These are the terms
// of that read and of the comment writes (PutComments); handlers never see them.

// MemberKey names a membership by organization and user: a user is a member of an organization at most
// once.
type MemberKey struct{ OrganizationID, UserID string }

// CommentTag is one tag of a commented object: what a tag counter counts.
type CommentTag struct {
	Object domain.CommentObject
	Tag    string
}

// FixtureRefs lists what the loader wants to know about the table. Every list may be empty; ids that
// are not UUIDs are simply not found.
type FixtureRefs struct {
	UserIDs         []string
	Emails          []string // owners of these email claims, matched case-insensitively
	OrganizationIDs []string
	MemberIDs       []string // members by their own id, whatever their organization and user
	MemberKeys      []MemberKey
	PortfolioIDs    []string // portfolios by their own id, whatever their organization
	InvitationIDs   []string
	CommentIDs      []string
	Objects         []domain.CommentObject // comment counters
	Tags            []CommentTag           // tag counters
}

// FixtureState is what the store found of FixtureRefs. Absent entries do not exist.
type FixtureState struct {
	Users         map[string]domain.User
	EmailOwners   map[string]string // EmailKey(email) → user id
	Organizations map[string]domain.Organization
	Members       map[string]domain.Member // by member id
	MembersByKey  map[MemberKey]domain.Member
	Portfolios    map[string]domain.Portfolio
	Invitations   map[string]domain.Invitation
	Comments      map[string]domain.Comment
	Objects       map[domain.CommentObject]domain.CommentCount
	Tags          map[CommentTag]int
}

// FixtureComment is one comment the loader writes: its new state and, when it replaces a stored
// comment, the stored one (whose counters and parent's reply count it gives back).
type FixtureComment struct {
	Comment  domain.Comment // Replies and Version are the store's: ignored here
	Previous *domain.Comment
}

// fixtureIndexQueries is how many GSI1 queries FixtureState runs at once: members and portfolios by id
// need one query each, and a fixture can name hundreds.
const fixtureIndexQueries = 16

// fixtureReadKeys is how many keys FixtureState reads at a time: batchGet sends all its calls of 100
// keys at once, and a migration's file names enough keys to make that hundreds of calls in flight.
const fixtureReadKeys = 16 * 100

// FixtureState reads everything refs names: members and portfolios by id through GSI1 (one query per
// id, run in parallel), then every item, the found members' and portfolios' included, in one
// strongly consistent BatchGetItem sequence. The base items are read even for members and portfolios
// found in the index because the index is eventually consistent and projects only keys: the base item
// is the truth. Never scans.
func (s *Store) FixtureState(ctx context.Context, refs FixtureRefs) (FixtureState, error) {
	indexKeys := make([]key, 0, len(refs.MemberIDs)+len(refs.PortfolioIDs))
	indexKeys = appendKeys(indexKeys, refs.MemberIDs, memberIndexKey)
	indexKeys = appendKeys(indexKeys, refs.PortfolioIDs, portfolioIndexKey)
	byIndex, err := s.fixtureIndexLookup(ctx, indexKeys)
	if err != nil {
		return FixtureState{}, err
	}

	keys := appendKeys(nil, refs.UserIDs, userKey)
	keys = appendKeys(keys, refs.Emails, emailKey)
	keys = appendKeys(keys, refs.OrganizationIDs, orgKey)
	keys = appendKeys(keys, refs.MemberKeys, MemberKey.key)
	for _, found := range byIndex {
		keys = append(keys, found...)
	}
	keys = appendKeys(keys, refs.InvitationIDs, invitationKey)
	keys = appendKeys(keys, refs.CommentIDs, commentKey)
	keys = appendKeys(keys, refs.Objects, countKeyOf)
	keys = appendKeys(keys, refs.Tags, CommentTag.key)
	seen := make(map[key]bool, len(keys)) // a file names its organizations again in every entry
	keys = slices.DeleteFunc(keys, func(k key) bool { dup := seen[k]; seen[k] = true; return dup })
	items := make(map[key]map[string]types.AttributeValue, len(keys))
	for part := range slices.Chunk(keys, fixtureReadKeys) {
		found, err := s.batchGet(ctx, "read fixture state", part)
		if err != nil {
			return FixtureState{}, err
		}
		maps.Copy(items, found)
	}
	return decodeFixtureState(refs, byIndex, items)
}

// decodeFixtureState sorts the items FixtureState read into its maps.
func decodeFixtureState(refs FixtureRefs, byIndex map[key][]key,
	items map[key]map[string]types.AttributeValue) (FixtureState, error) {
	st := FixtureState{
		Users: map[string]domain.User{}, EmailOwners: map[string]string{},
		Organizations: map[string]domain.Organization{}, Members: map[string]domain.Member{},
		MembersByKey: map[MemberKey]domain.Member{}, Portfolios: map[string]domain.Portfolio{},
		Invitations: map[string]domain.Invitation{}, Comments: map[string]domain.Comment{},
		Objects: map[domain.CommentObject]domain.CommentCount{}, Tags: map[CommentTag]int{},
	}
	emails := map[string]string{}
	memberID := func(m domain.Member) string { return m.ID }
	portfolioID := func(p domain.Portfolio) string { return p.ID }
	// One call per kind; the first that fails to decode is the error.
	err := cmp.Or(
		decodeFound(st.Users, refs.UserIDs, userKey, items, decodeUser),
		decodeFound(emails, refs.Emails, emailKey, items, decodeClaimOwner),
		decodeFound(st.Organizations, refs.OrganizationIDs, orgKey, items, decodeOrganization),
		decodeFound(st.MembersByKey, refs.MemberKeys, MemberKey.key, items, decodeMember),
		decodeIndexed(st.Members, refs.MemberIDs, memberIndexKey, memberID, byIndex, items, decodeMember),
		decodeIndexed(st.Portfolios, refs.PortfolioIDs, portfolioIndexKey, portfolioID, byIndex, items, decodePortfolio),
		decodeFound(st.Invitations, refs.InvitationIDs, invitationKey, items, decodeInvitation),
		decodeFound(st.Comments, refs.CommentIDs, commentKey, items, decodeComment),
		decodeFound(st.Objects, refs.Objects, countKeyOf, items, decodeObjectCount),
		decodeFound(st.Tags, refs.Tags, CommentTag.key, items, decodeTagCount),
	)
	if err != nil {
		return FixtureState{}, err
	}
	for e, owner := range emails {
		st.EmailOwners[domain.EmailKey(e)] = owner
	}
	return st, nil
}

func (mk MemberKey) key() key { return memberKey(mk.OrganizationID, mk.UserID) }
func (t CommentTag) key() key {
	return objectTagCountKey(t.Object.ContentType, t.Object.ObjectID, t.Tag)
}

func countKeyOf(o domain.CommentObject) key { return objectCountKey(o.ContentType, o.ObjectID) }

func decodeClaimOwner(item map[string]types.AttributeValue) (string, error) {
	var claim emailItem
	if err := attributevalue.UnmarshalMap(item, &claim); err != nil {
		return "", fail("decode email claim", err)
	}
	return claim.UserID, nil
}

func decodeMember(item map[string]types.AttributeValue) (domain.Member, error) {
	var it memberItem
	if err := attributevalue.UnmarshalMap(item, &it); err != nil {
		return domain.Member{}, fail("decode member", err)
	}
	return it.domain(), nil
}

func decodeObjectCount(item map[string]types.AttributeValue) (domain.CommentCount, error) {
	c, err := decodeCount(item)
	return domain.CommentCount{N: c.Count, OrganizationID: c.OrgID}, err
}

func decodeTagCount(item map[string]types.AttributeValue) (int, error) {
	c, err := decodeCount(item)
	return c.Count, err
}

// decodeIndexed decodes into out, under its id, each entity GSI1 found for ids. The index may be stale:
// an item that now holds another entity (or none) is not it.
func decodeIndexed[V any](out map[string]V, ids []string, indexKey func(string) key, idOf func(V) string,
	byIndex map[key][]key,
	items map[key]map[string]types.AttributeValue, decode func(map[string]types.AttributeValue) (V, error)) error {
	for _, id := range ids {
		for _, k := range byIndex[indexKey(id)] {
			item := items[k]
			if item == nil {
				continue
			}
			v, err := decode(item)
			if err != nil {
				return err
			}
			if idOf(v) == id {
				out[id] = v
			}
		}
	}
	return nil
}

// fixtureIndexLookup queries GSI1 for each index key and returns the base-table keys of the items
// found under it. The queries run in parallel, at most fixtureIndexQueries at a time.
func (s *Store) fixtureIndexLookup(ctx context.Context, indexKeys []key) (map[key][]key, error) {
	found := make(map[key][]key, len(indexKeys))
	var (
		mu       sync.Mutex
		wg       sync.WaitGroup
		firstErr error
	)
	slots := make(chan struct{}, fixtureIndexQueries)
	seen := map[key]bool{}
	for _, ik := range indexKeys {
		if seen[ik] {
			continue
		}
		seen[ik] = true
		wg.Add(1)
		slots <- struct{}{}
		go func(ik key) {
			defer wg.Done()
			defer func() { <-slots }()
			keys, err := s.fixtureIndexQuery(ctx, ik)
			mu.Lock()
			defer mu.Unlock()
			if err != nil && firstErr == nil {
				firstErr = err
			}
			if len(keys) > 0 {
				found[ik] = keys
			}
		}(ik)
	}
	wg.Wait()
	if firstErr != nil {
		return nil, firstErr
	}
	return found, nil
}

// fixtureIndexQuery returns the base keys of the GSI1 entries with exactly index key ik.
func (s *Store) fixtureIndexQuery(ctx context.Context, ik key) ([]key, error) {
	exact := expression.Key(attrGSI1PK).Equal(expression.Value(ik.PK)).
		And(expression.Key(attrGSI1SK).Equal(expression.Value(ik.SK)))
	expr, err := expression.NewBuilder().WithKeyCondition(exact).Build()
	if err != nil {
		return nil, fail("build GSI1 query", err)
	}
	p := dynamodb.NewQueryPaginator(s.db, &dynamodb.QueryInput{
		TableName: aws.String(s.table), IndexName: aws.String(indexGSI1), KeyConditionExpression: expr.KeyCondition(),
		ExpressionAttributeNames: expr.Names(), ExpressionAttributeValues: expr.Values(),
	})
	var keys []key
	for p.HasMorePages() {
		out, err := p.NextPage(ctx)
		if err != nil {
			return nil, fail("query GSI1 "+ik.PK, err)
		}
		for _, item := range out.Items {
			keys = append(keys, itemKey(item))
		}
	}
	return keys, nil
}
