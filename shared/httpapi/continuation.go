package httpapi

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"

	"github.com/reportingplatform/api/shared/domain"
)

// Continuations (SPEC §6, §11): the next and previous links of a page carry one parameter more than
// DRF's, with which the linked page starts just after the last result shown (or ends just before the
// first) instead of counting results from the list's start, so a client that walks a list by its links
// reads each entry about once, and sees every entry present throughout the walk exactly once.
//
// A continuation is opaque to clients: a version, the direction, the page number it is for and the
// position (the list's own sort key of an entry, which the entry need not still exist for), followed by
// a truncated HMAC-SHA256 over those and the list it belongs to (the request path and every query
// parameter but page and cursor, canonical), base64url. The list is not carried, only signed: a
// continuation of another list fails its MAC like a forged one. One that does not check out, or names
// another page number than the request's page, is no continuation: the page is served by its number,
// DRF's way, so forging or editing one gains nothing.
//
// A list merged from several streams (invitations') also carries hints, signed with the rest: what its
// store found of each stream on the page the link leaves, so that the linked page reads about what it
// shows rather than a page from every stream. A continuation without them (a comment list's, or one
// made before lists carried them) is read as before.

// CursorParam is the query parameter of a continuation.
const CursorParam = "cursor"

const (
	continuationVersion = 1
	macSize             = 16 // bytes of the HMAC kept: 128 bits
	flagBefore          = 1 << 0
	flagIncluded        = 1 << 1
	flagHints           = 1 << 2
	// maxCursor bounds what is decoded at all: a position is a sort key of well under 1 KB.
	maxCursor = 2048
	// maxHint bounds each hint decoded: a store reads no more than a few pages per stream whatever it
	// says.
	maxHint = 1 << 16
	// maxHints is the most hints a continuation carries (a link of a list of more carries none), so
	// that with a position it stays well within maxCursor.
	maxHints = 256
)

// Continuation is a continuation that checked out: the page it is for and where that page lies.
type Continuation struct {
	// Number is the page number the continuation is for, which the request's page must equal. It counts
	// the pages walked, whatever was added or deleted meanwhile, and never goes below 1.
	Number int
	// Before: the page ends just before Position and is read backwards from it (a previous link); else
	// it starts just after Position (a next link).
	Before bool
	// Included: Position itself belongs to the page. Only a link out of an empty page has it, which has
	// no result to start from but the position it was asked for.
	Included bool
	// Position is the list's sort key of an entry, which only the list's store interprets.
	Position string
	// Hints are what the list's store said of the page the link leaves (Page.Hinted), which only it
	// interprets; nil when the link carries none.
	Hints []int
}

// ContinuationKeys is one process's copy of the key continuations are signed with: read from the store
// (which makes it on first use) once, and kept. A read that failed is tried again by the next request.
type ContinuationKeys struct {
	store domain.ContinuationKeyStore
	mu    sync.Mutex
	key   []byte
}

// NewContinuationKeys returns the key cache of a function whose lists carry continuations.
func NewContinuationKeys(store domain.ContinuationKeyStore) *ContinuationKeys {
	return &ContinuationKeys{store: store}
}

// KeyRead is one request's access to the key: at once when the process has it, else a read running
// beside the request's own first reads.
type KeyRead struct {
	keys   *ContinuationKeys
	ctx    context.Context
	cached []byte
	done   chan struct{}
	key    []byte
	err    error
	made   chan struct{} // closed when the key is made, after Known
}

// Read returns the key's read for a request. When the key is not cached yet the read starts now, in
// parallel with whatever the request reads next (the session), so it costs no round trip of its own.
// It only reads: a table's first key is made by Wait, which a request calls once its caller is known,
// so that a request with a forged token writes nothing (SPEC §9). The request must call Done (or Wait)
// before it answers, so that no call outlives it.
func (k *ContinuationKeys) Read(ctx context.Context) *KeyRead {
	k.mu.Lock()
	key := k.key
	k.mu.Unlock()
	if key != nil {
		return &KeyRead{cached: key}
	}
	kr := &KeyRead{keys: k, ctx: ctx, done: make(chan struct{})}
	go func() {
		defer close(kr.done)
		if kr.key, kr.err = k.store.StoredContinuationKey(ctx); kr.key != nil {
			k.keep(kr.key)
		}
	}()
	return kr
}

// keep caches key for the process's later requests.
func (k *ContinuationKeys) keep(key []byte) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.key == nil {
		k.key = key
	}
}

