// Package comments serves the comment operations of SPEC §3, §6 and §10: the paginated list of an
// object's comments, creating one, and reading, replacing, partially updating and deleting one comment.
// Each operation has a budget of sequential DynamoDB round trips, authentication included (list 2, 3
// for a page deeper than a first page's entries, 2 for a page a link's continuation names; read 2, 1 for one's own comment; PUT/PATCH 2, 3
// naming a parent but no text; POST 2, 3 with an Idempotency-Key; DELETE 2), which the tests hold it
// to: list.go, read.go, update.go, create.go and delete.go say how each stays within it. Authentication is never a round trip of its
// own: the caller's session is read in the same call as the first data (authenticate).
package comments

import (
	"context"
	"log/slog"
	"net/http"
	"time"

	"github.com/reportingplatform/api/shared/domain"
	"github.com/reportingplatform/api/shared/httpapi"
)

// The seed's paths; the router also serves them without the trailing slash.
const (
	ListPath = "/api/v1/comments/"
	ItemPath = "/api/v1/comments/{id}/"
)

type handler struct {
	store domain.CommentStore
	lists *httpapi.ContinuationKeys
	httpapi.Kit
}

// New returns the comments function's HTTP handler. now gives updated_at and token expiry checks.
func New(store domain.CommentStore, log *slog.Logger, now func() time.Time) *httpapi.Router {
	kit, rt := httpapi.NewKit(store, log, now, ListPath)
	h := &handler{store: store, lists: httpapi.NewContinuationKeys(store), Kit: kit}
	rt.Handle(http.MethodGet, ListPath, h.list)
	rt.Handle(http.MethodPost, ListPath, h.create)
	rt.Handle(http.MethodGet, ItemPath, h.read)
	rt.Handle(http.MethodPut, ItemPath, h.replace)
	rt.Handle(http.MethodPatch, ItemPath, h.partialUpdate)
	rt.Handle(http.MethodDelete, ItemPath, h.destroy)
	return rt
}

// canRead is SPEC §3's read rule: staff, and members of the organization that owns the comments.
func canRead(u domain.User, orgID string) bool {
	if u.Privileged() {
		return true
	}
	_, member := u.MembershipOf(orgID)
	return orgID != "" && member
}

// access answers a caller asking for c (nil: no such comment) in DRF's order: nil when allowed lets the
// caller, 403 when the caller may at least read it, and otherwise the 404 of a missing comment, so that
// ids do not leak.
func access(caller domain.User, c *domain.Comment, allowed func(domain.User, domain.Comment) bool) error {
	switch {
	case c == nil:
		return domain.NotFound()
	case allowed(caller, *c):
		return nil
	case canRead(caller, c.OrganizationID):
		return domain.Forbidden()
	}
	return domain.NotFound()
}

// canReadComment is canRead for access.
func canReadComment(u domain.User, c domain.Comment) bool { return canRead(u, c.OrganizationID) }

// reread reads the comment again for an attempt after one that lost a race, when what was read with the
// session may be stale; what names the write in the log.
func (h *handler) reread(r *http.Request, id, what string, attempt int) (*domain.Comment, error) {
	httpapi.Logger(r.Context()).Info(what+" lost a race; retrying", "comment_id", id, "attempt", attempt)
	c, err := h.store.Comment(r.Context(), id)
	return &c, err
}

// canWrite is SPEC §3's write rule: staff and the commenter, whether or not still a member.
func canWrite(u domain.User, c domain.Comment) bool { return u.Privileged() || c.CommenterID == u.ID }

// commenterJSON is SPEC §6's commenter: names are "" rather than null, full_name is Django's
// get_full_name.
type commenterJSON struct {
	ID        string `json:"id"`
	FullName  string `json:"full_name"`
	Email     string `json:"email"`
	FirstName string `json:"first_name"`
	LastName  string `json:"last_name"`
}

// commentJSON is the seed's read shape, in the seed's field order.
type commentJSON struct {
	ID          string        `json:"id"`
	ContentType string        `json:"content_type"`
	Commenter   commenterJSON `json:"commenter"`
	CreatedAt   string        `json:"created_at"`
	UpdatedAt   string        `json:"updated_at"`
	placedJSON
}

// placedJSON is where a comment stands and what it says: the fields both shapes end with, in the seed's
// order (embedded, they stay in place).
type placedJSON struct {
	ObjectID string  `json:"object_id"`
	Tag      *string `json:"tag"`
	Text     string  `json:"text"`
	Parent   *string `json:"parent"`
}

func placed(c domain.Comment) placedJSON {
	return placedJSON{ObjectID: c.ObjectID, Tag: c.Tag, Text: c.Text, Parent: c.ParentID}
}

// readShape renders c with its commenter. A commenter that cannot be found (users are never deleted, so
// only broken data gets here) is shown by id alone rather than failing the whole page.
func readShape(c domain.Comment, commenter domain.User, found bool) commentJSON {
	if !found {
		commenter = domain.User{ID: c.CommenterID}
	}
	return commentJSON{
		ID: c.ID, ContentType: c.ContentType,
		Commenter: commenterJSON{
			ID: commenter.ID, FullName: commenter.FullName(), Email: commenter.Email,
			FirstName: domain.Deref(commenter.FirstName), LastName: domain.Deref(commenter.LastName),
		},
		CreatedAt: domain.FormatTime(c.CreatedAt), UpdatedAt: domain.FormatTime(c.UpdatedAt),
		placedJSON: placed(c),
	}
}

// writtenJSON is the seed's write shape: what PUT and PATCH return, exactly these six fields.
type writtenJSON struct {
	ID          string `json:"id"`
	ContentType string `json:"content_type"`
	placedJSON
}

func writeShape(c domain.Comment) writtenJSON {
	return writtenJSON{ID: c.ID, ContentType: c.ContentType, placedJSON: placed(c)}
}

// authenticate reads the caller's session together with q in one call, and decides authentication
// first (SPEC §2: 401 before anything else). With idErr (the path's id is no UUID) nothing but the
// session is read, and idErr follows authentication.
func (h *handler) authenticate(r *http.Request, q domain.CommentReads,
	idErr error) (domain.User, domain.CommentRead, error) {
	return httpapi.AuthenticateWith(h.Auth, r, idErr,
		func(ctx context.Context, ref domain.TokenRef) (domain.Session, domain.CommentRead, error) {
			read, err := h.store.ReadComments(ctx, ref, q)
			return read.Session, read, err
		})
}
