package dynamo

import (
	"context"
	"errors"
	"maps"
	"slices"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/reportingplatform/api/shared/domain"
)

// The comment reads. A list's page costs the same round trips whatever the object's size: the counters
// (with the session) in parallel with a Query of the comment index that reads index entries only, then
// the page (CommentPage). Writes are in comments_write.go.

var _ domain.CommentStore = (*Store)(nil)

// zeroTime stands in for the sort-key half when only an index partition is wanted from keys.go.
var zeroTime time.Time

// CommentCount reads the object's COUNT item (count and owner) and, with a tag, its COUNT#TAG item too:
// only the COUNT item names the owner, so a tag filter reads both, in one BatchGetItem.
func (s *Store) CommentCount(ctx context.Context, object domain.CommentObject,
	tag *string) (domain.CommentCount, error) {
	keys := countKeys(object, tag)
	items, err := s.batchGet(ctx, "get comment counts", keys)
	if err != nil {
		return domain.CommentCount{}, err
	}
	count, _, _, err := decodeCounts(items, keys)
	return count, err
}

// countKeys are the counters an object's count needs: its own (count and owner) and, with a tag, the
// tag's (the count).
func countKeys(object domain.CommentObject, tag *string) []key {
	keys := []key{objectCountKey(object.ContentType, object.ObjectID)}
	if tag != nil {
		keys = append(keys, objectTagCountKey(object.ContentType, object.ObjectID, *tag))
	}
	return keys
}

// decodeCounts makes the count, its counts by month, and the object's count of every comment out of a
// batch that read keys (countKeys).
func decodeCounts(items map[key]map[string]types.AttributeValue,
	keys []key) (domain.CommentCount, map[string]int, int, error) {
	owner, err := decodeCount(items[keys[0]])
	if err != nil {
		return domain.CommentCount{}, nil, 0, err
	}
	counted, err := decodeCount(items[keys[len(keys)-1]])
	return domain.CommentCount{N: counted.Count, OrganizationID: owner.OrgID}, counted.Months, owner.Count, err
}

// decodeCount reads a counter; a missing one (nil) counts zero and has no owner.
func decodeCount(item map[string]types.AttributeValue) (countItem, error) {
	var c countItem
	if item == nil {
		return c, nil
	}
	if err := attributevalue.UnmarshalMap(item, &c); err != nil {
		return c, fail("decode comment count", err)
	}
	months, err := decodeBucketCounts(item, monthOfAttr)
	c.Months = months
	return c, err
}

// indexEntry is a comment as the comment indexes project it: its keys and commenter_id.
type indexEntry struct {
	PK          string `dynamodbav:"PK"`
	GSI1SK      string `dynamodbav:"GSI1SK"`
	GSI2SK      string `dynamodbav:"GSI2SK"`
	CommenterID string `dynamodbav:"commenter_id"`
}

// CommentIndex queries GSI1 (all comments of the object) or GSI2 (those with one tag) in key order.
// Limit bounds the entries DynamoDB reads, so page 1 costs the same for 100 comments as for 5,000.
// Index reads are eventually consistent (DynamoDB offers nothing else on a GSI): a comment written a
// moment ago may be missing for a moment.
func (s *Store) CommentIndex(ctx context.Context, q domain.CommentIndexQuery) ([]domain.CommentRef, error) {
	return s.commentIndex(ctx, q, "", "")
}

// commentIndex is CommentIndex within the entries whose sort key begins with prefix, or (descending)
// is less than before, when either is set.
func (s *Store) commentIndex(ctx context.Context, q domain.CommentIndexQuery,
	prefix, before string) ([]domain.CommentRef, error) {
	if q.Limit <= 0 {
		return nil, nil
	}
	index, pkAttr, skAttr := indexGSI1, attrGSI1PK, attrGSI1SK
	partition := commentIndexKey(q.Object.ContentType, q.Object.ObjectID, zeroTime, "").PK
	if q.Tag != nil {
		index, pkAttr, skAttr = indexGSI2, attrGSI2PK, attrGSI2SK
		partition = commentTagIndexKey(q.Object.ContentType, q.Object.ObjectID, *q.Tag, zeroTime, "").PK
	}
	refs := make([]domain.CommentRef, 0, min(q.Limit, 1000))
	// A Query stops at 1 MB; only a page thousands of entries deep gets there.
	_, err := s.queryPartition(ctx, partitionQuery{index: index, pkAttr: pkAttr, skAttr: skAttr, partition: partition,
		prefix: prefix, before: before, from: q.From, fromIncluded: q.FromIncluded, descending: q.Descending,
		limit: q.Limit}, func(item map[string]types.AttributeValue) error {
		ref, err := decodeIndexEntry(item, skAttr)
		refs = append(refs, ref)
		return err
	})
	if err != nil {
		return nil, err
	}
	return refs, nil
}

