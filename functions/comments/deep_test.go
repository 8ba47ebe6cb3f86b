package comments_test

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go/middleware"
	"github.com/reportingplatform/api/infra/fixture"
	"github.com/reportingplatform/api/infra/testkit"
	"github.com/reportingplatform/api/shared/domain"
	"github.com/reportingplatform/api/shared/dynamo"
)

// A thread's limits (SPEC §6): a comment write never walks the thread. Whatever the thread's depth and
// its texts, a reply, a re-parent or a refused 101st level costs a few calls and reads the comments its
// path and body name, and no text but the one the answer shows.

// longText is a comment text of the largest size SPEC §6 allows.
var longText = strings.Repeat("x", domain.MaxCommentText)

// Bounds of what one write may read (in bytes of the items DynamoDB returns, and in read units).
const (
	// itemOverhead bounds what a comment item holds besides its text (ids, timestamps, up to 100
	// ancestors' ids, attribute names), and the session's items.
	itemOverhead = 8 << 10
	// unitsPerComment bounds the strongly consistent read units of one comment of longText with 100
	// ancestors (4 KB a unit): reading such a comment costs this whether or not its text comes back.
	unitsPerComment = 28
	// callBudget is the most DynamoDB calls a comment write may make.
	callBudget = 4
)

// returned counts the bytes of the items DynamoDB returns to reads (GetItem, BatchGetItem, Query).
type returned struct {
	mu    sync.Mutex
	bytes int
}

func (r *returned) reset() { r.mu.Lock(); r.bytes = 0; r.mu.Unlock() }

func (r *returned) total() int { r.mu.Lock(); defer r.mu.Unlock(); return r.bytes }

func (r *returned) middleware(stack *middleware.Stack) error {
	return stack.Initialize.Add(middleware.InitializeMiddlewareFunc("comments.returned",
		func(ctx context.Context, in middleware.InitializeInput,
			next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
			out, md, err := next.HandleInitialize(ctx, in)
			n := 0
			switch o := out.Result.(type) {
			case *dynamodb.GetItemOutput:
				n += itemBytes(o.Item)
			case *dynamodb.BatchGetItemOutput:
				for _, items := range o.Responses {
					for _, it := range items {
						n += itemBytes(it)
					}
				}
			case *dynamodb.QueryOutput:
				for _, it := range o.Items {
					n += itemBytes(it)
				}
			}
			r.mu.Lock()
			r.bytes += n
			r.mu.Unlock()
			return out, md, err
		}), middleware.After)
}

// itemBytes is an item's size as DynamoDB counts it, near enough: names and values.
func itemBytes(item map[string]types.AttributeValue) int {
	n := 0
	for name, v := range item {
		n += len(name) + valueBytes(v)
	}
	return n
}

func valueBytes(v types.AttributeValue) int {
	switch v := v.(type) {
	case *types.AttributeValueMemberS:
		return len(v.Value)
	case *types.AttributeValueMemberN:
		return len(v.Value)
	case *types.AttributeValueMemberB:
		return len(v.Value)
	case *types.AttributeValueMemberL:
		n := 3
		for _, x := range v.Value {
			n += 1 + valueBytes(x)
		}
		return n
	case *types.AttributeValueMemberM:
		return 3 + itemBytes(v.Value)
	}
	return 1
}

// deepThread is a thread built by the loader: chain[d] is at depth d, from 0 to domain.MaxThreadDepth-1,
// every text longText; spare are top-level comments of longText on the same object, without replies.
type deepThread struct {
	e     *env
	th    *thread
	bytes *returned
	chain []fixture.Comment
	spare []fixture.Comment
}

func newDeepThread(t *testing.T) *deepThread {
	t.Helper()
	db := testkit.NewDB(t)
	counted := &returned{}
	// The handler's client is the table's own (db.Calls counts its calls) with the byte counter added.
	client := db.ClientWith(func(o *dynamodb.Options) { o.APIOptions = append(o.APIOptions, counted.middleware) })
	e := setupOn(t, db, dynamo.New(client, db.Table))
	d := &deepThread{e: e, th: e.thread("report"), bytes: counted}
	parent := ""
	for range domain.MaxThreadDepth {
		c := d.th.add("", parent)
		c.Text = longText
		d.th.comments[len(d.th.comments)-1] = c
		d.chain = append(d.chain, c)
		parent = c.ID
	}
	for range 3 {
		c := d.th.add("", "")
		c.Text = longText
		d.th.comments[len(d.th.comments)-1] = c
		d.spare = append(d.spare, c)
	}
	d.th.load(t)
	return d
}

