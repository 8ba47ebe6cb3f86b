package dynamo

import (
	"sort"

	"github.com/reportingplatform/api/shared/domain"
)

// sortMemberships gives a user's organizations a stable order (by name, then id): the map they are
// stored in has none.
func sortMemberships(ms []domain.Membership) {
	sort.Slice(ms, func(i, j int) bool {
		if ms[i].OrganizationName != ms[j].OrganizationName {
			return ms[i].OrganizationName < ms[j].OrganizationName
		}
		return ms[i].OrganizationID < ms[j].OrganizationID
	})
}