// Cached returns the key when the process had it before the request began, nil otherwise.
func (kr *KeyRead) Cached() []byte { return kr.cached }

// Known says the request's caller is known, so the key may be made: when the read finds none, it is
// made now, beside whatever the request reads next, rather than when Wait is called.
func (kr *KeyRead) Known() {
	if kr.cached != nil || kr.made != nil {
		return
	}
	kr.made = make(chan struct{})
	go func() {
		defer close(kr.made)
		kr.make()
	}()
}

// make waits for the read and makes the key when the read found none.
func (kr *KeyRead) make() {
	<-kr.done
	if kr.key == nil && kr.err == nil {
		kr.key, kr.err = kr.keys.store.MakeContinuationKey(kr.ctx)
	}
	if kr.err == nil {
		kr.keys.keep(kr.key)
	}
}

// Wait returns the key, waiting for its read and making it when the table has none yet, or the store's
// error, which the request answers as it answers its other reads failing (503 when the store is
// unavailable). Nothing is kept then, so the next request reads the key again. Only a request whose
// caller is known calls it.
func (kr *KeyRead) Wait() ([]byte, error) {
	if kr.cached != nil {
		return kr.cached, nil
	}
	if kr.made == nil {
		kr.make()
	} else {
		<-kr.made
	}
	if kr.err != nil {
		return nil, kr.err
	}
	return kr.key, nil
}

// Done waits for whatever the key's read started, for a request that answers without the key.
func (kr *KeyRead) Done() {
	if kr.done != nil {
		<-kr.done
	}
	if kr.made != nil {
		<-kr.made
	}
}

// Continuation returns the continuation the request carries when it checks out with key: made with
// key for this list, and for the page number the request asks for. ok is false for anything else (no
// cursor, an undecodable or forged one, another list's, another page's, page=last, no key).
func (r PageRequest) Continuation(req *http.Request, key []byte) (c Continuation, ok bool) {
	if key == nil || r.cursor == "" || r.number < 1 || len(r.cursor) > maxCursor {
		return Continuation{}, false
	}
	raw, err := base64.RawURLEncoding.DecodeString(r.cursor)
	if err != nil || len(raw) < 3+macSize {
		return Continuation{}, false
	}
	payload, mac := raw[:len(raw)-macSize], raw[len(raw)-macSize:]
	if !hmac.Equal(mac, continuationMAC(key, payload, req.URL.Path, req.URL.Query())) {
		return Continuation{}, false
	}
	if payload[0] != continuationVersion || payload[1]&^(flagBefore|flagIncluded|flagHints) != 0 {
		return Continuation{}, false
	}
	n, used := binary.Uvarint(payload[2:])
	if used <= 0 || n != uint64(r.number) {
		return Continuation{}, false
	}
	c = Continuation{Number: r.number, Before: payload[1]&flagBefore != 0, Included: payload[1]&flagIncluded != 0}
	rest := payload[2+used:]
	if payload[1]&flagHints != 0 {
		if c.Hints, rest = decodeHints(rest); c.Hints == nil {
			return Continuation{}, false
		}
	}
	if len(rest) == 0 {
		return Continuation{}, false
	}
	c.Position = string(rest)
	return c, true
}

// decodeHints reads the count of hints and the hints at the start of b, and what follows them; nil
// hints when b does not hold them.
func decodeHints(b []byte) ([]int, []byte) {
	k, used := binary.Uvarint(b)
	if used <= 0 || k == 0 || k > maxHints || k > uint64(len(b)) {
		return nil, nil
	}
	b = b[used:]
	hints := make([]int, 0, k)
	for range k {
		h, used := binary.Uvarint(b)
		if used <= 0 || h > maxHint {
			return nil, nil
		}
		hints, b = append(hints, int(h)), b[used:]
	}
	return hints, b
}

// encode is c as the cursor parameter of a link to u, a URL of the list at path (the request's).
func (c Continuation) encode(key []byte, path string, u *url.URL) string {
	var flags byte
	if c.Before {
		flags |= flagBefore
	}
	if c.Included {
		flags |= flagIncluded
	}
	if len(c.Hints) > 0 {
		flags |= flagHints
	}
	payload := binary.AppendUvarint([]byte{continuationVersion, flags}, uint64(c.Number))
	if len(c.Hints) > 0 {
		payload = binary.AppendUvarint(payload, uint64(len(c.Hints)))
		for _, h := range c.Hints {
			payload = binary.AppendUvarint(payload, uint64(min(max(h, 0), maxHint)))
		}
	}
	payload = append(payload, c.Position...)
	q, _ := url.ParseQuery(u.RawQuery)
	return base64.RawURLEncoding.EncodeToString(append(payload, continuationMAC(key, payload, path, q)...))
}

