package comments

import (
	"net/http"

	"github.com/reportingplatform/api/shared/domain"
	"github.com/reportingplatform/api/shared/httpapi"
)

// read is GET /api/v1/comments/{id}/: the caller's session with the comment, then its commenter
// unless that is the caller: two round trips, one for one's own comment. A caller who may not read the
// comment gets the 404 of a missing one, so ids do not leak.
func (h *handler) read(w http.ResponseWriter, r *http.Request) error {
	id, idErr := httpapi.PathID(r)
	caller, read, err := h.authenticate(r, domain.CommentReads{CommentID: id, CommentText: true}, idErr)
	if err != nil {
		return err
	}
	c := read.Comment
	if err := access(caller, c, canReadComment); err != nil {
		return err
	}
	commenter, found := caller, true
	if c.CommenterID != caller.ID {
		commenter, err = h.store.Commenter(r.Context(), c.CommenterID)
		found = err == nil
		if err != nil && domain.ErrorCode(err) != domain.ENOTFOUND {
			return err
		}
	}
	httpapi.WriteJSON(w, http.StatusOK, readShape(*c, commenter, found))
	return nil
}
