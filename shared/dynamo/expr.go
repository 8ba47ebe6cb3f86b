package dynamo

import (
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// putItem builds one transaction Put of item, conditional on cond when it is set; the builder escapes
// names and values, as updateItem's.
func putItem(item map[string]types.AttributeValue, cond *expression.ConditionBuilder) (types.TransactWriteItem, error) {
	put := &types.Put{Item: item}
	var err error
	put.ConditionExpression, put.ExpressionAttributeNames, put.ExpressionAttributeValues, err = condition("put", cond)
	if err != nil {
		return types.TransactWriteItem{}, err
	}
	return types.TransactWriteItem{Put: put}, nil
}

// condition is cond built, for the write named what: its expression, names and values; none when cond
// is nil.
func condition(what string, cond *expression.ConditionBuilder) (*string, map[string]string,
	map[string]types.AttributeValue, error) {
	if cond == nil {
		return nil, nil, nil, nil
	}
	expr, err := expression.NewBuilder().WithCondition(*cond).Build()
	if err != nil {
		return nil, nil, nil, fail("build "+what+" condition", err)
	}
	return expr.Condition(), expr.Names(), expr.Values(), nil
}

// putNew builds one transaction Put of v encoded as an item, conditional on there being none yet: the
// write of an item that is created. what names the item in the error of an encoding that fails.
func putNew(what string, v any) (types.TransactWriteItem, error) {
	item, err := attributevalue.MarshalMap(v)
	if err != nil {
		return types.TransactWriteItem{}, fail("encode "+what, err)
	}
	absent := itemAbsent()
	return putItem(item, &absent)
}

// deleteItem builds one transaction Delete of k, conditional on cond when it is set.
func deleteItem(k key, cond *expression.ConditionBuilder) (types.TransactWriteItem, error) {
	del := &types.Delete{Key: k.av()}
	var err error
	del.ConditionExpression, del.ExpressionAttributeNames, del.ExpressionAttributeValues, err = condition("delete", cond)
	if err != nil {
		return types.TransactWriteItem{}, err
	}
	return types.TransactWriteItem{Delete: del}, nil
}

// itemAbsent is the condition of a write that creates its item.
func itemAbsent() expression.ConditionBuilder {
	return expression.AttributeNotExists(expression.Name(attrPK))
}

// itemPresent is the condition of a write that must not create its item.
func itemPresent() expression.ConditionBuilder {
	return expression.AttributeExists(expression.Name(attrPK))
}
