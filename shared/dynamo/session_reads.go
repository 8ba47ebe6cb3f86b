package dynamo

import (
	"context"

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

// ReadComments reads the session of ref and what q names together, strongly consistent.
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
	items, err := s.batchGet(ctx, "read session and comments", keys)
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
		if out.Count, err = decodeCounts(items, counts); err != nil {
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
