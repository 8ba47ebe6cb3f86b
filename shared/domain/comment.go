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
//
// Depth and Ancestors place it in its thread without a walk: Depth is 0 for a top-level comment and its
// parent's plus one for a reply; Ancestors are the ids from the thread's root down to its parent (Depth
// of them). Both are set from the parent when the comment is written; they never go stale, because only a
// comment without replies may change its parent or object, and a comment with replies is never deleted.
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
	Depth          int
	Ancestors      []string
}

// PlaceUnder sets c's Depth and Ancestors for parent p (nil: c is top-level).
func (c *Comment) PlaceUnder(p *Comment) {
	if p == nil {
		c.Depth, c.Ancestors = 0, nil
		return
	}
	c.Depth = p.Depth + 1
	c.Ancestors = append(append(make([]string, 0, len(p.Ancestors)+1), p.Ancestors...), p.ID)
}

// DescendsFrom reports whether the comment id is one of c's ancestors (c is one of its replies, at any
// depth).
func (c Comment) DescendsFrom(id string) bool {
	for _, a := range c.Ancestors {
		if a == id {
			return true
		}
	}
	return false
}

// FullThread reports whether c is as deep as a thread may go: it can take no reply.
func (c Comment) FullThread() bool { return c.Depth >= MaxThreadDepth }
