package httpapi

import (
	"net/http"
	"strings"

	"github.com/google/uuid"
	"github.com/reportingplatform/api/shared/domain"
)

// ParseUUID accepts the forms Python's uuid.UUID(hex) does, which is what Django and DRF apply to ids in
// paths, filters and bodies: optional "urn:" / "uuid:" prefixes and braces, hyphens anywhere, 32 hex
// digits. It returns the canonical lower-case form.
func ParseUUID(s string) (string, bool) {
	s = strings.ReplaceAll(strings.ReplaceAll(s, "urn:", ""), "uuid:", "")
	s = strings.ReplaceAll(strings.Trim(s, "{}"), "-", "")
	if len(s) != 32 {
		return "", false
	}
	id, err := uuid.Parse(s)
	if err != nil {
		return "", false
	}
	return id.String(), true
}

// PathID returns the {id} of the path as a canonical UUID. Anything else is DRF's 404 (SPEC §3): a
// lookup of a malformed UUID finds nothing, and the path names a resource, it is not input to validate.
func PathID(r *http.Request) (string, error) {
	id, ok := ParseUUID(r.PathValue("id"))
	if !ok {
		return "", domain.NotFound()
	}
	return id, nil
}
