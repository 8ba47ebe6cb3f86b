package comments

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/reportingplatform/api/shared/domain"
	"github.com/reportingplatform/api/shared/httpapi"
)

// listQuery is a list request's filters, ordering and page.
type listQuery struct {
	object     domain.CommentObject
	tag        *string
	descending bool
	page       httpapi.PageRequest
}

// readListQuery applies the filters as django-filter's form does (the last value of a repeated
// parameter; every failing filter reported at once) and the ordering as DRF's OrderingFilter does.
func readListQuery(q url.Values) (listQuery, error) {
	var errs domain.FieldErrors
	lq := listQuery{page: httpapi.Pagination.Read(q)}
	switch ct := httpapi.LastValue(q, "content_type"); {
	case ct == "":
		errs.Add("content_type", domain.MsgRequired)
	case !domain.ValidContentType(ct):
		errs.Add("content_type", fmt.Sprintf("Select a valid choice. %s is not one of the available choices.", ct))
	default:
		lq.object.ContentType = ct
	}
	// forms.UUIDField strips white space first (it is a CharField).
	if raw := strings.TrimSpace(httpapi.LastValue(q, "object_id")); raw == "" {
		errs.Add("object_id", domain.MsgRequired)
	} else if id, ok := httpapi.ParseUUID(raw); !ok {
		errs.Add("object_id", "Enter a valid UUID.")
	} else {
		lq.object.ObjectID = id
	}
	// A CharFilter ignores an empty value (after the form's strip); its form field refuses NUL.
	tag := strings.TrimSpace(httpapi.LastValue(q, "tag"))
	if strings.ContainsRune(tag, 0) {
		errs.Add("tag", "Null characters are not allowed.")
	}
	if err := errs.Err(); err != nil {
		return listQuery{}, err
	}
	if tag != "" {
		lq.tag = &tag
	}
	// OrderingFilter keeps the valid terms of a comma-separated list; the first decides, as the rest
	// only break ties that created_at and then id already break. Nothing valid: the default.
	for _, term := range strings.Split(httpapi.LastValue(q, "ordering"), ",") {
		if t := strings.TrimSpace(term); t == "created_at" || t == "-created_at" {
			lq.descending = t == "-created_at"
			break
		}
	}
	return lq, nil
}

// list is GET /api/v1/comments/. Round trips: the caller's session with the object's counter (count
// and owner), in parallel with a Query of the comment index for the entries up to the page when they
// are no more than a first page may read (speculativeRead; a deeper page's Query waits for both: one
// round trip more, and one more again for a page that deepPage finds by the counts by time); then the
// page's comments and commenters (page: one round trip). The count decides
// visibility (another organization's object lists as empty) and the page's validity before the page
// itself is read. A page asked for by a link's continuation (SPEC §6, §11) reads its size + 1 entries
// from the link's position instead, with the session when the continuation checks out with the key the
// process already has (continuationRead), so that a walk by the links costs its pages.
func (h *handler) list(w http.ResponseWriter, r *http.Request) error {
	lq, queryErr := readListQuery(r.URL.Query())
	if queryErr == nil && !lq.page.Valid() {
		_, queryErr = lq.page.Resolve(0)
	}
	// No comment has a tag longer than a tag may be, so such a filter reads nothing (its key could also
	// exceed DynamoDB's key size): the empty list.
	noTag := queryErr == nil && lq.tag != nil && utf8.RuneCountInString(*lq.tag) > domain.MaxCommentTag
	if queryErr != nil || noTag {
		if _, err := h.Auth.Authenticate(r); err != nil {
			return err
		}
		if queryErr != nil {
			return queryErr
		}
		page, err := lq.page.Resolve(0)
		if err != nil {
			return err
		}
		httpapi.WritePage(w, r, page, []commentJSON{})
		return nil
	}
	if _, err := httpapi.Bearer(r); err != nil {
		return err // nothing is read for a request without credentials
	}
	keys := h.lists.Read(r.Context())
	defer keys.Done()
	cont, continued := lq.page.Continuation(r, keys.Cached())
	early, speculative := speculativeRead(lq)
	if continued {
		early, speculative = continuationRead(lq, cont)
	}
	var pending <-chan indexResult
	if speculative {
		pending = h.readIndex(r.Context(), lq, early)
	}
	// collect waits for the speculative read even when it is not used, so that no call outlives the
	// request (Lambda freezes the process after the response). It is not cancelled: it was sent with
	// the count, so by the time the count answers it is paid for and nearly done.
	collect := func() indexResult {
		if pending == nil {
			return indexResult{}
		}
		res := <-pending
		pending = nil
		return res
	}
	defer collect()

	caller, read, err := h.authenticate(r, domain.CommentReads{Object: &lq.object, Tag: lq.tag}, nil)
	if err != nil {
		return err
	}
	key, err := keys.Wait()
	if err != nil {
		return err
	}
	if !continued && keys.Cached() == nil {
		// The key came with the session: a continuation is checked now and read after it.
		if cont, continued = lq.page.Continuation(r, key); continued {
			early, _ = continuationRead(lq, cont)
			speculative = false
		}
	}
	// What the page is read with, once its entries are known: the caller is a commenter known already,
	// and the counts say how far apart a tag's comments lie.
	shown := domain.CommentPageRead{Object: lq.object, Tag: lq.tag, Known: []domain.User{caller},
		N: read.Count.N, All: read.All}
	if !canRead(caller, read.Count.OrganizationID) {
		shown.N = 0
	}
	if continued {
		// The continuation's Query: gone out with the session, or sent now that the key checked it.
		return h.continuedPage(w, r, lq, shown, cont, key, func() indexResult {
			if speculative {
				return collect()
			}
			refs, err := h.store.CommentIndex(r.Context(), early.query(lq))
			return indexResult{refs, err}
		})
	}
	page, err := lq.page.Resolve(shown.N)
	if err != nil {
		return err
	}
	results, positions := []commentJSON{}, []string(nil)
	if page.Len() > 0 {
		var refs []domain.CommentRef
		if speculative {
			res := collect()
			refs, err = early.window(res.refs, page), res.err
		} else {
			refs, err = h.deepPage(r.Context(), lq, page, read.ByMonth)
		}
		if err != nil {
			return err
		}
		shown.Refs = refs
		if results, positions, err = h.page(r.Context(), shown); err != nil {
			return err
		}
	}
	httpapi.WritePage(w, r, page.Signed(key, positions), results)
	return nil
}

