package dynamo

import (
	"context"
	"fmt"
	"maps"
	"slices"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/reportingplatform/api/shared/domain"
)

// The fixture loader (infra/fixture, SPEC §7) creates what the API cannot: organizations, members,
// portfolios, invitations and comments. It parses and validates a whole file against what is stored
// before it writes anything; the store gives it the reads for that (FixtureState, fixture_read.go) and
// one write per kind of entry (fixture_write.go; PutComments in this file) that keeps the table's
// denormalised data in step: email claims, the memberships copied onto users, comment counters. Together
// they are the loader's fixture.Store; the types they exchange that are not entities are declared beside
// the read (fixture_read.go). Every write is built with the expression builder and sent by transact.

// fixtureCommentsPerTx bounds a comment transaction: 25 comments and their counters stay well under
// TransactWriteItems' 100 items, and grouping cuts the round trips of a 5,000-comment fixture by 25.
const (
	fixtureCommentsPerTx    = 25
	fixtureMaxTransactItems = 100
	fixtureMaxTransactBytes = 3 << 20 // TransactWriteItems takes 4 MB; texts of 100,000 characters add up
)

// PutComments creates or replaces comments. Each transaction holds up to 25 comments of one
// object together with the exact change of every counter they touch, summed per item: the object's
// COUNT (n, and org_id = the comments' organization) and COUNT#TAG# counters with their counts by
// month, the month items' counts by ten minutes, the parents' replies,
// and for a replaced comment the counters and parent it leaves. So after any transaction the counters
// match the stored comments, even when a load stops half-way.
//
// The caller (the loader) has validated organizations, parents and cycles, set each comment's depth
// and ancestors (domain.Comment.PlaceUnder), and lists a new parent before its replies. A replaced comment is updated in place without touching its replies (other
// transactions may be adding to them), conditional on its stored version; a new one is put only if
// absent. Returns ECONFLICT when a comment changed since it was read.
func (s *Store) PutComments(ctx context.Context, comments []FixtureComment) error {
	var order []domain.CommentObject
	groups := map[domain.CommentObject][]FixtureComment{}
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
	comments []FixtureComment
	touched  map[key]bool           // every item the transaction writes
	bytes    int                    // a generous estimate of the size of the comments
	replies  map[string]int         // comment id → change of its replies
	counts   map[key]map[string]int // counter → attribute (n, a month's or ten minutes' count) → change
	owners   map[key]string         // COUNT counter → organization to set
	keys     []key                  // counters in first-touched order, for a stable transaction
}

func newFixtureCommentTx() *fixtureCommentTx {
	return &fixtureCommentTx{touched: map[key]bool{}, replies: map[string]int{}, counts: map[key]map[string]int{},
		owners: map[key]string{}}
}

// fixtureCommentTouches lists the items a comment write changes: the comment, and the counters and parent
// of its new and (when replaced) its stored state.
func fixtureCommentTouches(fc FixtureComment) []key {
	keys := []key{commentKey(fc.Comment.ID)}
	for _, c := range []*domain.Comment{&fc.Comment, fc.Previous} {
		if c == nil {
			continue
		}
		month, _ := commentBuckets(c.CreatedAt)
		keys = append(keys, objectCountKey(c.ContentType, c.ObjectID), objectMonthKey(c.ContentType, c.ObjectID, nil, month))
		if c.Tag != nil {
			keys = append(keys, objectTagCountKey(c.ContentType, c.ObjectID, *c.Tag),
				objectMonthKey(c.ContentType, c.ObjectID, c.Tag, month))
		}
		if c.ParentID != nil {
			keys = append(keys, commentKey(*c.ParentID))
		}
	}
	return keys
}

