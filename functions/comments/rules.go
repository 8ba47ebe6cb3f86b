package comments

import (
	"context"

	"github.com/reportingplatform/api/shared/domain"
)

// Messages of SPEC §6's write rules.
const (
	msgOwnAncestor  = "A comment cannot be its own ancestor."
	msgMovedReplies = "A comment with replies cannot be moved."
	msgTooDeep      = "A thread cannot be more than 100 replies deep."
)

// check applies SPEC §6's rules that need more than the body, and returns the save to make:
//
//   - a comment with replies keeps its place: no other object, no other parent. A parent that is the
//     comment itself or one of its replies is told as the ancestor error, which it also is;
//   - a reply that moves must be given a parent anew: its old parent stays on the old object;
//   - the parent is another comment on the same object whose thread is not full (domain.MaxThreadDepth);
//   - the object it moves to belongs to the comment's organization, or to none yet.
//
// The parent, the object and the depth rules are reported together (DRF reports every failing field).
// The new parent and the target object's counter are read in one call (with the comment, when the body
// names them: prefetched), the parent without its text; the transaction checks again that neither
// changed. No thread is walked: the parent carries its depth and ancestors, and only a comment without
// replies (which has no descendants, so no cycle to close) changes parent, with the transaction's
// condition that it still has none.
func (h *handler) check(ctx context.Context, old, next domain.Comment, parentSent bool,
	pre *prefetched) (domain.CommentUpdate, error) {
	moved := old.ContentType != next.ContentType || old.ObjectID != next.ObjectID
	oldParent, newParent := domain.Deref(old.ParentID), domain.Deref(next.ParentID)
	if old.Replies > 0 && (moved || newParent != oldParent) {
		return domain.CommentUpdate{}, h.keepsItsPlace(ctx, old, newParent, pre)
	}
	var errs domain.FieldErrors
	readParent := ""
	switch {
	case moved && !parentSent && oldParent != "":
		errs.Add("parent", domain.MsgDoesNotExist(oldParent))
	case newParent == old.ID:
		errs.Add("parent", msgOwnAncestor)
	case newParent != "" && (newParent != oldParent || moved):
		readParent = newParent
	}
	var moveTo *domain.CommentObject
	if moved {
		moveTo = &domain.CommentObject{ContentType: next.ContentType, ObjectID: next.ObjectID}
	}
	parent, target, err := h.writeReads(ctx, readParent, moveTo, pre)
	if err != nil {
		return domain.CommentUpdate{}, err
	}
	switch {
	case readParent == "":
	case parent == nil || parent.ContentType != next.ContentType || parent.ObjectID != next.ObjectID:
		errs.Add("parent", domain.MsgDoesNotExist(readParent))
	case parent.FullThread():
		errs.Add("parent", msgTooDeep)
	}
	if moved && target.N > 0 && target.OrganizationID != "" && target.OrganizationID != old.OrganizationID {
		errs.Add("object_id", domain.MsgDoesNotExist(next.ObjectID))
	}
	if err := errs.Err(); err != nil {
		return domain.CommentUpdate{}, err
	}
	update := domain.CommentUpdate{Old: old, New: next}
	if readParent != "" && newParent != oldParent {
		update.NewParent = parent
	}
	return update, nil
}

// keepsItsPlace is the refusal of a save that would move comment old, which has replies, or give it
// another parent: the ancestor error when the new parent is old itself or one of its replies (the
// parent's stored ancestors tell, read without any text), else the "cannot be moved" error.
func (h *handler) keepsItsPlace(ctx context.Context, old domain.Comment, newParent string, pre *prefetched) error {
	if newParent == old.ID {
		return domain.FieldError("parent", msgOwnAncestor)
	}
	if newParent != "" {
		parent, _, err := h.writeReads(ctx, newParent, nil, pre)
		if err != nil {
			return err
		}
		if parent != nil && parent.DescendsFrom(old.ID) {
			return domain.FieldError("parent", msgOwnAncestor)
		}
	}
	return domain.FieldError(domain.NonFieldErrors, msgMovedReplies)
}

// writeReads returns the parent parentID ("" for none) and the counter of moveTo (nil for none): from
// pre when the first read brought them, else read now in one call.
func (h *handler) writeReads(ctx context.Context, parentID string, moveTo *domain.CommentObject,
	pre *prefetched) (*domain.Comment, domain.CommentCount, error) {
	if pre.covers(parentID, moveTo) {
		if pre == nil {
			return nil, domain.CommentCount{}, nil
		}
		return pre.parent, pre.count, nil
	}
	return h.store.CommentWriteReads(ctx, parentID, moveTo)
}

// prefetched is what a save's first read brought besides the comment: the parent and the counter of
// the object its body names, read before the comment was known so that the save needs no read of its
// own. nil: nothing (a retry reads afresh).
type prefetched struct {
	parentID string
	parent   *domain.Comment
	object   *domain.CommentObject
	count    domain.CommentCount
}

// covers reports whether p holds what check needs: the parent parentID ("" for none) and the counter of
// moveTo (nil for none).
func (p *prefetched) covers(parentID string, moveTo *domain.CommentObject) bool {
	if p == nil {
		return parentID == "" && moveTo == nil
	}
	return (parentID == "" || parentID == p.parentID) && (moveTo == nil || (p.object != nil && *moveTo == *p.object))
}