// continuationMAC signs payload for the list at path with query q: the path (either slash form, as the
// router serves both) and every parameter but page and cursor, sorted and encoded as links encode them.
func continuationMAC(key, payload []byte, path string, q url.Values) []byte {
	list := url.Values{}
	for name, vs := range q {
		if name != PageParam && name != CursorParam {
			list[name] = vs
		}
	}
	path = strings.TrimSuffix(path, "/")
	m := hmac.New(sha256.New, key)
	m.Write(binary.AppendUvarint(nil, uint64(len(payload))))
	m.Write(payload)
	m.Write(binary.AppendUvarint(nil, uint64(len(path))))
	m.Write([]byte(path))
	m.Write([]byte(list.Encode()))
	return m.Sum(nil)[:macSize]
}

// Continued is the page c asks for, of r.Size results, in a list that now counts count. Its number is
// c's whatever the count (a walk outlives changes to the list), and what was read decides its ends:
// more says whether an entry lies beyond the page in the direction it was read (after it for a page
// read forwards, before it for one read backwards). The other end is where the walk came from, so it
// has a link: a page read backwards always has a next, one read forwards a previous unless it is page
// 1 (which a continuation read forwards never is: it comes from a next link). A list that counts
// nothing has no links at all.
func (r PageRequest) Continued(c Continuation, count int, more bool) Page {
	return Page{Number: c.Number, Size: r.Size, Count: count, from: &c, more: more}
}

// Signed returns p with links that carry continuations signed with key (none when key is nil):
// positions are those of the results p shows, in the order shown.
func (p Page) Signed(key []byte, positions []string) Page {
	p.key, p.positions = key, positions
	return p
}

// Hinted returns p with links whose continuations carry hints, the store's word on the page they
// leave (InvitationListPage.Hints), when it shows a result: a link out of an empty page carries none,
// nor does one of a list of more than maxHints streams.
func (p Page) Hinted(hints []int) Page {
	if len(p.positions) > 0 && len(hints) <= maxHints {
		p.hints = hints
	}
	return p
}

// ends tells whether the page has a next and a previous page: by the count (DRF) for a page found by
// its number, by what was read for one found by a continuation (Continued).
func (p Page) ends() (next, previous bool) {
	switch {
	case p.from == nil:
		return p.Number < p.Pages(), p.Number > 1
	case p.Count <= 0:
		return false, false
	case p.from.Before:
		return true, p.more
	}
	return p.more, p.Number > 1
}

// continuation is the continuation of the link from p to the neighbouring page numbered n: after its
// last result (next) or before its first (previous). A page that shows nothing continues from the
// position it was asked for, now on the other side of it; a page found by its number that shows nothing
// has no position: ok false, and its link is DRF's.
func (p Page) continuation(n int, before bool) (Continuation, bool) {
	c := Continuation{Number: n, Before: before, Hints: p.hints}
	switch {
	case len(p.positions) > 0 && before:
		c.Position = p.positions[0]
	case len(p.positions) > 0:
		c.Position = p.positions[len(p.positions)-1]
	case p.from != nil:
		c.Position, c.Included = p.from.Position, !p.from.Included
	default:
		return Continuation{}, false
	}
	return c, true
}

// link is the URL of the neighbouring page n of p (n = 1 drops page, as DRF does), with its
// continuation when p is signed and has one, and without any cursor the request came with otherwise.
func (p Page) link(r *http.Request, self *url.URL, n int, before bool) *string {
	page := ""
	if n > 1 {
		page = strconv.Itoa(n)
	}
	u := withQueryParam(withQueryParam(self, PageParam, page), CursorParam, "")
	if c, ok := p.continuation(n, before); ok && p.key != nil {
		u = withQueryParam(u, CursorParam, c.encode(p.key, r.URL.Path, u))
	}
	s := u.String()
	return &s
}

// cut is p served with only its first m results (fit): more results follow the ones it shows.
func (p Page) cut(m int) Page {
	if len(p.positions) > m {
		p.positions = p.positions[:m]
		if p.from != nil && !p.from.Before {
			p.more = true
		}
	}
	return p
}
