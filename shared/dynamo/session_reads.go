package dynamo

import (
	"context"
	"reflect"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/reportingplatform/api/shared/domain"
)

// The reads below put a request's session (its token and user) into the same BatchGetItem as the first
// data the request needs: authentication is never a round trip of its own.

var (
	_ domain.CommentStore    = (*Store)(nil)
	_ domain.InvitationStore = (*Store)(nil)
)

// SessionAndInvitation reads the session of ref and invitation id together, strongly consistent.
func (s *Store) SessionAndInvitation(ctx context.Context, ref domain.TokenRef,
	id string) (domain.Session, *domain.Invitation, error) {
	ik := invitationKey(id)
	items, err := s.batchGet(ctx, "read session and invitation", append(sessionKeys(ref), ik))
	if err != nil {
		return domain.Session{}, nil, err
	}
	session, err := decodeSession(items, ref)
	if err != nil || items[ik] == nil {
		return session, nil, err
	}
	inv, err := decodeInvitation(items[ik])
	if err != nil {
		return session, nil, err
	}
	return session, &inv, nil
}

// commentsWithoutText is what a comment request's reads bring back when no comment's text is wanted:
// every attribute of the items they may read (the session's token and user, an organization, counters,
// comments) but a comment's text. A BatchGetItem has one projection for all its keys, so the attributes
// of every kind of item are named; they come from the item types, so an attribute added to one is read.
var commentsWithoutText = projectionOf(attributesOf("text", tokenItem{}, userItem{}, orgItem{}, countItem{},
	commentItem{})...)

// attributesOf lists the stored attribute names of the item types, except the one named by except.
func attributesOf(except string, items ...any) []string {
	var out []string
	var walk func(t reflect.Type)
	walk = func(t reflect.Type) {
		for i := range t.NumField() {
			f := t.Field(i)
			if f.Anonymous && f.Type.Kind() == reflect.Struct {
				walk(f.Type)
				continue
			}
			name, _, _ := strings.Cut(f.Tag.Get("dynamodbav"), ",")
			if name == "" {
				name = f.Name
			}
			if name != "-" && name != except && !slices.Contains(out, name) {
				out = append(out, name)
			}
		}
	}
	for _, it := range items {
		walk(reflect.TypeOf(it))
	}
	return out
}

// ReadComments reads the session of ref and what q names together, strongly consistent; comments
// without their text unless q.CommentText asks for it.
func (s *Store) ReadComments(ctx context.Context, ref domain.TokenRef,
	q domain.CommentReads) (domain.CommentRead, error) {
	keys := sessionKeys(ref)
	ck := askFor(&keys, q.CommentID != "", commentKey(q.CommentID))
	pk := askFor(&keys, q.ParentID != "", commentKey(q.ParentID))
	var counts []key
	if q.Object != nil {
		counts = countKeys(*q.Object, q.Tag)
		keys = append(keys, counts...)
	}
	ok := askFor(&keys, q.OrganizationID != "", orgKey(q.OrganizationID))
	// One projection serves the whole BatchGetItem: it leaves a comment's text out, but would leave out
	// a counter's counts by month too (no projection can name attributes it does not know), which a
	// list needs and which no request that reads a comment does.
	var opts readOptions
	if (q.CommentID != "" || q.ParentID != "") && !q.CommentText {
		opts.projection = &commentsWithoutText
	}
	items, err := s.batchRead(ctx, "read session and comments", keys, opts)
	if err != nil {
		return domain.CommentRead{}, err
	}
	var out domain.CommentRead
	if out.Session, err = decodeSession(items, ref); err != nil {
		return domain.CommentRead{}, err
	}
	if out.Comment, err = decodeOptional(items[ck], decodeComment); err != nil {
		return domain.CommentRead{}, err
	}
	if out.Parent, err = decodeOptional(items[pk], decodeComment); err != nil {
		return domain.CommentRead{}, err
	}
	if q.Object != nil {
		if out.Count, out.ByMonth, out.All, err = decodeCounts(items, counts); err != nil {
			return domain.CommentRead{}, err
		}
	}
	if out.Organization, err = decodeOptional(items[ok], decodeOrganization); err != nil {
		return domain.CommentRead{}, err
	}
	return out, nil
}

// askFor adds k to the keys of a BatchGetItem when asked, and returns the key to look its answer up
// by: k, or else the zero key, which no answer has.
func askFor(keys *[]key, asked bool, k key) key {
	if !asked {
		return key{}
	}
	*keys = append(*keys, k)
	return k
}

// decodeOptional decodes one answer of a BatchGetItem; nil when the item was not found or not asked for.
func decodeOptional[T any](item map[string]types.AttributeValue,
	decode func(map[string]types.AttributeValue) (T, error)) (*T, error) {
	if item == nil {
		return nil, nil
	}
	v, err := decode(item)
	if err != nil {
		return nil, err
	}
	return &v, nil
}