func decodeIndexEntry(item map[string]types.AttributeValue, skAttr string) (domain.CommentRef, error) {
	var e indexEntry
	if err := attributevalue.UnmarshalMap(item, &e); err != nil {
		return domain.CommentRef{}, fail("decode comment index entry", err)
	}
	sk := e.GSI1SK
	if skAttr == attrGSI2SK {
		sk = e.GSI2SK
	}
	created, _, err := parseSortKey(sk)
	if err != nil {
		return domain.CommentRef{}, fail("decode comment index entry", err)
	}
	return domain.CommentRef{ID: idAfter(e.PK, "COMMENT#"), CommenterID: e.CommenterID, CreatedAt: created,
		Position: sk}, nil
}

// commenterItem is the part of a USER#<id> / PROFILE item a comment shows: never the password hash or
// the memberships.
type commenterItem struct {
	ID        string  `dynamodbav:"id"`
	Email     string  `dynamodbav:"email"`
	FirstName *string `dynamodbav:"first_name"`
	LastName  *string `dynamodbav:"last_name"`
}

func (c commenterItem) domain() domain.User {
	return domain.User{ID: c.ID, Email: c.Email, FirstName: c.FirstName, LastName: c.LastName}
}

// pageProjection names every attribute the read shape needs from a comment or a commenter, so one
// BatchGetItem serves both kinds of item and no password hash leaves the table.
var pageProjection = projectionOf(attrPK, attrSK, "id", "org_id", "commenter_id", "content_type", "object_id", "tag",
	"text", "parent_id", "created_at", "updated_at", "replies", "version", "email", "first_name", "last_name")

// shownProjection is what a page reads of GSI6's entries: what a comment's read shape shows but its
// object id, which is the partition's.
var shownProjection = projectionOf(gsi6Projected...)

// CommentPage reads a page in one round trip: the range of GSI6 that q.Refs span (one Query call)
// beside the commenters q.Known does not hold. A tag's comments (GSI2 has no twin of GSI6) lie among the
// object's others in that range, so a tag's page reads them with it, as far as shownRangeLimit allows;
// a rarer tag's page reads the comments and commenters by key instead, in one BatchGetItem. A comment
// the Query did not return (moved or deleted since the index listed it, not in GSI6 yet, past the
// Query's 1 MB or its Limit, or displaced under it by comments on an object of another content type
// with the same id) is read by key after it: a round trip more, only then.
func (s *Store) CommentPage(ctx context.Context,
	q domain.CommentPageRead) ([]domain.Comment, map[string]domain.User, error) {
	users := make(map[string]domain.User, len(q.Known)+1)
	for _, u := range q.Known {
		users[u.ID] = u
	}
	var unknown []string
	for _, r := range q.Refs {
		if _, ok := users[r.CommenterID]; !ok && !slices.Contains(unknown, r.CommenterID) {
			unknown = append(unknown, r.CommenterID)
		}
	}
	found := make(map[string]domain.Comment, len(q.Refs))
	byKey := q.Refs
	if limit := shownRangeLimit(q); limit > 0 {
		var commenters map[string]domain.User
		var errs [2]error
		// The Query goes out on its own goroutine only when the commenters are read beside it.
		inParallel(min(len(unknown), 1)+1, func(i int) {
			if i == 0 && len(unknown) > 0 {
				commenters, errs[0] = s.commenters(ctx, unknown)
				return
			}
			errs[1] = s.shownRange(ctx, q.Object, q.Refs, limit, found)
		})
		if err := errors.Join(errs[:]...); err != nil {
			return nil, nil, err
		}
		maps.Copy(users, commenters)
		unknown = nil
		byKey = slices.DeleteFunc(slices.Clone(q.Refs), func(r domain.CommentRef) bool {
			_, ok := found[r.ID]
			return ok
		})
	}
	if len(byKey) > 0 {
		if err := s.commentsByKey(ctx, byKey, unknown, found, users); err != nil {
			return nil, nil, err
		}
	}
	comments := make([]domain.Comment, 0, len(q.Refs))
	for _, r := range q.Refs {
		if c, ok := found[r.ID]; ok {
			comments = append(comments, c)
		}
	}
	return comments, users, nil
}

// tagRangeSpread bounds the entries of GSI6 a tag's page may read per comment it shows. A Query is
// billed by the bytes it reads, a BatchGetItem by the item (a unit at least for each), and DynamoDB
// Local answers a Query of many entries sooner than a BatchGetItem of a few: for comments of the usual
// size, reading a few entries per comment shown costs less than reading the comments by key.
const tagRangeSpread = 8

// shownRangeLimit is how many entries of GSI6 a page reads as the range its refs span, 0 for none.
// Without a tag: the refs themselves. With one: twice the entries the refs are expected to span,
// spread as the tag's count is among the object's (so that the range nearly always fits), when that is
// at most tagRangeSpread per ref; a rarer tag, or counters that do not say, is read by key.
func shownRangeLimit(q domain.CommentPageRead) int {
	refs := len(q.Refs)
	if refs == 0 || q.Tag == nil {
		return refs
	}
	n := max(q.N, refs)
	if q.All < n {
		return 0
	}
	expected := ((refs-1)*q.All+n-1)/n + 1
	if 2*expected > tagRangeSpread*refs {
		return 0
	}
	return 2 * expected
}

