package domain

import (
	"context"
	"time"
)

// CommentObject names a commented object: a content type and an object id. Every comment of one object
// belongs to the organization that owns the object (SPEC §6).
type CommentObject struct {
	ContentType string
	ObjectID    string
}

// CommentCount is what an object's counters say: how many comments it has (or how many with one tag)
// and which organization owns it ("" when none does yet). It is kept as comments are written, so a list
// knows its size and who may see it without reading the comments.
type CommentCount struct {
	N              int
	OrganizationID string
}

// CommentIndexQuery asks for the first Limit entries of an object's comments (only those with Tag when
// it is set) in creation order, ties by id, or in exactly the reverse order when Descending.
type CommentIndexQuery struct {
	Object     CommentObject
	Tag        *string
	Descending bool
	Limit      int
}

// CommentRef is one entry of an object's comment index: enough to read the comment and its commenter
// in one batch, without reading every comment of the object.
type CommentRef struct {
	ID          string
	CommenterID string
	CreatedAt   time.Time
}

// CommentUpdate is one save of a comment. Old is the comment as read (its Version guards the write);
// New is what it becomes. NewParent is the new parent as read when the parent changes (its Version
// guards that it is still where it was checked to be), and Ancestors are the new parent's ancestors as
// read by the cycle check (each guarded by its Version), empty when no check was needed.
type CommentUpdate struct {
	Old       Comment
	New       Comment
	NewParent *Comment
	Ancestors []Comment
}

// CommentStore is what the comments function needs from storage. Authentication is part of it because
// every comment operation authenticates first.
type CommentStore interface {
	// TokenUser reads a token and its user in one call (see UserStore.TokenUser).
	TokenUser(ctx context.Context, userID, tokenHash string) (User, Token, error)

	// CommentCount reads an object's counter (with tag: the counter of that tag) and its owner in one
	// call. An object without comments has count 0 and no owner; that is not an error.
	CommentCount(ctx context.Context, object CommentObject, tag *string) (CommentCount, error)
	// CommentIndex reads the first q.Limit entries of an object's comment index in q's order. It reads
	// index entries only, never the comments themselves.
	CommentIndex(ctx context.Context, q CommentIndexQuery) ([]CommentRef, error)
	// CommentPage reads the comments refs name and their commenters in one round trip. Comments are
	// returned in refs' order; a ref whose comment no longer exists is skipped. Commenters are keyed
	// by user id and carry id, email and names only.
	CommentPage(ctx context.Context, refs []CommentRef) ([]Comment, map[string]User, error)

	// Comment reads one comment, strongly consistent. Returns ENOTFOUND when it does not exist.
	Comment(ctx context.Context, id string) (Comment, error)
	// Commenter reads the author of a comment (id, email and names only). Returns ENOTFOUND when the
	// user does not exist.
	Commenter(ctx context.Context, userID string) (User, error)
	// CommentWriteReads reads, in one call, what a save needs to check: the new parent (nil when
	// parentID is empty or it does not exist) and, when moveTo is set, the counter of the object the
	// comment moves to.
	CommentWriteReads(ctx context.Context, parentID string, moveTo *CommentObject) (*Comment, CommentCount, error)
	// UpdateComment saves u in one atomic write: the comment, the counters of the objects and tags it
	// leaves and joins, and the reply counts of its old and new parent. Returns EINVALID under
	// "object_id" when the object it moves to belongs to another organization, and ECONFLICT when the
	// comment, its new parent or one of the new parent's ancestors changed since they were read (the
	// caller reads again and retries).
	UpdateComment(ctx context.Context, u CommentUpdate) error
}
