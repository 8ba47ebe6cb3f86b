package dynamo

import (
	"context"
	"errors"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/reportingplatform/api/shared/domain"
)

// DeleteInvitation deletes INVITATION#<id>, conditioned on the version that was read, and takes it out
// of its counts in the same transaction. Its pending claim, if it holds one, stays: a claim naming an
// invitation that is gone claims nothing (SessionAndDraft's reader checks).
func (s *Store) DeleteInvitation(ctx context.Context, inv domain.Invitation) error {
	asRead := expression.Name(attrVersion).Equal(expression.Value(inv.Version))
	del, err := deleteItem(invitationKey(inv.ID), &asRead)
	if err != nil {
		return err
	}
	counts, err := countChanges(&inv, nil)
	if err != nil {
		return err
	}
	err = s.transact(ctx, "delete invitation", append([]types.TransactWriteItem{del}, counts...))
	var c *cancelled
	if errors.As(err, &c) {
		return &domain.Error{Code: domain.ECONFLICT, Err: err}
	}
	return err
}
