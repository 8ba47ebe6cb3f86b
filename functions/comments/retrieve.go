package comments

import (
	"net/http"

	"github.com/reportingplatform/api/shared/domain"
	"github.com/reportingplatform/api/shared/httpapi"
)

// retrieve is GET /api/v1/comments/{id}/: authentication, the comment, its commenter; three round trips.
// A caller who may not read the comment gets the 404 of a missing one, so ids do not leak.
func (h *handler) retrieve(w http.ResponseWriter, r *http.Request) error {
	caller, err := h.auth.Authenticate(r)
	if err != nil {
		return err
	}
	id, err := httpapi.PathID(r)
	if err != nil {
		return err
	}
	c, err := h.store.Comment(r.Context(), id)
	if err != nil {
		return err
	}
	if !canRead(caller, c.OrganizationID) {
		return domain.NotFound()
	}
	commenter, err := h.store.Commenter(r.Context(), c.CommenterID)
	found := err == nil
	if err != nil && domain.ErrorCode(err) != domain.ENOTFOUND {
		return err
	}
	httpapi.WriteJSON(w, http.StatusOK, readShape(c, commenter, found))
	return nil
}