// measured sends one request and holds it to the write budget: at most callBudget calls, the bytes of
// shownTexts texts (the answer's own) besides small items, and the read units of named comments (those
// the path and body name, plus the one written).
func (d *deepThread) measured(t *testing.T, method, path, body string, shownTexts, named int) testkit.Response {
	t.Helper()
	calls := d.e.db.Calls
	calls.Reset()
	d.bytes.reset()
	resp := d.e.do(t, method, path, "alice", body)
	if n := len(calls.Ops()); n > callBudget {
		t.Errorf("%d DynamoDB calls %v, want at most %d", n, calls, callBudget)
	}
	if got, limit := d.bytes.total(), shownTexts*len(longText)+itemOverhead; got > limit {
		t.Errorf("read %d bytes of items %v, want at most %d", got, calls, limit)
	}
	if got, limit := calls.ReadUnits(), float64(named*unitsPerComment+2); got > limit {
		t.Errorf("read %.1f units %v, want at most %.1f", got, calls, limit)
	}
	t.Logf("%s %s: %d calls %v, %d bytes, %.1f read units", method, path, len(calls.Ops()), calls,
		d.bytes.total(), calls.ReadUnits())
	return resp
}

// stored is comment id as the table holds it.
func (d *deepThread) stored(t *testing.T, id string) domain.Comment {
	t.Helper()
	c, err := d.e.db.Store.Comment(context.Background(), id)
	if err != nil {
		t.Fatalf("read %s: %v", id, err)
	}
	return c
}

// wantPlace checks a stored comment's depth and ancestors: those of a reply to parent.
func (d *deepThread) wantPlace(t *testing.T, id string, parent domain.Comment) {
	t.Helper()
	c := d.stored(t, id)
	want := append(append([]string{}, parent.Ancestors...), parent.ID)
	if c.Depth != parent.Depth+1 || strings.Join(c.Ancestors, ",") != strings.Join(want, ",") {
		t.Fatalf("stored at depth %d below %d ancestors (last %v), want depth %d below %s", c.Depth,
			len(c.Ancestors), c.Ancestors[len(c.Ancestors)-1:], parent.Depth+1, parent.ID)
	}
}

// noWrite fails when the last request wrote anything.
func (d *deepThread) noWrite(t *testing.T) {
	t.Helper()
	for _, op := range d.e.db.Calls.Ops() {
		switch op {
		case "TransactWriteItems", "PutItem", "UpdateItem", "DeleteItem", "BatchWriteItem":
			t.Fatalf("a refused write wrote: %v", d.e.db.Calls)
		}
	}
}

func TestWritesInADeepThreadReadNoThread(t *testing.T) {
	d := newDeepThread(t)
	deepest := d.chain[len(d.chain)-1]
	if c := d.stored(t, deepest.ID); c.Depth != domain.MaxThreadDepth-1 || len(c.Ancestors) != domain.MaxThreadDepth-1 ||
		c.Ancestors[0] != d.chain[0].ID {
		t.Fatalf("the loader stored the deepest at depth %d with %d ancestors", c.Depth, len(c.Ancestors))
	}
	oid := d.th.objectID
	var reply string

	t.Run("a reply to the deepest comment", func(t *testing.T) {
		resp := d.measured(t, "POST", "/api/v1/comments/",
			`{"content_type": "report", "object_id": "`+oid+`", "text": "`+longText+`", "parent": "`+deepest.ID+`"}`,
			0, 2)
		if resp.Status != 201 {
			t.Fatalf("%d %.300s", resp.Status, resp.Body)
		}
		reply = resp.Object(t)["id"].(string)
		resp.Expect(t, 201, written(t, reply, "report", oid, nil, longText, &deepest.ID))
		d.wantPlace(t, reply, d.stored(t, deepest.ID))
	})
	t.Run("a leaf re-parented under the deepest comment", func(t *testing.T) {
		leaf := d.spare[0]
		resp := d.measured(t, "PATCH", itemPath(leaf.ID), `{"parent": "`+deepest.ID+`"}`, 1, 3)
		resp.Expect(t, 200, written(t, leaf.ID, "report", oid, nil, longText, &deepest.ID))
		d.wantPlace(t, leaf.ID, d.stored(t, deepest.ID))
	})
	t.Run("a leaf re-parented with a new text reads no text", func(t *testing.T) {
		leaf := d.spare[1]
		resp := d.measured(t, "PATCH", itemPath(leaf.ID), `{"parent": "`+deepest.ID+`", "text": "short"}`, 0, 3)
		resp.Expect(t, 200, written(t, leaf.ID, "report", oid, nil, "short", &deepest.ID))
		d.wantPlace(t, leaf.ID, d.stored(t, deepest.ID))
	})
	t.Run("a reply at the 101st level is refused", func(t *testing.T) {
		if reply == "" {
			t.Skip("no reply at the 100th level")
		}
		before := d.stored(t, reply)
		resp := d.measured(t, "POST", "/api/v1/comments/",
			`{"content_type": "report", "object_id": "`+oid+`", "text": "`+longText+`", "parent": "`+reply+`"}`, 0, 1)
		resp.Expect(t, 400, `{"parent": ["A thread cannot be more than 100 replies deep."]}`)
		d.noWrite(t)
		if after := d.stored(t, reply); after.Version != before.Version || after.Replies != 0 {
			t.Fatalf("the full thread's last comment changed: %+v", after)
		}
	})
	t.Run("a leaf re-parented to the 101st level is refused", func(t *testing.T) {
		if reply == "" {
			t.Skip("no reply at the 100th level")
		}
		leaf := d.spare[2]
		resp := d.measured(t, "PATCH", itemPath(leaf.ID), `{"parent": "`+reply+`"}`, 1, 2)
		resp.Expect(t, 400, `{"parent": ["A thread cannot be more than 100 replies deep."]}`)
		d.noWrite(t)
		if c := d.stored(t, leaf.ID); c.ParentID != nil || c.Depth != 0 || c.Version != 1 {
			t.Fatalf("the refused leaf changed: parent %v, depth %d, version %d", c.ParentID, c.Depth, c.Version)
		}
	})
	t.Run("the top of the thread cannot go below its own reply", func(t *testing.T) {
		resp := d.measured(t, "PATCH", itemPath(d.chain[0].ID), `{"parent": "`+deepest.ID+`"}`, 1, 2)
		resp.Expect(t, 400, `{"parent": ["A comment cannot be its own ancestor."]}`)
		d.noWrite(t)
	})
	t.Run("a comment with replies keeps its parent", func(t *testing.T) {
		resp := d.measured(t, "PATCH", itemPath(d.chain[50].ID), `{"parent": "`+d.chain[0].ID+`"}`, 1, 2)
		resp.Expect(t, 400, `{"non_field_errors": ["A comment with replies cannot be moved."]}`)
		d.noWrite(t)
	})
}

