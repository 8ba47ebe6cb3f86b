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

// CommentRange asks for the entries at positions [From, To) of an object's comments (only those with
// Tag when it is set) in creation order, ties by id, given what the counters said as a list read them:
// N comments, ByMonth by month of creation (CommentRead).
type CommentRange struct {
	Object   CommentObject
	Tag      *string
	N        int
	ByMonth  map[string]int
	From, To int
}

// CommentIndexQuery asks for the first Limit entries of an object's comments (only those with Tag when
// it is set) in creation order, ties by id, or in exactly the reverse order when Descending.
type CommentIndexQuery struct {
	Object     CommentObject
	Tag        *string
	Descending bool
	Limit      int
	// From, when set, is a CommentRef's Position: only the entries past it in the query's order are
	// read (a continuation's page, SPEC §6), and with FromIncluded the entry at it too.
	From         string
	FromIncluded bool
}

// CommentRef is one entry of an object's comment index: enough to read the comment and its commenter
// in one round trip, without reading every comment of the object.
type CommentRef struct {
	ID          string
	CommenterID string
	CreatedAt   time.Time
	// Position is the entry's place in the index's order, which the store alone interprets: a list
	// continues after (or before) it whether or not the comment still exists.
	Position string
}

// CommentPageRead names a page of an object's comments (only those with Tag when it is set) as the
// object's index listed them: Refs in the page's order.
type CommentPageRead struct {
	Object CommentObject
	Tag    *string
	Refs   []CommentRef
	// Known are commenters already read (the caller, from the session): they are not read again.
	Known []User
	// N and All are what the counters said as the list read them (CommentRead): the comments Refs are
	// listed from (the tag's) and every comment of the object. With a tag, they say how far apart its
	// comments lie among the others, which decides how the page is read; 0 when not known.
	N, All int
}

// CommentUpdate is one save of a comment. Old is the comment as read (its Version guards the write);
// New is what it becomes, its Depth and Ancestors set from its new parent. NewParent is the new parent
// as read when the parent changes (its Version guards that it is still where, and as deep as, it was
// checked to be).
type CommentUpdate struct {
	Old       Comment
	New       Comment
	NewParent *Comment
}

// CommentReads names what a comment request reads in its first round trip, together with the caller's
// session: the comment its path names, a parent its body names, an object's counter.
type CommentReads struct {
	CommentID string // "" for none
	// CommentText asks for the text of the comment CommentID names. Without it every comment is read
	// without its text (one projection serves the whole call), so a parent's text is never read.
	CommentText bool
	ParentID    string         // "" for none
	Object      *CommentObject // the object whose counter is wanted; nil for none
	Tag         *string        // with Object: the counter of this tag instead (its owner is still the object's)
	// OrganizationID names an organization whose existence is wanted (a new comment's organization_id,
	// which staff may set to any organization); "" for none.
	OrganizationID string
}

// CommentRead is what CommentReads found; what does not exist is nil or zero.
type CommentRead struct {
	Session Session
	Comment *Comment
	Parent  *Comment
	Count   CommentCount
	// ByMonth counts the comments Count counts by the month they were created in (UTC, "2006-01"),
	// for the store to find a deep page from (CommentRange). Comments written before these counts
	// were kept are missing from it: its sum is then less than Count.N.
	ByMonth map[string]int
	// All is every comment of the object, with a tag too (when Count counts those with the tag).
	All int
	// Organization is the organization CommentReads.OrganizationID names, nil when it does not exist.
	Organization *Organization
}

// CommentStore is what the comments function needs from storage.
type CommentStore interface {
	IdempotencyStore
	ContinuationKeyStore
	// Session reads a token and its user in one call, for a request that has nothing else to read first.
	Session(ctx context.Context, ref TokenRef) (Session, error)
	// ReadComments reads the session of ref and everything q names in one call, so that
	// authentication is never a round trip of its own. Comments are read strongly consistent, without
	// their text unless q.CommentText.
	ReadComments(ctx context.Context, ref TokenRef, q CommentReads) (CommentRead, error)

	// CommentIndex reads the first q.Limit entries of an object's comment index in q's order. It reads
	// index entries only, never the comments themselves.
	CommentIndex(ctx context.Context, q CommentIndexQuery) ([]CommentRef, error)
	// CommentRange reads the entries of a page deep in the list, finding where it starts from the
	// counts by creation time rather than by reading the entries before it: whatever the page's depth,
	// it reads no more entries than the page and those of one ten-minute bucket. ok is false, and
	// nothing is returned, when the caller had better read from the list's nearer end with
	// CommentIndex: the page is near enough to it for one Query, that read would be no larger, or the
	// counts by time do not account for every comment (written before they were kept).
	CommentRange(ctx context.Context, q CommentRange) (refs []CommentRef, ok bool, err error)
	// CommentPage reads the comments q.Refs name and their commenters, eventually consistent, in one
	// round trip (one more only when the comments are not where the index listed them: moved, deleted,
	// or not yet in every index). Comments are returned in q.Refs' order, with what their read shape
	// shows (not their replies, version or place in a thread); a ref whose comment no longer exists is
	// skipped. Commenters, q.Known among them, are keyed by user id and carry id, email and names only;
	// one that no longer exists is absent.
	CommentPage(ctx context.Context, q CommentPageRead) ([]Comment, map[string]User, error)

	// Comment reads one comment, strongly consistent. Returns ENOTFOUND when it does not exist.
	Comment(ctx context.Context, id string) (Comment, error)
	// Commenter reads the author of a comment (id, email and names only). Returns ENOTFOUND when the
	// user does not exist.
	Commenter(ctx context.Context, userID string) (User, error)
	// CommentWriteReads reads, in one call, what a save needs to check: the new parent without its text
	// (nil when parentID is empty or it does not exist) and, when moveTo is set, the counter of the
	// object the comment moves to.
	CommentWriteReads(ctx context.Context, parentID string, moveTo *CommentObject) (*Comment, CommentCount, error)
	// UpdateComment saves u in one atomic write: the comment, the counters of the objects and tags it
	// leaves and joins, and the reply counts of its old and new parent. Returns
	// ErrObjectOwnedElsewhere when the object it moves to belongs to another organization, and ECONFLICT when the
	// comment or its new parent changed since they were read, or the comment gained a reply while it
	// changes place (the caller reads again and retries).
	UpdateComment(ctx context.Context, u CommentUpdate) error
	// CreateComment stores a new comment c in one atomic write with the counters that count it (its
	// object's, claimed for c's organization, and its tag's) and, with parent set (as read: its Version
	// guards that it is still where it was checked to be), the parent's reply count. Returns
	// ErrObjectOwnedElsewhere when the object belongs to another organization, ECONFLICT when the parent
	// changed since it was read (the caller reads again and retries). With done set, the same write
	// completes its claim (ErrIdempotencyKeyLost when that claim is gone).
	CreateComment(ctx context.Context, c Comment, parent *Comment, done *IdempotencyDone) error
	// DeleteComment removes c (as read: its Version guards that it gained no reply meanwhile) in one
	// atomic write with the counters that counted it and its parent's reply count. Returns ECONFLICT
	// when the comment changed or vanished since it was read.
	DeleteComment(ctx context.Context, c Comment) error
}
