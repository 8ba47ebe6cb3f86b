package dynamo

import (
	"context"
	"errors"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/reportingplatform/api/shared/domain"
)

// DeleteComment removes a comment, conditioned on the version it was read at (a comment that gained a
// reply has a new version, so it is never deleted with replies), and takes it off its counters and its
// parent's reply count, in one TransactWriteItems.
func (s *Store) DeleteComment(ctx context.Context, c domain.Comment) error {
	cond, err := expression.NewBuilder().
		WithCondition(expression.Name("version").Equal(expression.Value(c.Version))).Build()
	if err != nil {
		return fail("build comment delete", err)
	}
	items := []types.TransactWriteItem{
		{Delete: &types.Delete{
			Key: commentKey(c.ID).av(), ConditionExpression: cond.Condition(),
			ExpressionAttributeNames: cond.Names(), ExpressionAttributeValues: cond.Values(),
		}},
	}
	items = append(items, objectCountItems(c, -1, "")...)
	items = append(items, tagCountItems(c, -1)...)
	if pid := domain.Deref(c.ParentID); pid != "" {
		exists := expression.AttributeExists(expression.Name(attrPK))
		item, err := updateItem(commentKey(pid), expression.Add(expression.Name("replies"), expression.Value(-1)), &exists)
		if err != nil {
			return err
		}
		items = append(items, item)
	}
	err = s.transact(ctx, "delete comment", items)
	var cancel *cancelled
	if errors.As(err, &cancel) {
		return &domain.Error{Code: domain.ECONFLICT, Err: err}
	}
	return err
}
