package invitations

import (
	"net/http"

	"github.com/reportingplatform/api/shared/domain"
	"github.com/reportingplatform/api/shared/httpapi"
)

// destroy serves DELETE /api/v1/organization-invitations/{id}/ (SPEC §10): administrators of its
// organization and staff; others who may read it get 403, the rest 404. Two round trips.
func (h *handler) destroy(w http.ResponseWriter, r *http.Request) error {
	caller, inv, err := h.authenticate(r)
	if err != nil {
		return err
	}
	if inv == nil {
		return domain.NotFound()
	}
	if may := rightsOn(caller, *inv); !may.change {
		if may.read {
			return domain.Forbidden()
		}
		return domain.NotFound()
	}
	// A delete conditioned on a version that changed since (ECONFLICT) reads the invitation again: one
	// gone meanwhile is deleted; one the caller may no longer change is refused as it would be now.
	del := func(n int) error {
		if n > 1 {
			again, err := h.store.Invitation(r.Context(), inv.ID)
			if domain.ErrorCode(err) == domain.ENOTFOUND {
				return nil
			} else if err != nil {
				return err
			}
			if may := rightsOn(caller, again); may.read && !may.change {
				return domain.Forbidden()
			} else if !may.read {
				return domain.NotFound()
			}
			inv = &again
		}
		return h.store.DeleteInvitation(r.Context(), *inv)
	}
	if err := domain.RetryOnConflict(r.Context(), maxAttempts, del); err != nil {
		return err
	}
	httpapi.WriteNoContent(w)
	return nil
}