// A reply created while its parent is being moved: the move's transaction finds the reply's count on
// the comment and loses, and the move, read again, is refused; the reply keeps the place it was given.
func TestAReplyBeatsAMoveOfItsParent(t *testing.T) {
	e := setup(t)
	th := e.thread("report")
	target, mover := th.add("", ""), th.add("", "")
	th.load(t)
	arrived, release := e.db.Calls.Hold("TransactWriteItems")
	defer release()
	var moved testkit.Response
	done := make(chan struct{})
	go func() {
		defer close(done)
		moved = e.do(t, "PATCH", itemPath(mover.ID), "alice", `{"parent": "`+target.ID+`", "text": "moved"}`)
	}()
	<-arrived
	resp := e.do(t, "POST", "/api/v1/comments/", "alice",
		`{"content_type": "report", "object_id": "`+th.objectID+`", "text": "reply", "parent": "`+mover.ID+`"}`)
	if resp.Status != 201 {
		t.Fatalf("reply: %d %s", resp.Status, resp.Body)
	}
	reply := resp.Object(t)["id"].(string)
	resp.Expect(t, 201, written(t, reply, "report", th.objectID, nil, "reply", &mover.ID))
	release()
	<-done
	moved.Expect(t, 400, `{"non_field_errors": ["A comment with replies cannot be moved."]}`)
	m, err := e.db.Store.Comment(context.Background(), mover.ID)
	if err != nil || m.ParentID != nil || m.Depth != 0 || m.Replies != 1 {
		t.Fatalf("mover %+v, %v", m, err)
	}
	r, err := e.db.Store.Comment(context.Background(), reply)
	if err != nil || r.Depth != 1 || len(r.Ancestors) != 1 || r.Ancestors[0] != mover.ID {
		t.Fatalf("reply at depth %d below %v, %v", r.Depth, r.Ancestors, err)
	}
}

// A parent re-parented while a reply to it is being created: the create's transaction finds the
// parent's version changed and loses; read again, the reply takes the parent's new place.
func TestAReplyFollowsItsParentsNewPlace(t *testing.T) {
	e := setup(t)
	th := e.thread("report")
	top, parent := th.add("", ""), th.add("", "")
	th.load(t)
	arrived, release := e.db.Calls.Hold("TransactWriteItems")
	defer release()
	var created testkit.Response
	done := make(chan struct{})
	go func() {
		defer close(done)
		created = e.do(t, "POST", "/api/v1/comments/", "alice",
			`{"content_type": "report", "object_id": "`+th.objectID+`", "text": "reply", "parent": "`+parent.ID+`"}`)
	}()
	<-arrived
	e.do(t, "PATCH", itemPath(parent.ID), "alice", `{"parent": "`+top.ID+`", "text": "moved"}`).
		Expect(t, 200, written(t, parent.ID, "report", th.objectID, nil, "moved", &top.ID))
	release()
	<-done
	if created.Status != 201 {
		t.Fatalf("reply: %d %s", created.Status, created.Body)
	}
	reply := created.Object(t)["id"].(string)
	created.Expect(t, 201, written(t, reply, "report", th.objectID, nil, "reply", &parent.ID))
	r, err := e.db.Store.Comment(context.Background(), reply)
	if err != nil || r.Depth != 2 || strings.Join(r.Ancestors, ",") != top.ID+","+parent.ID {
		t.Fatalf("reply at depth %d below %v, %v", r.Depth, r.Ancestors, err)
	}
}
