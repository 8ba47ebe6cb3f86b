package dynamo_test

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/reportingplatform/api/infra/testkit"
	"github.com/reportingplatform/api/shared/domain"
	"github.com/reportingplatform/api/shared/dynamo"
)

// commentWorld is one object of one organization with comments written through the fixture store
// method, which sets counters and reply counts as the loader does.
type commentWorld struct {
	db     *testkit.DB
	org    string
	author domain.User
	object domain.CommentObject
	at     time.Time
}

func newCommentWorld(t *testing.T) *commentWorld {
	t.Helper()
	db := testkit.NewDB(t)
	return &commentWorld{
		db: db, org: uuid.NewString(), author: db.User(t, testkit.NewUser{}),
		object: domain.CommentObject{ContentType: "report", ObjectID: uuid.NewString()},
		at:     time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC),
	}
}

// put writes a comment on object (this world's when zero) and returns it as stored.
func (w *commentWorld) put(t *testing.T, object domain.CommentObject, org, tag, parent string) domain.Comment {
	t.Helper()
	if object == (domain.CommentObject{}) {
		object = w.object
	}
	w.at = w.at.Add(time.Second)
	c := domain.Comment{
		ID: uuid.NewString(), OrganizationID: org, CommenterID: w.author.ID, ContentType: object.ContentType,
		ObjectID: object.ObjectID, Text: "text", CreatedAt: w.at, UpdatedAt: w.at,
	}
	if tag != "" {
		c.Tag = &tag
	}
	if parent != "" {
		c.ParentID = &parent
		p := w.get(t, parent)
		c.PlaceUnder(&p)
	}
	must(t, w.db.Store.PutComments(context.Background(), []dynamo.FixtureComment{{Comment: c}}))
	return w.get(t, c.ID)
}

func (w *commentWorld) get(t *testing.T, id string) domain.Comment {
	t.Helper()
	c, err := w.db.Store.Comment(context.Background(), id)
	must(t, err)
	return c
}

func (w *commentWorld) count(t *testing.T, object domain.CommentObject, tag string) domain.CommentCount {
	t.Helper()
	var tp *string
	if tag != "" {
		tp = &tag
	}
	c, err := w.db.Store.CommentCount(context.Background(), object, tp)
	must(t, err)
	return c
}

