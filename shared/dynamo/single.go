package dynamo

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// A write of one item goes out as the item's own conditional write rather than a transaction: it costs
// half the write units and answers sooner (most of the API's edits and a logout are such writes). It
// carries no token, so it settles a lost answer its own way (SPEC §9): the item carries the write's id
// (attrWriteID), and the write's condition also asks that the item not carry it yet. Copies of the write
// then exclude each other, whichever DynamoDB meets first, and a copy sent after a lost answer settles
// the outcome: done (this copy was the one), refused by an item that carries the write's id (an earlier
// copy was), refused by a deleted item's absence for a delete (an earlier copy deleted it), or refused
// otherwise (no copy was done: the condition the caller set failed, and fails for every copy). The one
// case it cannot tell is another writer's change landing between two copies; the store's single writes
// are all conditioned on what they read (a version, a pending mark), which that change would fail too.

// attrWriteID is the attribute every single Put and Update of the store sets to the id of its write.
const attrWriteID = "write_id"

// Placeholders of the write id in an expression: no builder's (#0, :0) nor a projection's (#p0).
const (
	nameWriteID  = "#write_id"
	valueWriteID = ":write_id"
)

// sendOne sends the one item of w until DynamoDB answers a copy of it for sure (see above), as send does
// for a transaction.
func (s *Store) sendOne(ctx context.Context, step string, w write) error {
	item := tagged(w.items[0], w.token)
	return s.resend(ctx, step, func() error { return s.writeOne(ctx, item) }, func(err error) (error, bool) {
		switch {
		case !conditionalCheckFailed(err):
			return nil, false
		case copyDone(err, item, w.token):
			return nil, true
		}
		return outcome(step, err), true
	})
}

// copyDone tells whether the refusal err of a copy of item shows an earlier copy done: the item carries
// the write's id, or, for a delete, is gone.
func copyDone(err error, item types.TransactWriteItem, id string) bool {
	var ccf *types.ConditionalCheckFailedException
	if !errors.As(err, &ccf) {
		return false
	}
	if item.Delete != nil {
		return ccf.Item == nil
	}
	return stringAttr(ccf.Item, attrWriteID) == id
}

// tagged is item carrying id (Put and Update), on the condition that it does not carry it yet.
func tagged(item types.TransactWriteItem, id string) types.TransactWriteItem {
	tag := &types.AttributeValueMemberS{Value: id}
	notYet := "(attribute_not_exists(" + nameWriteID + ") OR " + nameWriteID + " <> " + valueWriteID + ")"
	switch {
	case item.Put != nil:
		p := *item.Put
		p.Item = withEntry[types.AttributeValue](p.Item, attrWriteID, tag)
		p.ConditionExpression = aws.String(and(aws.ToString(p.ConditionExpression), notYet))
		p.ExpressionAttributeNames = withEntry(p.ExpressionAttributeNames, nameWriteID, attrWriteID)
		p.ExpressionAttributeValues = withEntry[types.AttributeValue](p.ExpressionAttributeValues, valueWriteID, tag)
		item.Put = &p
	case item.Update != nil:
		u := *item.Update
		u.UpdateExpression = aws.String(withSet(aws.ToString(u.UpdateExpression), nameWriteID+" = "+valueWriteID))
		u.ConditionExpression = aws.String(and(aws.ToString(u.ConditionExpression), notYet))
		u.ExpressionAttributeNames = withEntry(u.ExpressionAttributeNames, nameWriteID, attrWriteID)
		u.ExpressionAttributeValues = withEntry[types.AttributeValue](u.ExpressionAttributeValues, valueWriteID, tag)
		item.Update = &u
	}
	return item
}

// and joins two conditions.
func and(a, b string) string {
	if strings.TrimSpace(a) == "" {
		return b
	}
	return "(" + a + ") AND " + b
}

func withEntry[V any](m map[string]V, k string, v V) map[string]V {
	m = maps.Clone(m)
	if m == nil {
		m = map[string]V{}
	}
	m[k] = v
	return m
}

// withSet adds assignment to the SET clause of an update expression, or adds a SET clause: a clause may
// appear only once. A clause starts with its keyword, at the start or after white space; nothing else of
// an expression is the bare word SET (names and values there are placeholders or attribute names).
func withSet(expr, assignment string) string {
	for i := 0; i+3 < len(expr); i++ {
		if (i == 0 || isSpace(expr[i-1])) && strings.EqualFold(expr[i:i+3], "SET") && isSpace(expr[i+3]) {
			return expr[:i+4] + assignment + ", " + expr[i+4:]
		}
	}
	return strings.TrimSpace(expr + " SET " + assignment)
}

func isSpace(c byte) bool { return c == ' ' || c == '\n' || c == '\t' || c == '\r' }

// writeOne sends a write's only item as a plain conditional write; a failed condition is its
// ConditionalCheckFailedException (with the item as it was), which outcome turns into *cancelled naming
// item 0.
func (s *Store) writeOne(ctx context.Context, item types.TransactWriteItem) error {
	old := types.ReturnValuesOnConditionCheckFailureAllOld
	var err error
	switch {
	case item.Update != nil:
		u := item.Update
		_, err = s.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{
			TableName: u.TableName, Key: u.Key, UpdateExpression: u.UpdateExpression,
			ConditionExpression: u.ConditionExpression, ExpressionAttributeNames: u.ExpressionAttributeNames,
			ExpressionAttributeValues: u.ExpressionAttributeValues, ReturnValuesOnConditionCheckFailure: old,
		}, writeRetries)
	case item.Put != nil:
		p := item.Put
		_, err = s.db.PutItem(ctx, &dynamodb.PutItemInput{
			TableName: p.TableName, Item: p.Item, ConditionExpression: p.ConditionExpression,
			ExpressionAttributeNames: p.ExpressionAttributeNames, ExpressionAttributeValues: p.ExpressionAttributeValues,
			ReturnValuesOnConditionCheckFailure: old,
		}, writeRetries)
	case item.Delete != nil:
		d := item.Delete
		_, err = s.db.DeleteItem(ctx, &dynamodb.DeleteItemInput{
			TableName: d.TableName, Key: d.Key, ConditionExpression: d.ConditionExpression,
			ExpressionAttributeNames: d.ExpressionAttributeNames, ExpressionAttributeValues: d.ExpressionAttributeValues,
			ReturnValuesOnConditionCheckFailure: old,
		}, writeRetries)
	default:
		return fmt.Errorf("a lone %+v is no write", item)
	}
	return err
}