// fits reports whether fc can join the transaction without passing its limits.
func (tx *fixtureCommentTx) fits(fc FixtureComment) bool {
	if len(tx.comments) >= fixtureCommentsPerTx ||
		(len(tx.comments) > 0 && tx.bytes+fixtureCommentSize(fc.Comment) > fixtureMaxTransactBytes) {
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

// fixtureCommentSize bounds the stored size of c: its text and tag (twice, in the tag index keys), its
// ancestors' ids and 1 KB for the ids, timestamps and attribute names.
func fixtureCommentSize(c domain.Comment) int {
	return len(c.Text) + 3*len(domain.Deref(c.Tag)) + 40*len(c.Ancestors) + 1024
}

// add puts fc into the transaction: its stored state's counters go down, its new state's go up, and
// its object's counter takes its organization.
func (tx *fixtureCommentTx) add(fc FixtureComment) {
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

// count changes what counts c as the API's writes do (objectCountItems, tagCountItems).
func (tx *fixtureCommentTx) count(c domain.Comment, delta int) {
	month, slot := commentBuckets(c.CreatedAt)
	tx.counter(objectCountKey(c.ContentType, c.ObjectID), delta, "n", monthCountAttr(month))
	tx.counter(objectMonthKey(c.ContentType, c.ObjectID, nil, month), delta, slotCountAttr(slot))
	if c.Tag != nil {
		tx.counter(objectTagCountKey(c.ContentType, c.ObjectID, *c.Tag), delta, "n", monthCountAttr(month))
		tx.counter(objectMonthKey(c.ContentType, c.ObjectID, c.Tag, month), delta, slotCountAttr(slot))
	}
	if c.ParentID != nil {
		tx.replies[*c.ParentID] += delta
	}
}

// counter adds delta to the attributes attrs of counter k.
func (tx *fixtureCommentTx) counter(k key, delta int, attrs ...string) {
	changes, ok := tx.counts[k]
	if !ok {
		changes = map[string]int{}
		tx.counts[k] = changes
		tx.keys = append(tx.keys, k)
	}
	for _, attr := range attrs {
		changes[attr] += delta
	}
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
			put, err := putNew("comment", toCommentItem(c))
			if err != nil {
				return err
			}
			items = append(items, put)
			what = append(what, "comment "+c.ID+" was created since it was read")
			continue
		}
		c.Version = fc.Previous.Version + 1
		update, err := fixtureCommentUpdate(c, tx.replies[c.ID], fc.Previous.Version)
		if err != nil {
			return err
		}
		items = append(items, update)
		what = append(what, "comment "+c.ID+" was changed since it was read")
	}
	for _, id := range slices.Sorted(maps.Keys(tx.replies)) {
		if r := tx.replies[id]; !written[id] && r != 0 {
			present := itemPresent()
			update, err := updateItem(commentKey(id), expression.Add(expression.Name("replies"), expression.Value(r)), &present)
			if err != nil {
				return err
			}
			items = append(items, update)
			what = append(what, "parent comment "+id+" does not exist")
		}
	}
	for _, k := range tx.keys {
		org, owner := tx.owners[k]
		var upd expression.UpdateBuilder
		changed := false
		for _, attr := range slices.Sorted(maps.Keys(tx.counts[k])) {
			if d := tx.counts[k][attr]; d != 0 {
				upd, changed = upd.Add(expression.Name(attr), expression.Value(d)), true
			}
		}
		if !changed && !owner {
			continue
		}
		if owner {
			upd = upd.Set(expression.Name("org_id"), expression.Value(org))
		}
		update, err := updateItem(k, upd, nil)
		if err != nil {
			return err
		}
		items = append(items, update)
		what = append(what, "")
	}
	first := tx.comments[0].Comment
	err := s.transact(ctx,
		fmt.Sprintf("write %d comments of %s %s", len(tx.comments), first.ContentType, first.ObjectID), items)
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
func fixtureCommentUpdate(c domain.Comment, repliesDelta int, storedVersion int64) (types.TransactWriteItem, error) {
	item, err := attributevalue.MarshalMap(toCommentItem(c))
	if err != nil {
		return types.TransactWriteItem{}, fail("encode comment", err)
	}
	var upd expression.UpdateBuilder
	for _, name := range slices.Sorted(maps.Keys(item)) {
		if name == attrPK || name == attrSK || name == "replies" {
			continue
		}
		upd = upd.Set(expression.Name(name), expression.Value(item[name]))
	}
	if _, tagged := item[attrGSI2PK]; !tagged {
		upd = upd.Remove(expression.Name(attrGSI2PK)).Remove(expression.Name(attrGSI2SK))
	}
	if _, reply := item["ancestors"]; !reply {
		upd = upd.Remove(expression.Name("ancestors"))
	}
	if repliesDelta != 0 {
		upd = upd.Add(expression.Name("replies"), expression.Value(repliesDelta))
	}
	asRead := expression.Name(attrVersion).Equal(expression.Value(storedVersion))
	return updateItem(commentKey(c.ID), upd, &asRead)
}