func TestUpdateCommentConditions(t *testing.T) {
	ctx := context.Background()
	w := newCommentWorld(t)
	root := w.put(t, domain.CommentObject{}, w.org, "a", "")
	mid := w.put(t, domain.CommentObject{}, w.org, "", root.ID)
	leaf := w.put(t, domain.CommentObject{}, w.org, "a", "")
	theirs := domain.CommentObject{ContentType: "report", ObjectID: uuid.NewString()}
	w.put(t, theirs, uuid.NewString(), "", "")

	t.Run("a stale version is a conflict and changes nothing", func(t *testing.T) {
		next := leaf
		next.Text = "changed"
		stale := leaf
		stale.Version--
		err := w.db.Store.UpdateComment(ctx, domain.CommentUpdate{Old: stale, New: next})
		if domain.ErrorCode(err) != domain.ECONFLICT {
			t.Fatalf("got %v, want ECONFLICT", err)
		}
		if got := w.get(t, leaf.ID); got.Text != "text" || got.Version != leaf.Version {
			t.Fatalf("stored %+v", got)
		}
	})
	t.Run("an object of another organization is ErrObjectOwnedElsewhere", func(t *testing.T) {
		next := leaf
		next.ObjectID = theirs.ObjectID
		err := w.db.Store.UpdateComment(ctx, domain.CommentUpdate{Old: leaf, New: next})
		if !errors.Is(err, domain.ErrObjectOwnedElsewhere) {
			t.Fatalf("got %v", err)
		}
		if c := w.count(t, w.object, ""); c.N != 3 || c.OrganizationID != w.org {
			t.Fatalf("counter %+v after a refused move", c)
		}
	})
	t.Run("a new parent changed since it was read is a conflict", func(t *testing.T) {
		stale := w.get(t, mid.ID)
		stale.Version--
		next := leaf
		next.ParentID = &mid.ID
		err := w.db.Store.UpdateComment(ctx, domain.CommentUpdate{Old: leaf, New: next, NewParent: &stale})
		if domain.ErrorCode(err) != domain.ECONFLICT {
			t.Fatalf("got %v, want ECONFLICT", err)
		}
	})
	t.Run("a comment that gained a reply keeps its place", func(t *testing.T) {
		// The loader adds a reply without changing the comment's version: the move's own condition on
		// the reply count refuses it all the same, so the reply's stored ancestors stay right.
		mover := w.put(t, domain.CommentObject{}, w.org, "", "")
		w.put(t, domain.CommentObject{}, w.org, "", mover.ID)
		next := mover
		next.ParentID = &mid.ID
		parent := w.get(t, mid.ID)
		err := w.db.Store.UpdateComment(ctx, domain.CommentUpdate{Old: mover, New: next, NewParent: &parent})
		if domain.ErrorCode(err) != domain.ECONFLICT {
			t.Fatalf("got %v, want ECONFLICT", err)
		}
		if got := w.get(t, mover.ID); got.ParentID != nil || got.Depth != 0 || got.Replies != 1 {
			t.Fatalf("stored %+v", got)
		}
	})
	t.Run("a re-parented leaf takes its new parent's depth and ancestors", func(t *testing.T) {
		// leaf goes below root, then from root to below mid (root ← mid): root's replies go back down.
		next := w.get(t, leaf.ID)
		old := next
		next.ParentID = &root.ID
		r := w.get(t, root.ID)
		must(t, w.db.Store.UpdateComment(ctx, domain.CommentUpdate{Old: old, New: next, NewParent: &r}))
		if got := w.get(t, leaf.ID); got.Depth != 1 || !slices.Equal(got.Ancestors, []string{root.ID}) {
			t.Fatalf("below root: depth %d, ancestors %v", got.Depth, got.Ancestors)
		}
		old = w.get(t, leaf.ID)
		next = old
		next.ParentID = &mid.ID
		m := w.get(t, mid.ID)
		must(t, w.db.Store.UpdateComment(ctx, domain.CommentUpdate{Old: old, New: next, NewParent: &m}))
		if r, m := w.get(t, root.ID), w.get(t, mid.ID); r.Replies != 1 || m.Replies != 1 {
			t.Fatalf("replies: root %d, mid %d", r.Replies, m.Replies)
		}
		got := w.get(t, leaf.ID)
		if got.Depth != 2 || !slices.Equal(got.Ancestors, []string{root.ID, mid.ID}) {
			t.Fatalf("below mid: depth %d, ancestors %v", got.Depth, got.Ancestors)
		}
		old, next = got, got
		next.ParentID = nil
		must(t, w.db.Store.UpdateComment(ctx, domain.CommentUpdate{Old: old, New: next}))
		if got := w.get(t, leaf.ID); got.Depth != 0 || got.Ancestors != nil {
			t.Fatalf("top-level: depth %d, ancestors %v", got.Depth, got.Ancestors)
		}
	})
	t.Run("no reply goes below a full thread", func(t *testing.T) {
		old := w.get(t, leaf.ID)
		next := old
		next.ParentID = &mid.ID
		full := w.get(t, mid.ID)
		full.Depth = domain.MaxThreadDepth
		err := w.db.Store.UpdateComment(ctx, domain.CommentUpdate{Old: old, New: next, NewParent: &full})
		if err == nil || domain.ErrorCode(err) == domain.ECONFLICT {
			t.Fatalf("got %v, want a failure", err)
		}
		reply := domain.Comment{ID: uuid.NewString(), OrganizationID: w.org, CommenterID: w.author.ID,
			ContentType: w.object.ContentType, ObjectID: w.object.ObjectID, Text: "x", ParentID: &mid.ID}
		if err := w.db.Store.CreateComment(ctx, reply, &full, nil); err == nil || domain.ErrorCode(err) == domain.ECONFLICT {
			t.Fatalf("create: got %v, want a failure", err)
		}
		if got := w.get(t, leaf.ID); got.ParentID != nil || got.Version != old.Version {
			t.Fatalf("stored %+v", got)
		}
	})
	t.Run("a cleared tag leaves the tag index and its counter", func(t *testing.T) {
		old := w.get(t, leaf.ID)
		next := old
		next.Tag = nil
		must(t, w.db.Store.UpdateComment(ctx, domain.CommentUpdate{Old: old, New: next}))
		tag := "a"
		refs, err := w.db.Store.CommentIndex(ctx, domain.CommentIndexQuery{Object: w.object, Tag: &tag, Limit: 10})
		must(t, err)
		if len(refs) != 1 || refs[0].ID != root.ID || w.count(t, w.object, "a").N != 1 {
			t.Fatalf("tag index %+v, count %+v", refs, w.count(t, w.object, "a"))
		}
	})
}