// continuedPage answers the page continuation c asks for, to be read as shown says (shown.N: what the
// list counts for the caller): the Size entries past c's position, which index decides (its Size + 1st
// entry says whether more follow). A list that counts nothing for the caller (empty, or another
// organization's) reads nothing: an empty page, never a 404, whatever page number the walk had reached.
func (h *handler) continuedPage(w http.ResponseWriter, r *http.Request, lq listQuery,
	shown domain.CommentPageRead, c httpapi.Continuation, key []byte, index func() indexResult) error {
	var refs []domain.CommentRef
	if shown.N > 0 {
		res := index()
		if res.err != nil {
			return res.err
		}
		refs = res.refs
	}
	more := len(refs) > lq.page.Size
	refs = refs[:min(len(refs), lq.page.Size)]
	if c.Before {
		refs = slices.Clone(refs)
		slices.Reverse(refs)
	}
	shown.Refs = refs
	results, positions, err := h.page(r.Context(), shown)
	if err != nil {
		return err
	}
	httpapi.WritePage(w, r, lq.page.Continued(c, shown.N, more).Signed(key, positions), results)
	return nil
}

type indexResult struct {
	refs []domain.CommentRef
	err  error
}

func (h *handler) readIndex(ctx context.Context, lq listQuery, plan indexRead) <-chan indexResult {
	ch := make(chan indexResult, 1)
	go func() {
		refs, err := h.store.CommentIndex(ctx, plan.query(lq))
		ch <- indexResult{refs, err}
	}()
	return ch
}

// page reads the comments and commenters q.Refs name (in one round trip; q.Known, the caller, a
// commenter of most pages they read, is known from the session) and renders them, with each one's
// position in the index (for the page's links). A comment that left the object or the tag since the
// (eventually consistent) index listed it is dropped rather than shown under the wrong object.
func (h *handler) page(ctx context.Context, q domain.CommentPageRead) ([]commentJSON, []string, error) {
	comments, users, err := h.store.CommentPage(ctx, q)
	if err != nil {
		return nil, nil, err
	}
	at := make(map[string]string, len(q.Refs))
	for _, ref := range q.Refs {
		at[ref.ID] = ref.Position
	}
	out := make([]commentJSON, 0, len(comments))
	positions := make([]string, 0, len(comments))
	for _, c := range comments {
		if c.ContentType != q.Object.ContentType || c.ObjectID != q.Object.ObjectID ||
			(q.Tag != nil && (c.Tag == nil || *c.Tag != *q.Tag)) {
			continue
		}
		u, found := users[c.CommenterID]
		out = append(out, readShape(c, u, found))
		positions = append(positions, at[c.ID])
	}
	return out, positions, nil
}

