package dynamo

import (
	"context"
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/reportingplatform/api/shared/domain"
)

// UpdateComment saves a comment and everything that counts it in one TransactWriteItems, so counts and
// reply counts can never drift from the comments:
//
//   - the comment, conditioned on the version it was read at (SET version = version + 1) and, when it
//     changes parent or object, on having no reply: a reply created under it since the rules were
//     checked cancels the move, so its replies' stored ancestry never goes stale;
//   - when it moves: ADD -1 on the old object's COUNT, ADD +1 on the new one's, which also claims the new
//     object for the comment's organization unless another organization owns it with comments left
//     (a failed claim is the 400 under object_id);
//   - when its object or tag changes: ADD -1 / +1 on the COUNT#TAG items it leaves and joins;
//   - with each of those counters, the same on its count of the comment's month and on the month
//     item's count of its ten minutes (objectCountItems, tagCountItems);
//   - when its parent changes: ADD -1 replies on the old parent, ADD +1 replies on the new one,
//     conditioned on the new parent's version and bumping it. The comment's depth and ancestors are its
//     new parent's as read, so the new parent must still be as read: not moved, deleted or re-parented
//     since. Its own ancestors need no guard: they all have replies, so none of them can move or go.
//
// Returns domain.ErrObjectOwnedElsewhere for an object owned by another organization, ECONFLICT for any
// other failed condition.
func (s *Store) UpdateComment(ctx context.Context, u domain.CommentUpdate) error {
	old, next := u.Old, u.New
	if domain.Deref(old.ParentID) != domain.Deref(next.ParentID) {
		var parent *domain.Comment
		if next.ParentID != nil {
			parent = u.NewParent
		}
		if err := placeUnder(&next, parent); err != nil {
			return fmt.Errorf("update comment %s: %w", next.ID, err)
		}
	}
	comment, err := commentUpdateItem(old, next)
	if err != nil {
		return err
	}
	items := []types.TransactWriteItem{comment}
	claim := -1
	if old.ContentType != next.ContentType || old.ObjectID != next.ObjectID {
		items = append(items, objectCountItems(old, -1, "")...)
		claim = len(items)
		items = append(items, objectCountItems(next, 1, next.OrganizationID)...)
	}
	if !sameKey(tagCountKey(old), tagCountKey(next)) {
		items = append(items, tagCountItems(old, -1)...)
		items = append(items, tagCountItems(next, 1)...)
	}
	parentItems, err := parentUpdates(u)
	if err != nil {
		return err
	}
	items = append(items, parentItems...)

	err = s.transact(ctx, "update comment", items)
	switch {
	case err == nil:
		return nil
	case conditionFailed(err, 0):
		return &domain.Error{Code: domain.ECONFLICT, Err: err}
	case claim >= 0 && conditionFailed(err, claim):
		return fmt.Errorf("update comment %s: %w", next.ID, domain.ErrObjectOwnedElsewhere)
	}
	var c *cancelled
	if errors.As(err, &c) {
		return &domain.Error{Code: domain.ECONFLICT, Err: err}
	}
	return err
}

// commentUpdateItem rewrites every writable attribute of the comment, its place in its thread and its
// index keys, leaving replies alone: reply counts change under other comments' saves.
func commentUpdateItem(old, next domain.Comment) (types.TransactWriteItem, error) {
	it := toCommentItem(next)
	upd := expression.Set(expression.Name("content_type"), expression.Value(it.ContentType)).
		Set(expression.Name("object_id"), expression.Value(it.ObjectID)).
		Set(expression.Name("tag"), expression.Value(it.Tag)).
		Set(expression.Name("text"), expression.Value(it.Text)).
		Set(expression.Name("parent_id"), expression.Value(it.ParentID)).
		Set(expression.Name("updated_at"), expression.Value(it.UpdatedAt)).
		Set(expression.Name("depth"), expression.Value(it.Depth)).
		Set(expression.Name(attrGSI1PK), expression.Value(it.GSI1PK)).
		Set(expression.Name(attrGSI1SK), expression.Value(it.GSI1SK)).
		Set(expression.Name("version"), expression.Name("version").Plus(expression.Value(1)))
	if it.GSI2PK != "" {
		upd = upd.Set(expression.Name(attrGSI2PK), expression.Value(it.GSI2PK)).
			Set(expression.Name(attrGSI2SK), expression.Value(it.GSI2SK))
	} else {
		upd = upd.Remove(expression.Name(attrGSI2PK)).Remove(expression.Name(attrGSI2SK))
	}
	if len(it.Ancestors) > 0 {
		upd = upd.Set(expression.Name("ancestors"), expression.Value(it.Ancestors))
	} else {
		upd = upd.Remove(expression.Name("ancestors"))
	}
	cond := expression.Name("version").Equal(expression.Value(old.Version))
	if changesPlace(old, next) {
		cond = cond.And(expression.Name("replies").Equal(expression.Value(0)))
	}
	return updateItem(commentKey(old.ID), upd, &cond)
}

// objectCountItems add delta to what counts c among its object's comments: the object's COUNT (n and
// the count of c's month; with owner set, claiming the object as counterItem says) and the count of
// c's ten minutes in its month item.
func objectCountItems(c domain.Comment, delta int, owner string) []types.TransactWriteItem {
	month, slot := commentBuckets(c.CreatedAt)
	return []types.TransactWriteItem{
		counterItem(objectCountKey(c.ContentType, c.ObjectID), delta, owner, month),
		addItem(objectMonthKey(c.ContentType, c.ObjectID, nil, month), slotCountAttr(slot), delta),
	}
}