func TestCommentIndexAndPage(t *testing.T) {
	ctx := context.Background()
	w := newCommentWorld(t)
	// 100 comments by 100 commenters: 200 keys, more than one BatchGetItem takes.
	var ids []string
	for range 100 {
		u := w.db.User(t, testkit.NewUser{FirstName: domain.Ptr("F")})
		c := w.put(t, domain.CommentObject{}, w.org, "", "")
		old := c
		c.CommenterID = u.ID
		// The commenter is not writable through the API; set it through the fixture path.
		must(t, w.db.Store.PutComments(ctx, []dynamo.FixtureComment{{Comment: c, Previous: &old}}))
		ids = append(ids, c.ID)
	}
	for _, tc := range []struct {
		desc  bool
		limit int
	}{{false, 100}, {true, 100}, {false, 7}, {true, 1}, {false, 1000}} {
		refs, err := w.db.Store.CommentIndex(ctx,
			domain.CommentIndexQuery{Object: w.object, Descending: tc.desc, Limit: tc.limit})
		must(t, err)
		if len(refs) != min(tc.limit, 100) {
			t.Fatalf("limit %d: %d refs", tc.limit, len(refs))
		}
		for i, r := range refs {
			want := ids[i]
			if tc.desc {
				want = ids[99-i]
			}
			if r.ID != want || r.CommenterID == "" || r.CreatedAt.IsZero() {
				t.Fatalf("ref %d: %+v, want %s", i, r, want)
			}
		}
	}
	refs, err := w.db.Store.CommentIndex(ctx, domain.CommentIndexQuery{Object: w.object, Limit: 100})
	must(t, err)
	comments, users, err := w.db.Store.CommentPage(ctx, domain.CommentPageRead{Object: w.object, Refs: refs})
	must(t, err)
	if len(comments) != 100 || len(users) != 100 {
		t.Fatalf("%d comments, %d commenters", len(comments), len(users))
	}
	for i, c := range comments {
		u, ok := users[c.CommenterID]
		if c.ID != ids[i] || !ok || u.Email == "" || domain.Deref(u.FirstName) != "F" || u.PasswordHash != "" {
			t.Fatalf("comment %d: %+v, commenter %+v", i, c, u)
		}
	}
	author, err := w.db.Store.Commenter(ctx, w.author.ID)
	must(t, err)
	if author.ID != w.author.ID || author.Email != w.author.Email || author.PasswordHash != "" {
		t.Fatalf("commenter %+v", author)
	}
	if _, err := w.db.Store.Commenter(ctx, uuid.NewString()); domain.ErrorCode(err) != domain.ENOTFOUND {
		t.Fatalf("missing commenter: %v", err)
	}
	if _, err := w.db.Store.Comment(ctx, uuid.NewString()); domain.ErrorCode(err) != domain.ENOTFOUND {
		t.Fatalf("missing comment: %v", err)
	}
	if c := w.count(t, domain.CommentObject{ContentType: "report", ObjectID: uuid.NewString()},
		"x"); c != (domain.CommentCount{}) {
		t.Fatalf("count of nothing %+v", c)
	}
}

