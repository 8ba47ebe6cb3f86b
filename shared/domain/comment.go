package domain

import "time"

// ContentTypes are the kinds of object a comment can be on (SPEC §6).
var ContentTypes = []string{"datasetconfiguration", "report", "report_attitude"}

// ValidContentType reports whether ct is one of ContentTypes.
func ValidContentType(ct string) bool {
	for _, c := range ContentTypes {
		if c == ct {
			return true
		}
	}
	return false
}

// Comment is a comment on one object (ContentType + ObjectID). Every comment of an object carries the
// object's organization. Replies counts the comments whose parent this is, so that "a comment with
// replies cannot be moved" needs no query. Version grows with every save; writes are conditional on it.
type Comment struct {
	ID             string
	OrganizationID string
	CommenterID    string
	ContentType    string
	ObjectID       string
	Tag            *string
	Text           string
	ParentID       *string
	CreatedAt      time.Time
	UpdatedAt      time.Time
	Replies        int
	Version        int64
}
