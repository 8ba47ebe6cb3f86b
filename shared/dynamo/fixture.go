package dynamo

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/reportingplatform/api/shared/domain"
)

// The fixture loader (infra/fixture, SPEC §7) creates what the API cannot: organizations, members,
// portfolios, invitations and comments. It parses and validates a whole file against what is stored
// before it writes anything; the store gives it the reads for that (FixtureState, fixture_read.go) and
// one write per kind of entry (fixture_write.go; PutFixtureComments in this file) that keeps the table's
// denormalised data in step: email claims, the memberships copied onto users, comment counters. Together
// they are the loader's fixture.Store; the types they exchange are domain's (domain/fixture.go).

// fixtureCommentsPerTx bounds a comment transaction: 25 comments and their counters stay well under
// TransactWriteItems' 100 items, and grouping cuts the round trips of a 5,000-comment fixture by 25.
const (
	fixtureCommentsPerTx    = 25
	fixtureMaxTransactItems = 100
	fixtureMaxTransactBytes = 3 << 20 // TransactWriteItems takes 4 MB; texts of 100,000 characters add up
)

// PutFixtureComments creates or replaces comments. Each transaction holds up to 25 comments of one
// object together with the exact change of every counter they touch, summed per item: the object's
// COUNT (n, and org_id = the comments' organization) and COUNT#TAG# counters, the parents' replies,
// and for a replaced comment the counters and parent it leaves. So after any transaction the counters
// match the stored comments, even when a load stops half-way.
//
// The caller (the loader) has validated organizations, parents and cycles, and lists a new parent
// before its replies. A replaced comment is updated in place without touching its replies (other
// transactions may be adding to them), conditional on its stored version; a new one is put only if
// absent. Returns ECONFLICT when a comment changed since it was read.
func (s *Store) PutFixtureComments(ctx context.Context, comments []domain.FixtureComment) error {
	var order []domain.CommentObject
	groups := map[domain.CommentObject][]domain.FixtureComment{}
	for _, fc := range comments {
		o := domain.CommentObject{ContentType: fc.Comment.ContentType, ObjectID: fc.Comment.ObjectID}
		if _, ok := groups[o]; !ok {
			order = append(order, o)
		}
		groups[o] = append(groups[o], fc)
	}
	for _, o := range order {
		tx := newFixtureCommentTx()
		for _, fc := range groups[o] {
			if !tx.fits(fc) {
				if err := s.writeFixtureCommentTx(ctx, tx); err != nil {
					return err
				}
				tx = newFixtureCommentTx()
			}
			tx.add(fc)
		}
		if err := s.writeFixtureCommentTx(ctx, tx); err != nil {
			return err
		}
	}
	return nil
}

// fixtureCommentTx collects the comments of one transaction and the summed counter changes they make.
type fixtureCommentTx struct {
	comments []domain.FixtureComment
	touched  map[key]bool   // every item the transaction writes
	bytes    int            // a generous estimate of the size of the comments
	replies  map[string]int // comment id → change of its replies
	counts   map[key]int    // counter → change of n
	owners   map[key]string // COUNT counter → organization to set
	keys     []key          // counters in first-touched order, for a stable transaction
}

func newFixtureCommentTx() *fixtureCommentTx {
	return &fixtureCommentTx{touched: map[key]bool{}, replies: map[string]int{}, counts: map[key]int{}, owners: map[key]string{}}
}

// fixtureCommentTouches lists the items a comment write changes: the comment, and the counters and parent
// of its new and (when replaced) its stored state.
func fixtureCommentTouches(fc domain.FixtureComment) []key {
	keys := []key{commentKey(fc.Comment.ID)}
	for _, c := range []*domain.Comment{&fc.Comment, fc.Previous} {
		if c == nil {
			continue
		}
		keys = append(keys, objectCountKey(c.ContentType, c.ObjectID))
		if c.Tag != nil {
			keys = append(keys, objectTagCountKey(c.ContentType, c.ObjectID, *c.Tag))
		}
		if c.ParentID != nil {
			keys = append(keys, commentKey(*c.ParentID))
		}
	}
	return keys
}

// fits reports whether fc can join the transaction without passing its limits.
func (tx *fixtureCommentTx) fits(fc domain.FixtureComment) bool {
	if len(tx.comments) >= fixtureCommentsPerTx || (len(tx.comments) > 0 && tx.bytes+fixtureCommentSize(fc.Comment) > fixtureMaxTransactBytes) {
		return false
	}
	extra := map[key]bool{}
	for _, k := range fixtureCommentTouches(fc) {
		if !tx.touched[k] {
			extra[k] = true
		}
	}
	return len(tx.touched)+len(extra) <= fixtureMaxTransactItems
}

// fixtureCommentSize bounds the stored size of c: its text and tag (twice, in the tag index keys) and 1 KB
// for the ids, timestamps and attribute names.
func fixtureCommentSize(c domain.Comment) int {
	return len(c.Text) + 3*len(domain.Deref(c.Tag)) + 1024
}

// add puts fc into the transaction: its stored state's counters go down, its new state's go up, and
// its object's counter takes its organization.
func (tx *fixtureCommentTx) add(fc domain.FixtureComment) {
	tx.comments = append(tx.comments, fc)
	tx.bytes += fixtureCommentSize(fc.Comment)
	for _, k := range fixtureCommentTouches(fc) {
		tx.touched[k] = true
	}
	if fc.Previous != nil {
		tx.count(*fc.Previous, -1)
	}
	tx.count(fc.Comment, 1)
	tx.owners[objectCountKey(fc.Comment.ContentType, fc.Comment.ObjectID)] = fc.Comment.OrganizationID
}