// TestCommentPageReadsByKeyWhatGSI6DoesNotShow: refs GSI1 listed before a comment was deleted and
// another moved away are read in one Query of GSI6 and, for the two it no longer shows there, one
// BatchGetItem by key: the deleted one is left out, the moved one comes back where it is now (the
// handler leaves it out), and a known commenter is not read.
func TestCommentPageReadsByKeyWhatGSI6DoesNotShow(t *testing.T) {
	ctx := context.Background()
	w := newCommentWorld(t)
	var all []domain.Comment
	for range 5 {
		all = append(all, w.put(t, domain.CommentObject{}, w.org, "", ""))
	}
	refs, err := w.db.Store.CommentIndex(ctx, domain.CommentIndexQuery{Object: w.object, Limit: 5})
	must(t, err)
	must(t, w.db.Store.DeleteComment(ctx, all[1]))
	moved := all[3]
	moved.ObjectID = uuid.NewString()
	must(t, w.db.Store.UpdateComment(ctx, domain.CommentUpdate{Old: all[3], New: moved}))

	w.db.Calls.Reset()
	comments, users, err := w.db.Store.CommentPage(ctx,
		domain.CommentPageRead{Object: w.object, Refs: refs, Known: []domain.User{w.author}})
	must(t, err)
	var got []string
	for _, c := range comments {
		got = append(got, c.ID+" "+c.ObjectID)
	}
	want := []string{all[0].ID + " " + w.object.ObjectID, all[2].ID + " " + w.object.ObjectID,
		moved.ID + " " + moved.ObjectID, all[4].ID + " " + w.object.ObjectID}
	if !slices.Equal(got, want) {
		t.Fatalf("comments %q, want %q", got, want)
	}
	if len(users) != 1 || users[w.author.ID].Email != w.author.Email {
		t.Fatalf("commenters %+v, want the known author alone", users)
	}
	if ops := w.db.Calls.Ops(); !slices.Equal(ops, []string{"Query", "BatchGetItem"}) {
		t.Fatalf("calls %v, want the Query of GSI6, then one BatchGetItem", ops)
	}
	for _, c := range comments {
		if c.Text != "text" || c.CommenterID != w.author.ID || c.CreatedAt.IsZero() || c.UpdatedAt.IsZero() {
			t.Fatalf("comment %+v", c)
		}
	}
}

// TestCommentPageLeavesOutACommenterWhoIsGone: the one commenter of a page, read by GetItem, no longer
// exists: the page has its comment and no commenter for it, as a batch of several would.
func TestCommentPageLeavesOutACommenterWhoIsGone(t *testing.T) {
	ctx := context.Background()
	w := newCommentWorld(t)
	c := w.put(t, domain.CommentObject{}, w.org, "", "")
	old := c
	c.CommenterID = uuid.NewString()
	must(t, w.db.Store.PutComments(ctx, []dynamo.FixtureComment{{Comment: c, Previous: &old}}))
	refs, err := w.db.Store.CommentIndex(ctx, domain.CommentIndexQuery{Object: w.object, Limit: 20})
	must(t, err)
	w.db.Calls.Reset()
	comments, users, err := w.db.Store.CommentPage(ctx, domain.CommentPageRead{Object: w.object, Refs: refs})
	must(t, err)
	if len(comments) != 1 || comments[0].ID != c.ID || comments[0].CommenterID != c.CommenterID || len(users) != 0 {
		t.Fatalf("comments %+v, commenters %+v", comments, users)
	}
	if ops := w.db.Calls.Ops(); len(ops) != 2 || !slices.Contains(ops, "GetItem") || !slices.Contains(ops, "Query") {
		t.Fatalf("calls %v, want the Query of GSI6 beside one GetItem", ops)
	}
}