// tagCountItems do the same for c's tag's COUNT#TAG and month item; nothing for a comment without one.
func tagCountItems(c domain.Comment, delta int) []types.TransactWriteItem {
	if c.Tag == nil {
		return nil
	}
	month, slot := commentBuckets(c.CreatedAt)
	return []types.TransactWriteItem{
		counterItem(*tagCountKey(c), delta, "", month),
		addItem(objectMonthKey(c.ContentType, c.ObjectID, c.Tag, month), slotCountAttr(slot), delta),
	}
}

// addItem adds delta to the number attr of the item at k, creating either if absent.
func addItem(k key, attr string, delta int) types.TransactWriteItem {
	item, _ := updateItem(k, expression.Add(expression.Name(attr), expression.Value(delta)), nil) // cannot fail to build
	return item
}

// counterItem adds delta to a counter and to its count of month. With owner set it also claims the
// object for owner, on the condition that no other organization owns it while it still has comments.
func counterItem(k key, delta int, owner, month string) types.TransactWriteItem {
	upd := expression.Add(expression.Name("n"), expression.Value(delta)).
		Add(expression.Name(monthCountAttr(month)), expression.Value(delta))
	if owner == "" {
		item, _ := updateItem(k, upd, nil) // a fixed, valid expression: it cannot fail to build
		return item
	}
	upd = upd.Set(expression.Name("org_id"), expression.Value(owner))
	cond := expression.AttributeNotExists(expression.Name("org_id")).
		Or(expression.Name("org_id").Equal(expression.Value(owner))).
		Or(expression.Name("n").Equal(expression.Value(0)))
	item, _ := updateItem(k, upd, &cond)
	return item
}

// tagCountKey is the COUNT#TAG item that counts c, nil for a comment without a tag.
func tagCountKey(c domain.Comment) *key {
	if c.Tag == nil {
		return nil
	}
	k := objectTagCountKey(c.ContentType, c.ObjectID, *c.Tag)
	return &k
}

// placeUnder sets c's depth and ancestors from parent (nil: none). The handler refuses a reply to a
// full thread with a 400; a store asked to write one anyway fails rather than store a thread too deep.
func placeUnder(c *domain.Comment, parent *domain.Comment) error {
	if parent != nil && (parent.ID != domain.Deref(c.ParentID) || parent.FullThread()) {
		return errors.New("parent not read, or its thread is full")
	}
	c.PlaceUnder(parent)
	return nil
}

// changesPlace reports whether a save gives the comment another object or another parent, which only a
// comment without replies may do (SPEC §6).
func changesPlace(old, next domain.Comment) bool {
	return old.ContentType != next.ContentType || old.ObjectID != next.ObjectID ||
		domain.Deref(old.ParentID) != domain.Deref(next.ParentID)
}

func sameKey(a, b *key) bool { return (a == nil && b == nil) || (a != nil && b != nil && *a == *b) }

// parentUpdates moves a reply count from the old parent to the new one. The new parent's count changes on
// the condition of the version it was read at, which its depth, ancestors and object were checked at.
func parentUpdates(u domain.CommentUpdate) ([]types.TransactWriteItem, error) {
	oldParent, newParent := domain.Deref(u.Old.ParentID), domain.Deref(u.New.ParentID)
	if oldParent == newParent {
		return nil, nil
	}
	var items []types.TransactWriteItem
	if oldParent != "" {
		cond := expression.AttributeExists(expression.Name(attrPK))
		item, err := updateItem(commentKey(oldParent),
			expression.Add(expression.Name("replies"), expression.Value(-1)), &cond)
		if err != nil {
			return nil, err
		}
		items = append(items, item)
	}
	if newParent != "" {
		if u.NewParent == nil || u.NewParent.ID != newParent {
			return nil, fail("update comment", errors.New("new parent not read before the save"))
		}
		upd := expression.Add(expression.Name("replies"), expression.Value(1)).
			Set(expression.Name("version"), expression.Name("version").Plus(expression.Value(1)))
		cond := expression.Name("version").Equal(expression.Value(u.NewParent.Version))
		item, err := updateItem(commentKey(newParent), upd, &cond)
		if err != nil {
			return nil, err
		}
		items = append(items, item)
	}
	return items, nil
}

// updateItem builds one transaction Update from the expression builder (names and values escaped for
// us: "text" is a DynamoDB reserved word).
func updateItem(k key, upd expression.UpdateBuilder,
	cond *expression.ConditionBuilder) (types.TransactWriteItem, error) {
	b := expression.NewBuilder().WithUpdate(upd)
	if cond != nil {
		b = b.WithCondition(*cond)
	}
	expr, err := b.Build()
	if err != nil {
		return types.TransactWriteItem{}, fail("build update expression", err)
	}
	update := &types.Update{
		Key:                       k.av(),
		UpdateExpression:          expr.Update(),
		ExpressionAttributeNames:  expr.Names(),
		ExpressionAttributeValues: expr.Values(),
	}
	if cond != nil {
		update.ConditionExpression = expr.Condition()
	}
	return types.TransactWriteItem{Update: update}, nil
}