// shownRange puts into found the comments GSI6 holds between the first and the last of refs (all of
// object's, listed by GSI1 or GSI2, whose sort key GSI6 shares): one Query call of at most limit
// entries, so that comments written into the range since refs were listed cannot make it read on.
// GSI6's partition is the object id alone: a comment on an object of another content type with the same
// id is skipped (one that took a ref's place under the Limit leaves that ref to be read by key).
func (s *Store) shownRange(ctx context.Context, object domain.CommentObject, refs []domain.CommentRef,
	limit int, found map[string]domain.Comment) error {
	from := commentSortKey(refs[0].CreatedAt, refs[0].ID)
	to := from
	for _, r := range refs[1:] {
		sk := commentSortKey(r.CreatedAt, r.ID)
		from, to = min(from, sk), max(to, sk)
	}
	_, err := s.queryPartition(ctx, partitionQuery{index: indexGSI6, pkAttr: attrObjectID, skAttr: attrGSI1SK,
		partition: commentShownPartition(object.ObjectID), low: from, high: to, limit: limit, onePage: true,
		projection: &shownProjection},
		func(item map[string]types.AttributeValue) error {
			c, err := decodeComment(item)
			if err != nil || c.ContentType != object.ContentType {
				return err
			}
			c.ObjectID = object.ObjectID
			found[c.ID] = c
			return nil
		})
	return err
}

// commenters reads users by id, eventually consistent, id, email and names only; one that does not
// exist is absent. One user (a page of the caller's exchange with someone else) is a GetItem, which
// DynamoDB answers sooner than a batch of one.
func (s *Store) commenters(ctx context.Context, ids []string) (map[string]domain.User, error) {
	users := make(map[string]domain.User, len(ids))
	if len(ids) == 1 {
		u, err := s.Commenter(ctx, ids[0])
		switch {
		case domain.ErrorCode(err) == domain.ENOTFOUND:
			return users, nil
		case err != nil:
			return nil, err
		}
		users[u.ID] = u
		return users, nil
	}
	return users, s.commentsByKey(ctx, nil, ids, nil, users)
}

// commentsByKey reads the comments refs name and the users commenterIDs name in one BatchGetItem,
// eventually consistent, into found and users.
func (s *Store) commentsByKey(ctx context.Context, refs []domain.CommentRef, commenterIDs []string,
	found map[string]domain.Comment, users map[string]domain.User) error {
	ids := make([]string, len(refs))
	keys := make([]key, 0, len(refs)+len(commenterIDs))
	for i, r := range refs {
		ids[i] = r.ID
		keys = append(keys, commentKey(r.ID))
	}
	for _, id := range commenterIDs {
		keys = append(keys, userKey(id))
	}
	items, err := s.batchRead(ctx, "get comment page", keys, readOptions{eventual: true, projection: &pageProjection})
	if err != nil {
		return err
	}
	if err := decodeFound(found, ids, commentKey, items, decodeComment); err != nil {
		return err
	}
	return decodeFound(users, commenterIDs, userKey, items, decodeCommenter)
}

func decodeCommenter(item map[string]types.AttributeValue) (domain.User, error) {
	var ci commenterItem
	if err := attributevalue.UnmarshalMap(item, &ci); err != nil {
		return domain.User{}, fail("decode commenter", err)
	}
	return ci.domain(), nil
}

// Comment reads one comment with a strongly consistent read. Returns ENOTFOUND when it does not exist.
func (s *Store) Comment(ctx context.Context, id string) (domain.Comment, error) {
	return getDecoded(ctx, s, "get comment", commentKey(id), readOptions{}, decodeComment)
}

// Commenter reads the id, email and names of a user, eventually consistent (a page's commenters are).
// Returns ENOTFOUND when it does not exist.
func (s *Store) Commenter(ctx context.Context, userID string) (domain.User, error) {
	return getDecoded(ctx, s, "get commenter", userKey(userID), readOptions{eventual: true, projection: &pageProjection},
		decodeCommenter)
}

// CommentWriteReads reads the new parent (without its text: a write needs its place, not its words) and
// the target object's counter in one BatchGetItem; nothing when there is neither.
func (s *Store) CommentWriteReads(ctx context.Context, parentID string,
	moveTo *domain.CommentObject) (*domain.Comment, domain.CommentCount, error) {
	var keys []key
	pk := askFor(&keys, parentID != "", commentKey(parentID))
	var ck key
	if moveTo != nil {
		ck = objectCountKey(moveTo.ContentType, moveTo.ObjectID)
		keys = append(keys, ck)
	}
	if len(keys) == 0 {
		return nil, domain.CommentCount{}, nil
	}
	items, err := s.batchRead(ctx, "get comment write context", keys, readOptions{projection: &commentsWithoutText})
	if err != nil {
		return nil, domain.CommentCount{}, err
	}
	parent, err := decodeOptional(items[pk], decodeComment)
	if err != nil {
		return nil, domain.CommentCount{}, err
	}
	var count domain.CommentCount
	if moveTo != nil {
		c, err := decodeCount(items[ck])
		if err != nil {
			return nil, domain.CommentCount{}, err
		}
		count = domain.CommentCount{N: c.Count, OrganizationID: c.OrgID}
	}
	return parent, count, nil
}
