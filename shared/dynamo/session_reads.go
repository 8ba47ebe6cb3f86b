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
func (s *Store) SessionAndInvitation(ctx context.Context, ref domain.TokenRef, id string) (domain.Session, *domain.Invitation, error) {
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
func (s *Store) ReadComments(ctx context.Context, ref domain.TokenRef, q domain.CommentReads) (domain.CommentRead, error) {
	keys := sessionKeys(ref)
	var ck, pk key
	var counts []key
	if q.CommentID != "" {
		ck = commentKey(q.CommentID)
		keys = append(keys, ck)
	}
	if q.ParentID != "" {
		pk = commentKey(q.ParentID)
		keys = append(keys, pk)
	}
	if q.Object != nil {
		counts = countKeys(*q.Object, q.Tag)
		keys = append(keys, counts...)
	}
	if q.OrganizationID != "" {
		keys = append(keys, orgKey(q.OrganizationID))
	}
	items, err := s.batchGet(ctx, "read session and comments", keys)
	if err != nil {
		return domain.CommentRead{}, err
	}
	var out domain.CommentRead
	if out.Session, err = decodeSession(items, ref); err != nil {
		return domain.CommentRead{}, err
	}
	if out.Comment, err = decodeOptionalComment(items[ck], q.CommentID != ""); err != nil {
		return domain.CommentRead{}, err
	}
	if out.Parent, err = decodeOptionalComment(items[pk], q.ParentID != ""); err != nil {
		return domain.CommentRead{}, err
	}
	if q.Object != nil {
		if out.Count, err = decodeCounts(items, counts); err != nil {
			return domain.CommentRead{}, err
		}
	}
	if item := items[orgKey(q.OrganizationID)]; q.OrganizationID != "" && item != nil {
		org, err := decodeOrganization(item)
		if err != nil {
			return domain.CommentRead{}, err
		}
		out.Organization = &org
	}
	return out, nil
}

func decodeOptionalComment(item map[string]types.AttributeValue, asked bool) (*domain.Comment, error) {
	if !asked || item == nil {
		return nil, nil
	}
	c, err := decodeComment(item)
	if err != nil {
		return nil, err
	}
	return &c, nil
}
