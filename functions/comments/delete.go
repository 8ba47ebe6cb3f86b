package comments

import (
	"net/http"

	"github.com/reportingplatform/api/shared/domain"
	"github.com/reportingplatform/api/shared/httpapi"
)

// msgDeleteReplies refuses deleting a comment its replies hang from (SPEC §10).
const msgDeleteReplies = "A comment with replies cannot be deleted."

// destroy serves DELETE (SPEC §10): the commenter, administrators of the comment's organization and
// staff may delete; others who may read it get 403, the rest 404. Two round trips: the comment with the
// session, then one TransactWriteItems that also takes it off its counters and its parent's reply count.
func (h *handler) destroy(w http.ResponseWriter, r *http.Request) error {
	id, idErr := httpapi.PathID(r)
	caller, read, err := h.authenticate(r, domain.CommentReads{CommentID: id}, idErr)
	if err != nil {
		return err
	}
	c := read.Comment
	err = domain.RetryOnConflict(r.Context(), maxAttempts, func(n int) error {
		if n > 1 {
			fresh, err := h.reread(r, id, "comment delete", n)
			if err != nil {
				return err
			}
			c = fresh
		}
		if err := access(caller, c, canDelete); err != nil {
			return err
		}
		if c.Replies > 0 {
			return domain.FieldError(domain.NonFieldErrors, msgDeleteReplies)
		}
		return h.store.DeleteComment(r.Context(), *c)
	})
	if err != nil {
		return err
	}
	httpapi.WriteNoContent(w)
	return nil
}

// canDelete is SPEC §10's delete rule: the commenter, administrators of the comment's organization, staff.
func canDelete(u domain.User, c domain.Comment) bool {
	if canWrite(u, c) {
		return true
	}
	m, member := u.MembershipOf(c.OrganizationID)
	return member && m.Role == domain.RoleAdministrator
}