func (tx *fixtureCommentTx) count(c domain.Comment, delta int) {
	tx.counter(objectCountKey(c.ContentType, c.ObjectID), delta)
	if c.Tag != nil {
		tx.counter(objectTagCountKey(c.ContentType, c.ObjectID, *c.Tag), delta)
	}
	if c.ParentID != nil {
		tx.replies[*c.ParentID] += delta
	}
}

func (tx *fixtureCommentTx) counter(k key, delta int) {
	if _, ok := tx.counts[k]; !ok {
		tx.keys = append(tx.keys, k)
	}
	tx.counts[k] += delta
}

// writeFixtureCommentTx runs one comment transaction. what[i] says what a failed condition on item i means.
func (s *Store) writeFixtureCommentTx(ctx context.Context, tx *fixtureCommentTx) error {
	if len(tx.comments) == 0 {
		return nil
	}
	var (
		items []types.TransactWriteItem
		what  []string
	)
	written := map[string]bool{}
	for _, fc := range tx.comments {
		c := fc.Comment
		written[c.ID] = true
		if fc.Previous == nil {
			c.Replies, c.Version = tx.replies[c.ID], 1
			item, err := attributevalue.MarshalMap(toCommentItem(c))
			if err != nil {
				return fail("encode comment", err)
			}
			items = append(items, types.TransactWriteItem{Put: &types.Put{Item: item, ConditionExpression: aws.String("attribute_not_exists(PK)")}})
			what = append(what, "comment "+c.ID+" was created since it was read")
			continue
		}
		c.Version = fc.Previous.Version + 1
		update, err := fixtureCommentUpdate(c, tx.replies[c.ID], fc.Previous.Version)
		if err != nil {
			return err
		}
		items = append(items, types.TransactWriteItem{Update: update})
		what = append(what, "comment "+c.ID+" was changed since it was read")
	}
	for _, id := range slices.Sorted(maps.Keys(tx.replies)) {
		if r := tx.replies[id]; !written[id] && r != 0 {
			items = append(items, types.TransactWriteItem{Update: &types.Update{
				Key:                       commentKey(id).av(),
				UpdateExpression:          aws.String("ADD replies :r"),
				ConditionExpression:       aws.String("attribute_exists(PK)"),
				ExpressionAttributeValues: map[string]types.AttributeValue{":r": fixtureNumber(r)},
			}})
			what = append(what, "parent comment "+id+" does not exist")
		}
	}
	for _, k := range tx.keys {
		org, owner := tx.owners[k]
		if tx.counts[k] == 0 && !owner {
			continue
		}
		update := &types.Update{
			Key:                       k.av(),
			UpdateExpression:          aws.String("ADD n :d"),
			ExpressionAttributeValues: map[string]types.AttributeValue{":d": fixtureNumber(tx.counts[k])},
		}
		if owner {
			*update.UpdateExpression += " SET org_id = :org"
			update.ExpressionAttributeValues[":org"] = fixtureString(org)
		}
		items = append(items, types.TransactWriteItem{Update: update})
		what = append(what, "")
	}
	first := tx.comments[0].Comment
	err := s.transact(ctx, fmt.Sprintf("write %d comments of %s %s", len(tx.comments), first.ContentType, first.ObjectID), items)
	for i, w := range what {
		if w != "" && conditionFailed(err, i) {
			return &domain.Error{Code: domain.ECONFLICT, Detail: w, Err: err}
		}
	}
	return err
}

// fixtureCommentUpdate replaces stored comment c in place: every attribute but its keys and replies (which
// only reply writes change) is set, the tag index keys go when the tag does, replies moves by
// repliesDelta. Conditional on the stored version.
func fixtureCommentUpdate(c domain.Comment, repliesDelta int, storedVersion int64) (*types.Update, error) {
	item, err := attributevalue.MarshalMap(toCommentItem(c))
	if err != nil {
		return nil, fail("encode comment", err)
	}
	u := &types.Update{
		Key:                       commentKey(c.ID).av(),
		ConditionExpression:       aws.String("#version = :stored_version"),
		ExpressionAttributeNames:  map[string]string{},
		ExpressionAttributeValues: map[string]types.AttributeValue{":stored_version": fixtureNumber(storedVersion)},
	}
	var set []string
	for _, name := range slices.Sorted(maps.Keys(item)) {
		if name == attrPK || name == attrSK || name == "replies" {
			continue
		}
		u.ExpressionAttributeNames["#"+name] = name
		u.ExpressionAttributeValues[":"+name] = item[name]
		set = append(set, fmt.Sprintf("#%s = :%s", name, name))
	}
	expr := "SET " + strings.Join(set, ", ")
	if _, tagged := item[attrGSI2PK]; !tagged {
		u.ExpressionAttributeNames["#gsi2pk"], u.ExpressionAttributeNames["#gsi2sk"] = attrGSI2PK, attrGSI2SK
		expr += " REMOVE #gsi2pk, #gsi2sk"
	}
	if repliesDelta != 0 {
		u.ExpressionAttributeValues[":replies_delta"] = fixtureNumber(repliesDelta)
		expr += " ADD replies :replies_delta"
	}
	u.UpdateExpression = aws.String(expr)
	return u, nil
}

func fixtureNumber[N int | int64](n N) types.AttributeValue {
	return &types.AttributeValueMemberN{Value: fmt.Sprint(n)}
}
