package comments

import (
	"errors"
	"net/http"

	"github.com/google/uuid"
	"github.com/reportingplatform/api/shared/domain"
	"github.com/reportingplatform/api/shared/httpapi"
)

// create serves POST (SPEC §10): two round trips, as a save. The body names everything the checks need
// (the parent, the object's counter, the organization), so they are read with the caller's session;
// then one TransactWriteItems writes the comment with its counters. An Idempotency-Key (SPEC §9) is
// claimed in one more call between the two, and completed by the transaction.
//
// The object's organization is the one its comments carry; organization_id is needed only for an object
// without comments and must then be one the caller is a member of (staff: any that exists). Callers who
// are not members of the object's organization learn nothing about it: the object "does not exist".
func (h *handler) create(w http.ResponseWriter, r *http.Request) (err error) {
	change, body, bodyErr := readChangeBody(r, create)
	var q domain.CommentReads
	if bodyErr == nil {
		q = domain.CommentReads{
			ParentID:       domain.Deref(change.parent.value),
			Object:         &domain.CommentObject{ContentType: *change.contentType, ObjectID: *change.objectID},
			OrganizationID: domain.Deref(change.organizationID),
		}
	}
	caller, read, err := h.authenticate(r, q, nil)
	if err != nil {
		return err
	}
	if bodyErr != nil {
		return bodyErr
	}
	key, err := h.Keys.Claim(r, caller.ID, body)
	if err != nil {
		return err
	}
	if id, status, ok := key.Replay(); ok {
		return h.replayCreate(w, r, caller, id, status)
	}
	defer key.Settle(r.Context(), &err)
	now := h.Clock.Now()
	c := domain.Comment{
		ID: uuid.NewString(), CommenterID: caller.ID, ContentType: *change.contentType, ObjectID: *change.objectID,
		Tag: change.tag.value, Text: *change.text, ParentID: change.parent.value, CreatedAt: now, UpdatedAt: now,
	}
	parent, count := read.Parent, read.Count
	err = domain.RetryOnConflict(r.Context(), maxAttempts, func(n int) error {
		if n > 1 {
			httpapi.Logger(r.Context()).Info("comment create lost a race; retrying", "attempt", n)
			if parent, count, err = h.store.CommentWriteReads(r.Context(), q.ParentID, q.Object); err != nil {
				return err
			}
		}
		if c.OrganizationID, err = owner(caller, change, count, read.Organization, parent); err != nil {
			return err
		}
		err := h.store.CreateComment(r.Context(), c, parent, key.Done(c.ID))
		if errors.Is(err, domain.ErrObjectOwnedElsewhere) {
			// Another organization's first comment landed since the read: to this caller the object
			// is one it cannot see.
			return domain.FieldError("object_id", domain.MsgDoesNotExist(c.ObjectID))
		}
		return err
	})
	if err != nil {
		return err
	}
	httpapi.WriteJSON(w, http.StatusCreated, writeShape(c))
	return nil
}

// replayCreate answers a create repeated with its Idempotency-Key (SPEC §9): the comment it created, as
// it is now, with the status the create was answered; a comment deleted since, or one the caller may
// no longer read, is not found.
func (h *handler) replayCreate(w http.ResponseWriter, r *http.Request, caller domain.User, id string,
	status int) error {
	c, err := h.store.Comment(r.Context(), id)
	if err != nil {
		return err
	}
	if err := access(caller, &c, canReadComment); err != nil {
		return err
	}
	httpapi.WriteJSON(w, status, writeShape(c))
	return nil
}

// owner decides the new comment's organization and checks what the body refers to: the object's
// organization (from its counter, or organization_id for an object without comments), the caller's
// membership of it, and the parent. A caller who is not a member of the object's organization (staff
// excepted) learns that the object does not exist and nothing else, whatever organization_id and parent
// say: an organization_id refused beside it would tell which organization owns the object (SPEC §10).
// Otherwise every failing field is reported at once. A parent whose thread is full (domain.MaxThreadDepth)
// takes no reply: its stored depth tells, read with it.
func owner(caller domain.User, change *commentChange, count domain.CommentCount, org *domain.Organization,
	parent *domain.Comment) (string, error) {
	var errs domain.FieldErrors
	sentOrg := domain.Deref(change.organizationID)
	orgID := count.OrganizationID
	if count.N == 0 {
		orgID = "" // an object whose comments are all gone belongs to whoever comments first
	}
	switch {
	case orgID != "" && !canRead(caller, orgID):
		return "", domain.FieldError("object_id", domain.MsgDoesNotExist(*change.objectID))
	case orgID != "":
		if sentOrg != "" && sentOrg != orgID {
			errs.Add("organization_id", domain.MsgDoesNotExist(sentOrg))
		}
	case sentOrg == "":
		errs.Add("organization_id", domain.MsgRequired)
	case !canRead(caller, sentOrg) || (caller.Privileged() && org == nil):
		errs.Add("organization_id", domain.MsgDoesNotExist(sentOrg))
	default:
		orgID = sentOrg
	}
	if pid := domain.Deref(change.parent.value); pid != "" {
		switch {
		case parent == nil || parent.ContentType != *change.contentType || parent.ObjectID != *change.objectID:
			errs.Add("parent", domain.MsgDoesNotExist(pid))
		case parent.FullThread():
			errs.Add("parent", msgTooDeep)
		}
	}
	return orgID, errs.Err()
}