// indexRead is how a page is read from the index: the first limit entries in the requested order, or
// (reversed) the last ones, read from the other end; with from, only those past that position in the
// order read (at it too when included).
type indexRead struct {
	limit    int
	reversed bool
	from     string
	included bool
}

func (p indexRead) query(lq listQuery) domain.CommentIndexQuery {
	return domain.CommentIndexQuery{Object: lq.object, Tag: lq.tag, Descending: lq.descending != p.reversed,
		Limit: p.limit, From: p.from, FromIncluded: p.included}
}

// continuationRead is the read of the page continuation c asks for: its size + 1 entries past c's
// position, forwards for a next link, backwards for a previous one. It may go out with the session
// (SPEC §9: it costs what a first page costs) when the key that checked c was the process's before the
// request came, and it reads no more than a first page may: page_size 100 waits for the session.
func continuationRead(lq listQuery, c httpapi.Continuation) (indexRead, bool) {
	plan := indexRead{limit: lq.page.Size + 1, reversed: c.Before, from: c.Position, included: c.Included}
	return plan, plan.limit <= httpapi.Pagination.MaxPageSize
}

// speculativeRead is the read started before the count is known, which is also before the caller's
// token is verified: the entries up to a numbered page, or a page's worth from the far end for "last"
// (the last page is within it whatever the count), when that is no more than a first page may read
// (SPEC §9: a caller who is nobody costs at most a first page's keys). Page 1 at any size, page 5 at
// the default size and the last page go out with the session; a deeper page waits for it and the
// count, so that neither a forged token nor a page number past the end costs a read of the index.
func speculativeRead(lq listQuery) (indexRead, bool) {
	if lq.page.Last() {
		return indexRead{limit: lq.page.Size, reversed: true}, true
	}
	if needed, ok := lq.page.Needed(); ok && needed <= httpapi.Pagination.MaxPageSize {
		return indexRead{limit: needed}, true
	}
	return indexRead{}, false
}

// deepPage reads the entries of a page deeper than speculativeRead reads, once the count is known:
// where the counts by creation time (byMonth, read with the count) find it, reading at most one time
// bucket's entries besides the page's, whatever its depth (SPEC §11); else, when the buckets would
// save nothing or do not account for every comment, from whichever end of the list is nearer.
func (h *handler) deepPage(ctx context.Context, lq listQuery, page httpapi.Page,
	byMonth map[string]int) ([]domain.CommentRef, error) {
	from, to := page.Offset(), page.Offset()+page.Len()
	if lq.descending {
		from, to = page.Count-to, page.Count-from
	}
	refs, ok, err := h.store.CommentRange(ctx, domain.CommentRange{Object: lq.object, Tag: lq.tag,
		N: page.Count, ByMonth: byMonth, From: from, To: to})
	if err != nil || ok {
		if lq.descending {
			slices.Reverse(refs)
		}
		return refs, err
	}
	plan := countedRead(lq, page)
	refs, err = h.store.CommentIndex(ctx, plan.query(lq))
	return plan.window(refs, page), err
}

// countedRead is the read of a deep page once the count is known: from whichever end is nearer.
func countedRead(lq listQuery, page httpapi.Page) indexRead {
	fromStart, fromEnd := page.Offset()+page.Len(), page.Count-page.Offset()
	if fromEnd < fromStart {
		return indexRead{limit: fromEnd, reversed: true}
	}
	return indexRead{limit: fromStart}
}

// window picks the page's entries out of what plan read, in the requested order. Bounds are checked
// because the index may briefly hold one entry more or less than the (strongly consistent) count.
func (p indexRead) window(refs []domain.CommentRef, page httpapi.Page) []domain.CommentRef {
	from, to := page.Offset(), page.Offset()+page.Len()
	if p.reversed {
		from, to = page.Count-to, page.Count-from
	}
	from, to = min(max(from, 0), len(refs)), min(max(to, 0), len(refs))
	out := slices.Clone(refs[from:to])
	if p.reversed {
		slices.Reverse(out)
	}
	return out
}
