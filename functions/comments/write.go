package comments

import (
	"net/http"
	"time"

	"github.com/reportingplatform/api/shared/domain"
	"github.com/reportingplatform/api/shared/httpapi"
)

// Limits of the seed and SPEC §6.
const (
	maxContentType = 25
	maxTag         = 50
	maxText        = 100_000
)

// maxAttempts bounds how often a save is read, checked and written again after losing a race (the
// comment, its new parent or an ancestor changed in between). Each attempt starts from fresh reads, so
// a retry also re-checks every rule.
const maxAttempts = 3

// replace is PUT: content_type and object_id are required; like PATCH, fields not sent keep their
// values (DRF ModelSerializer semantics, which SPEC §6 keeps for PUT).
func (h *handler) replace(w http.ResponseWriter, r *http.Request) error { return h.save(w, r, true) }

// partialUpdate is PATCH: every field optional.
func (h *handler) partialUpdate(w http.ResponseWriter, r *http.Request) error {
	return h.save(w, r, false)
}

// save runs PUT and PATCH in DRF's order of checks: authentication (401), who may write (403, or 404
// when the caller may not even read the comment), the body (413/415/400), then the rules that need
// the store (400). Round trips: authentication, the comment, one BatchGetItem of the new parent and the
// target object's counter (only when the parent or the object changes), and one TransactWriteItems:
// four. Only re-parenting a comment that has replies walks the new parent's ancestors, one GetItem each.
func (h *handler) save(w http.ResponseWriter, r *http.Request, put bool) error {
	caller, err := h.auth.Authenticate(r)
	if err != nil {
		return err
	}
	id, err := httpapi.PathID(r)
	if err != nil {
		return err
	}
	var change *commentChange
	var saved domain.Comment
	err = domain.RetryOnConflict(r.Context(), maxAttempts, func(n int) error {
		if n > 1 {
			httpapi.Logger(r.Context()).Info("comment save lost a race; retrying", "comment_id", id, "attempt", n)
		}
		saved, err = h.saveOnce(r, caller, id, put, &change)
		return err
	})
	if err != nil {
		return err
	}
	httpapi.WriteJSON(w, http.StatusOK, writeShape(saved))
	return nil
}

// saveOnce is one attempt: read the comment, check who may write it, read the body (first attempt
// only), check the rules and write. ECONFLICT means another save got in between.
func (h *handler) saveOnce(r *http.Request, caller domain.User, id string, put bool, change **commentChange) (domain.Comment, error) {
	old, err := h.store.Comment(r.Context(), id)
	if err != nil {
		return domain.Comment{}, err
	}
	if !canWrite(caller, old) {
		if canRead(caller, old.OrganizationID) {
			return domain.Comment{}, domain.Forbidden()
		}
		return domain.Comment{}, domain.NotFound()
	}
	if *change == nil {
		if *change, err = readChange(r, put); err != nil {
			return domain.Comment{}, err
		}
	}
	next := (*change).apply(old, h.now())
	update, err := h.check(r, old, next, (*change).parent.sent)
	if err != nil {
		return domain.Comment{}, err
	}
	return next, h.store.UpdateComment(r.Context(), update)
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
}

// readChange decodes and checks the body field by field, reporting every failing field at once.
//
//   - content_type: a string (numbers as their text) of at most 25 characters, then exactly one of
//     the three choices, untrimmed, as DRF's ChoiceField compares it: `"X" is not a valid choice.`
//     (blank included, as ChoiceField has it; so is a value of any other type, X being Python's str()).
//   - tag: null, or a string of at most 50 characters after DRF's trim. Blank is refused: a blank tag
//     could never be listed by the tag filter, which ignores an empty value.
//   - text: a non-blank string of at most 100,000 characters after the trim; not null.
//   - object_id and parent: UUIDs; parent may be null.
func readChange(r *http.Request, put bool) (*commentChange, error) {
	body, err := httpapi.DecodeObject(r)
	if err != nil {
		return nil, err
	}
	var c commentChange
	if ct, ok := body.String("content_type", httpapi.Text{Required: put, AllowBlank: true, NoTrim: true, MaxLength: maxContentType, Choice: true}); ok {
		if domain.ValidContentType(*ct) {
			c.contentType = ct
		} else {
			body.Fail("content_type", domain.MsgChoice(*ct))
		}
	}
	c.objectID, _ = body.UUID("object_id", put, false)
	if tag, ok := body.String("tag", httpapi.Text{AllowNull: true, MaxLength: maxTag}); ok {
		c.tag = optional{sent: true, value: tag}
	}
	c.text, _ = body.String("text", httpapi.Text{MaxLength: maxText})
	if parent, ok := body.UUID("parent", false, true); ok {
		c.parent = optional{sent: true, value: parent}
	}
	if err := body.Err(); err != nil {
		return nil, err
	}
	return &c, nil
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
	next.UpdatedAt = now.UTC().Truncate(time.Microsecond)
	return next
}
