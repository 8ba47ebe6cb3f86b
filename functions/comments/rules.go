package comments

import (
	"context"
	"errors"

	"github.com/reportingplatform/api/shared/domain"
)

// The walk up a new parent's chain (only for a comment that has replies) is bounded twice:
//
//   - maxGuarded: the nearest ancestors are each guarded by a ConditionCheck in the save's transaction
//     (at most 100 items, of which the save itself needs up to 7), so that no concurrent re-parent can
//     close a cycle behind the check. Beyond them the check still reads, but does not guard: a race
//     closing a cycle through a thread that deep at the very same moment is left possible.
//   - maxDepth: a thread deeper than this is refused with a 400 under parent rather than walked for
//     longer than a request may take (each level is one read).
const (
	maxGuarded = 90
	maxDepth   = 1000
)

// Messages of SPEC §6's write rules.
const (
	msgOwnAncestor  = "A comment cannot be its own ancestor."
	msgMovedReplies = "A comment with replies cannot be moved."
	msgTooDeep      = "A comment thread cannot be deeper than 1000 comments."
)

// check applies SPEC §6's rules that need more than the body, and returns the save to make:
//
//   - a comment with replies cannot move to another object (its replies would be left behind);
//   - a reply that moves must be given a parent anew: its old parent stays on the old object;
//   - the parent is another comment on the same object, and never the comment or one of its replies;
//   - the object it moves to belongs to the comment's organization, or to none yet.
//
// The parent, the object and the no-cycle rules are reported together (DRF reports every failing
// field). The new parent and the target object's counter are read in one call (with the comment, when the
// body names them: prefetched); the transaction checks
// again that neither changed. A comment without replies has no descendants, so only a comment with
// replies needs the walk up the new parent's chain.
func (h *handler) check(ctx context.Context, old, next domain.Comment, parentSent bool,
	pre *prefetched) (domain.CommentUpdate, error) {
	moved := old.ContentType != next.ContentType || old.ObjectID != next.ObjectID
	if moved && old.Replies > 0 {
		return domain.CommentUpdate{}, domain.FieldError(domain.NonFieldErrors, msgMovedReplies)
	}
	var errs domain.FieldErrors
	oldParent, newParent := domain.Deref(old.ParentID), domain.Deref(next.ParentID)
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
	var parent *domain.Comment
	var target domain.CommentCount
	if pre.covers(readParent, moveTo) {
		if pre != nil {
			parent, target = pre.parent, pre.count
		}
	} else {
		var err error
		if parent, target, err = h.store.CommentWriteReads(ctx, readParent, moveTo); err != nil {
			return domain.CommentUpdate{}, err
		}
	}
	if readParent != "" && (parent == nil || parent.ContentType != next.ContentType || parent.ObjectID != next.ObjectID) {
		errs.Add("parent", domain.MsgDoesNotExist(readParent))
	}
	if moved && target.N > 0 && target.OrganizationID != "" && target.OrganizationID != old.OrganizationID {
		errs.Add("object_id", domain.MsgDoesNotExist(next.ObjectID))
	}
	if err := errs.Err(); err != nil {
		return domain.CommentUpdate{}, err
	}
	update := domain.CommentUpdate{Old: old, New: next}
	if readParent == "" || newParent == oldParent {
		return update, nil
	}
	update.NewParent = parent
	if old.Replies > 0 {
		var err error
		if update.Ancestors, err = h.ancestors(ctx, old.ID, *parent); err != nil {
			return domain.CommentUpdate{}, err
		}
	}
	return update, nil
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

// ancestors walks up from parent (exclusive) to its root and fails with the own-ancestor error when the
// chain reaches the comment being saved. It returns the nearest maxGuarded comments walked, whose
// versions the save's transaction checks.
func (h *handler) ancestors(ctx context.Context, self string, parent domain.Comment) ([]domain.Comment, error) {
	var chain []domain.Comment
	for cur := parent; cur.ParentID != nil; {
		if *cur.ParentID == self {
			return nil, domain.FieldError("parent", msgOwnAncestor)
		}
		if len(chain) == maxDepth {
			return nil, domain.FieldError("parent", msgTooDeep)
		}
		next, err := h.store.Comment(ctx, *cur.ParentID)
		if domain.ErrorCode(err) == domain.ENOTFOUND {
			// Comments are never deleted; a parent that vanished means the chain changed under the
			// walk, which a retry reads again.
			return nil, &domain.Error{Code: domain.ECONFLICT, Err: errors.New("comment ancestors: parent vanished")}
		}
		if err != nil {
			return nil, err
		}
		chain = append(chain, next)
		cur = next
	}
	return chain[:min(len(chain), maxGuarded)], nil
}
