package comments

import (
	"errors"
	"net/http"
	"time"

	"github.com/reportingplatform/api/shared/domain"
	"github.com/reportingplatform/api/shared/httpapi"
)

// maxAttempts bounds how often a save is read, checked and written again after losing a race (the
// comment, its new parent or an ancestor changed in between). Each attempt starts from fresh reads, so
// a retry also re-checks every rule.
const maxAttempts = 3

// replace is PUT: content_type and object_id are required; like PATCH, fields not sent keep their
// values (DRF ModelSerializer semantics, which SPEC §6 keeps for PUT).
func (h *handler) replace(w http.ResponseWriter, r *http.Request) error { return h.save(w, r, put) }

// partialUpdate is PATCH: every field optional.
func (h *handler) partialUpdate(w http.ResponseWriter, r *http.Request) error {
	return h.save(w, r, patch)
}

// save runs PUT and PATCH in DRF's order of checks: authentication (401), who may write (403, or 404
// when the caller may not even read the comment), the body (413/415/400), then the rules that need
// the store (400). The body is decoded first, though, so that what it names is read with the caller's
// session and the comment: two round trips, that read and one TransactWriteItems. That read has one
// projection for all its items, and no comment's text but the comment's own may be read: a body that
// sends no text (the answer shows the stored one) reads the comment with its text and the new parent
// once the comment is known, without text (three). So does a PATCH that moves the comment without
// naming both content_type and object_id, for the target's counter. No save walks a thread.
func (h *handler) save(w http.ResponseWriter, r *http.Request, mode writeMode) error {
	id, idErr := httpapi.PathID(r)
	change, bodyErr := readChange(r, mode)
	q := domain.CommentReads{CommentID: id, CommentText: true}
	if bodyErr == nil {
		if change.text != nil {
			q.CommentText, q.ParentID = false, domain.Deref(change.parent.value)
		}
		if change.contentType != nil && change.objectID != nil {
			q.Object = &domain.CommentObject{ContentType: *change.contentType, ObjectID: *change.objectID}
		}
	}
	caller, read, err := h.authenticate(r, q, idErr)
	if err != nil {
		return err
	}
	old, pre := read.Comment, &prefetched{parentID: q.ParentID, parent: read.Parent, object: q.Object, count: read.Count}
	var saved domain.Comment
	err = domain.RetryOnConflict(r.Context(), maxAttempts, func(n int) error {
		if n > 1 {
			fresh, err := h.reread(r, id, "comment save", n)
			if err != nil {
				return err
			}
			old, pre = fresh, nil
		}
		if err := access(caller, old, canWrite); err != nil {
			return err
		}
		if bodyErr != nil {
			return bodyErr
		}
		next := change.apply(*old, h.Clock.Now())
		update, err := h.check(r.Context(), *old, next, change.parent.sent, pre)
		if err != nil {
			return err
		}
		saved = next
		if err := h.store.UpdateComment(r.Context(), update); errors.Is(err, domain.ErrObjectOwnedElsewhere) {
			return domain.FieldError("object_id", domain.MsgDoesNotExist(next.ObjectID))
		} else if err != nil {
			return err
		}
		return nil
	})
	if err != nil {
		return err
	}
	httpapi.WriteJSON(w, http.StatusOK, writeShape(saved))
	return nil
}

// optional is a body field that may be absent, null or a value.
type optional struct {
	sent  bool
	value *string
}

// commentChange is a valid write body: the fields sent, nothing else.
type commentChange struct {
	contentType, objectID, text *string // nil: not sent
	tag, parent                 optional
	organizationID              *string // POST only
}

// writeMode is which write a body is for: what it requires and reads.
type writeMode int

const (
	patch  writeMode = iota // every field optional
	put                     // content_type and object_id required
	create                  // content_type, object_id and text required; organization_id read (SPEC §10)
)

// readChange decodes and checks the body field by field, reporting every failing field at once.
//
//   - content_type: a string (numbers as their text) of at most 25 characters, then exactly one of
//     the three choices, untrimmed, as DRF's ChoiceField compares it: `"X" is not a valid choice.`
//     (blank included, as ChoiceField has it; so is a value of any other type, X being Python's str()).
//   - tag: null, or a string of at most 50 characters after DRF's trim. Blank is refused: a blank tag
//     could never be listed by the tag filter, which ignores an empty value.
//   - text: a non-blank string of at most 100,000 characters after the trim; not null.
//   - object_id and parent: UUIDs as sent (SPEC §1: white space around one makes it none); parent may
//     be null, and "" is null, as DRF's relational fields take it.
func readChange(r *http.Request, mode writeMode) (*commentChange, error) {
	c, _, err := readChangeBody(r, mode)
	return c, err
}

// readChangeBody is readChange that also returns the body as read, for a create's Idempotency-Key.
func readChangeBody(r *http.Request, mode writeMode) (*commentChange, *httpapi.Body, error) {
	body, err := httpapi.DecodeObject(r)
	if err != nil {
		return nil, nil, err
	}
	var c commentChange
	if ct, ok := body.String("content_type",
		httpapi.Text{Required: mode != patch, AllowBlank: true, NoTrim: true, MaxLength: domain.MaxCommentType,
			Choice: true}); ok {
		if domain.ValidContentType(*ct) {
			c.contentType = ct
		} else {
			body.Fail("content_type", domain.MsgChoice(*ct))
		}
	}
	c.objectID, _ = body.UUID("object_id", mode != patch, false)
	if tag, ok := body.String("tag", httpapi.Text{AllowNull: true, MaxLength: domain.MaxCommentTag}); ok {
		c.tag = optional{sent: true, value: tag}
	}
	c.text, _ = body.String("text", httpapi.Text{Required: mode == create, MaxLength: domain.MaxCommentText})
	if parent, ok := body.Reference("parent", false, true); ok {
		c.parent = optional{sent: true, value: parent}
	}
	if mode == create {
		// Required only for an object without comments yet, which the body alone cannot tell.
		c.organizationID, _ = body.Reference("organization_id", false, false)
	}
	if err := body.Err(); err != nil {
		return nil, body, err
	}
	return &c, body, nil
}

// apply returns old with the change made and updated_at renewed; id, organization, commenter,
// created_at and the reply count never change here.
func (c *commentChange) apply(old domain.Comment, now time.Time) domain.Comment {
	next := old
	if c.contentType != nil {
		next.ContentType = *c.contentType
	}
	if c.objectID != nil {
		next.ObjectID = *c.objectID
	}
	if c.text != nil {
		next.Text = *c.text
	}
	if c.tag.sent {
		next.Tag = c.tag.value
	}
	if c.parent.sent {
		next.ParentID = c.parent.value
	}
	next.UpdatedAt = now
	return next
}
