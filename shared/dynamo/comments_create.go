package dynamo

import (
	"context"
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/reportingplatform/api/shared/domain"
)

// CreateComment writes a new comment and everything that counts it in one TransactWriteItems (SPEC §10):
//
//   - the comment, on the condition that its id is new;
//   - ADD +1 on its object's COUNT, which claims the object for the comment's organization unless another
//     organization owns it with comments left (a failed claim is domain.ErrObjectOwnedElsewhere);
//   - ADD +1 on its tag's COUNT#TAG;
//   - ADD +1 on the counts of its month (on those counters) and of its ten minutes (month items), so
//     that a deep page finds where it starts (comments_buckets.go);
//   - with a parent: ADD +1 replies on the parent, conditioned on the version it was read at (it is still
//     on this object, as deep as read) and bumping it, as a re-parent does (UpdateComment). The comment
//     takes its depth and ancestors from that parent as read.
//
// With done set, the same transaction completes its Idempotency-Key claim.
func (s *Store) CreateComment(ctx context.Context, c domain.Comment, parent *domain.Comment,
	done *domain.IdempotencyDone) error {
	c.Version, c.Replies = 1, 0
	if c.ParentID == nil {
		parent = nil
	}
	if err := placeUnder(&c, parent); err != nil {
		return fmt.Errorf("create comment %s: %w", c.ID, err)
	}
	put, err := putNew("comment", toCommentItem(c))
	if err != nil {
		return err
	}
	items := append([]types.TransactWriteItem{put}, objectCountItems(c, 1, c.OrganizationID)...)
	items = append(items, tagCountItems(c, 1)...)
	if pid := domain.Deref(c.ParentID); pid != "" {
		if parent == nil {
			return fail("create comment", errors.New("parent not read before the save"))
		}
		upd := expression.Add(expression.Name("replies"), expression.Value(1)).
			Set(expression.Name("version"), expression.Name("version").Plus(expression.Value(1)))
		cond := expression.Name("version").Equal(expression.Value(parent.Version))
		item, err := updateItem(commentKey(pid), upd, &cond)
		if err != nil {
			return err
		}
		items = append(items, item)
	}
	err = s.transactDone(ctx, "create comment", items, done)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, domain.ErrIdempotencyKeyLost):
		return err
	case conditionFailed(err, 1):
		return fmt.Errorf("create comment %s: %w", c.ID, domain.ErrObjectOwnedElsewhere)
	}
	var cancel *cancelled
	if errors.As(err, &cancel) {
		// The parent changed, or (with a random id, never in practice) the id was taken: read and retry.
		return &domain.Error{Code: domain.ECONFLICT, Err: err}
	}
	return err
}
