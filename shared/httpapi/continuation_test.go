package httpapi

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"reflect"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

var (
	testKey  = bytes.Repeat([]byte{7}, 32)
	otherKey = bytes.Repeat([]byte{8}, 32)
)

const listTarget = "/api/v1/comments/?object_id=0b7c6f5e-2d1a-4c3b-9e8f-7a6b5c4d3e2f&content_type=report"

func get(target string) *http.Request {
	r := httptest.NewRequest("GET", target, nil)
	r.Host = "h"
	return r
}

// follow is the request a client makes by following link.
func follow(t *testing.T, link *string) *http.Request {
	t.Helper()
	if link == nil {
		t.Fatal("no link to follow")
	}
	u, err := url.Parse(*link)
	if err != nil {
		t.Fatal(err)
	}
	return get(u.RequestURI())
}

func continuationOf(r *http.Request, key []byte) (Continuation, bool) {
	return drf.Read(r.URL.Query()).Continuation(r, key)
}

// TestSignedLinksCarryTheirPageAndPosition: a signed page's next link continues after its last result,
// its previous link before its first; each checks out for the request that follows it, and the links
// keep DRF's shape with cursor among the parameters, sorted.
func TestSignedLinksCarryTheirPageAndPosition(t *testing.T) {
	r := get(listTarget + "&page=2")
	page, err := drf.Read(r.URL.Query()).Resolve(45)
	if err != nil {
		t.Fatal(err)
	}
	next, previous := page.Signed(testKey, []string{"p21", "p22", "p40"}).Links(r)
	for _, tc := range []struct {
		link   *string
		prefix string
		want   Continuation
	}{
		{next, "http://h/api/v1/comments/?content_type=report&cursor=", Continuation{Number: 3, Position: "p40"}},
		{previous, "http://h/api/v1/comments/?content_type=report&cursor=", Continuation{Number: 1, Before: true, Position: "p21"}},
	} {
		if !strings.HasPrefix(*tc.link, tc.prefix) {
			t.Fatalf("link %s, want it to start %s", *tc.link, tc.prefix)
		}
		got, ok := continuationOf(follow(t, tc.link), testKey)
		if !ok || !reflect.DeepEqual(got, tc.want) {
			t.Fatalf("%s: continuation %+v %v, want %+v", *tc.link, got, ok, tc.want)
		}
	}
	if !strings.HasSuffix(*next, "&object_id=0b7c6f5e-2d1a-4c3b-9e8f-7a6b5c4d3e2f&page=3") ||
		!strings.HasSuffix(*previous, "&object_id=0b7c6f5e-2d1a-4c3b-9e8f-7a6b5c4d3e2f") {
		t.Fatalf("links %s, %s: want the other parameters sorted after cursor, page 3 and no page", *next, *previous)
	}
}

// TestContinuationsThatDoNotCheckOutAreIgnored: anything but the continuation a link carries, for the
// page and list of the request, is no continuation.
func TestContinuationsThatDoNotCheckOutAreIgnored(t *testing.T) {
	r := get(listTarget)
	page, _ := drf.Read(r.URL.Query()).Resolve(45)
	next, _ := page.Signed(testKey, []string{"p1", "p20"}).Links(r)
	u, _ := url.Parse(*next)
	cursor := u.Query().Get(CursorParam)
	raw, _ := base64.RawURLEncoding.DecodeString(cursor)
	with := func(edit func(q url.Values)) *http.Request {
		q := u.Query()
		edit(q)
		return get(u.Path + "?" + q.Encode())
	}
	flipped := func(i int) string {
		b := bytes.Clone(raw)
		b[i] ^= 1
		return base64.RawURLEncoding.EncodeToString(b)
	}
	if _, ok := continuationOf(with(func(url.Values) {}), testKey); !ok {
		t.Fatal("the link's own continuation does not check out")
	}
	if _, ok := continuationOf(get(strings.Replace(u.RequestURI(), "/comments/?", "/comments?", 1)), testKey); !ok {
		t.Fatal("the other slash form of the path is another list")
	}
	for name, r := range map[string]*http.Request{
		"another key":          with(func(url.Values) {}),
		"another page":         with(func(q url.Values) { q.Set(PageParam, "3") }),
		"no page (page 1)":     with(func(q url.Values) { q.Del(PageParam) }),
		"page=last":            with(func(q url.Values) { q.Set(PageParam, "last") }),
		"another object":       with(func(q url.Values) { q.Set("object_id", "1b7c6f5e-2d1a-4c3b-9e8f-7a6b5c4d3e2f") }),
		"a filter added":       with(func(q url.Values) { q.Set("tag", "x") }),
		"another page size":    with(func(q url.Values) { q.Set(PageSizeParam, "20") }),
		"another ordering":     with(func(q url.Values) { q.Set("ordering", "-created_at") }),
		"a flag changed":       with(func(q url.Values) { q.Set(CursorParam, flipped(1)) }),
		"the position changed": with(func(q url.Values) { q.Set(CursorParam, flipped(len(raw)-macSize-1)) }),
		"the MAC changed":      with(func(q url.Values) { q.Set(CursorParam, flipped(len(raw)-1)) }),
		"cut short":            with(func(q url.Values) { q.Set(CursorParam, cursor[:len(cursor)-2]) }),
		"not base64url":        with(func(q url.Values) { q.Set(CursorParam, cursor+"=") }),
		"empty":                with(func(q url.Values) { q.Set(CursorParam, "") }),
		"huge":                 with(func(q url.Values) { q.Set(CursorParam, strings.Repeat("A", 5000)) }),
		"another path":         get(strings.Replace(u.RequestURI(), "/comments/", "/organization-invitations/", 1)),
	} {
		key := testKey
		if name == "another key" {
			key = otherKey
		}
		if c, ok := continuationOf(r, key); ok {
			t.Errorf("%s: %s checks out as %+v", name, r.URL, c)
		}
	}
	if _, ok := continuationOf(with(func(url.Values) {}), nil); ok {
		t.Error("checked out without a key")
	}
}

// TestContinuedPagesEnds: a continuation page's ends are decided by what was read, and an empty one
// links back to where it was asked to start, that position now included.
func TestContinuedPagesEnds(t *testing.T) {
	r := get(listTarget + "&page=4")
	req := drf.Read(r.URL.Query())
	forward := Continuation{Number: 4, Position: "x"}
	backward := Continuation{Number: 4, Before: true, Position: "x"}
	for _, tc := range []struct {
		name           string
		page           Page
		positions      []string
		next, previous *Continuation // nil: no link
	}{
		{"forwards, more follows", req.Continued(forward, 100, true), []string{"a", "b"},
			&Continuation{Number: 5, Position: "b"}, &Continuation{Number: 3, Before: true, Position: "a"}},
		{"forwards, at the end", req.Continued(forward, 100, false), []string{"a", "b"},
			nil, &Continuation{Number: 3, Before: true, Position: "a"}},
		{"backwards, more before", req.Continued(backward, 100, true), []string{"a", "b"},
			&Continuation{Number: 5, Position: "b"}, &Continuation{Number: 3, Before: true, Position: "a"}},
		{"backwards, at the start", req.Continued(backward, 100, false), []string{"a", "b"},
			&Continuation{Number: 5, Position: "b"}, nil},
		{"forwards, empty", req.Continued(forward, 100, false), nil,
			nil, &Continuation{Number: 3, Before: true, Included: true, Position: "x"}},
		{"backwards, empty", req.Continued(backward, 100, false), nil,
			&Continuation{Number: 5, Included: true, Position: "x"}, nil},
		{"nothing counted", req.Continued(forward, 0, true), nil, nil, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			next, previous := tc.page.Signed(testKey, tc.positions).Links(r)
			for _, l := range []struct {
				name string
				got  *string
				want *Continuation
			}{{"next", next, tc.next}, {"previous", previous, tc.previous}} {
				if (l.got == nil) != (l.want == nil) {
					t.Fatalf("%s %v, want %+v", l.name, linkText(l.got), l.want)
				}
				if l.got == nil {
					continue
				}
				c, ok := continuationOf(follow(t, l.got), testKey)
				if !ok || !reflect.DeepEqual(c, *l.want) {
					t.Fatalf("%s carries %+v %v, want %+v", l.name, c, ok, *l.want)
				}
			}
		})
	}
	// A walk backwards that reaches page 1 with entries still before it stays on page 1.
	first := drf.Read(url.Values{}).Continued(Continuation{Number: 1, Before: true, Position: "x"}, 100, true)
	_, previous := first.Signed(testKey, []string{"a"}).Links(get(listTarget))
	if c, ok := continuationOf(follow(t, previous), testKey); !ok || c.Number != 1 || strings.Contains(*previous, "page=") {
		t.Fatalf("previous of page 1 %s carries %+v %v", *previous, c, ok)
	}
}

// TestUnsignedLinksDropACursor: a page served by its number without a key (or showing nothing) links
// as DRF does, and never passes on a cursor the request came with.
func TestUnsignedLinksDropACursor(t *testing.T) {
	r := get(listTarget + "&page=2&cursor=forged")
	page, _ := drf.Read(r.URL.Query()).Resolve(45)
	for _, p := range []Page{page, page.Signed(nil, []string{"a"}), page.Signed(testKey, nil)} {
		next, previous := p.Links(r)
		if strings.Contains(*next, "cursor") || strings.Contains(*previous, "cursor") {
			t.Fatalf("links %s, %s pass a cursor on", *next, *previous)
		}
	}
}

// TestResizedPagesSignTheirOwnSize: a page served smaller than asked (fit) signs its links for the
// page_size they carry, after the last result it shows.
func TestResizedPagesSignTheirOwnSize(t *testing.T) {
	r := get(listTarget + "&page=2")
	page, _ := drf.Read(r.URL.Query()).Resolve(45)
	positions := make([]string, 20)
	for i := range positions {
		positions[i] = string(rune('a' + i))
	}
	small := page.Signed(testKey, positions).cut(4)
	small.Number, small.Size, small.resized = 6, 4, true
	next, _ := small.Links(r)
	if c, ok := continuationOf(follow(t, next), testKey); !ok || !reflect.DeepEqual(c, Continuation{Number: 7, Position: "d"}) ||
		!strings.Contains(*next, "page_size=4") {
		t.Fatalf("next %s carries %+v %v", *next, c, ok)
	}
}

type keyStore struct {
	calls atomic.Int32
	made  atomic.Int32
	fail  atomic.Bool
	key   atomic.Pointer[[]byte]
}

func (s *keyStore) StoredContinuationKey(context.Context) ([]byte, error) {
	s.calls.Add(1)
	if s.fail.Load() {
		return nil, errors.New("store down")
	}
	if k := s.key.Load(); k != nil {
		return *k, nil
	}
	return nil, nil
}

func (s *keyStore) MakeContinuationKey(context.Context) ([]byte, error) {
	s.calls.Add(1)
	if s.fail.Load() {
		return nil, errors.New("store down")
	}
	s.made.Add(1)
	s.key.CompareAndSwap(nil, &testKey)
	return *s.key.Load(), nil
}

// TestOnlyWaitMakesTheKey: a request reads the key beside its session but makes none; a table's first
// key is made by Wait, which only a request whose caller is known calls (SPEC §9: a forged token
// writes nothing).
func TestOnlyWaitMakesTheKey(t *testing.T) {
	store := &keyStore{}
	keys := NewContinuationKeys(store)
	kr := keys.Read(context.Background())
	kr.Done()
	if store.made.Load() != 0 || kr.Cached() != nil {
		t.Fatalf("a read made %d keys", store.made.Load())
	}
	if key, err := kr.Wait(); err != nil || !bytes.Equal(key, testKey) || store.made.Load() != 1 {
		t.Fatalf("Wait gave %x, %v after making %d keys", key, err, store.made.Load())
	}
	if again := keys.Read(context.Background()); !bytes.Equal(again.Cached(), testKey) {
		t.Fatal("the key made is not kept")
	}

	// Known makes it beside the request's next reads; Wait then only waits for it.
	fresh := &keyStore{}
	kr = NewContinuationKeys(fresh).Read(context.Background())
	kr.Known()
	kr.Done()
	if fresh.made.Load() != 1 {
		t.Fatalf("Known made %d keys", fresh.made.Load())
	}
	if key, err := kr.Wait(); err != nil || !bytes.Equal(key, testKey) || fresh.made.Load() != 1 {
		t.Fatalf("Wait after Known gave %x, %v, %d keys made", key, err, fresh.made.Load())
	}
}

// TestContinuationKeysAreReadOncePerProcess: the key is read by the first request and kept; a failed
// read is the request's error, leaves no key and is tried again by the next request.
func TestContinuationKeysAreReadOncePerProcess(t *testing.T) {
	store := &keyStore{}
	keys := NewContinuationKeys(store)
	store.fail.Store(true)
	if kr := keys.Read(context.Background()); kr.Cached() != nil {
		t.Fatal("a key before any read")
	} else if key, err := kr.Wait(); key != nil || err == nil {
		t.Fatalf("a failed read gave %x, %v", key, err)
	}
	store.fail.Store(false)
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			if key, err := keys.Read(context.Background()).Wait(); err != nil || !bytes.Equal(key, testKey) {
				t.Errorf("no key after a failed read: %v", err)
			}
		})
	}
	wg.Wait()
	before := store.calls.Load()
	for range 3 {
		kr := keys.Read(context.Background())
		if key, err := kr.Wait(); !bytes.Equal(kr.Cached(), testKey) || !bytes.Equal(key, testKey) || err != nil {
			t.Fatal("the key is not kept")
		}
	}
	if store.calls.Load() != before {
		t.Fatalf("%d reads of a kept key", store.calls.Load()-before)
	}
}

// TestHintsTravelSigned: a hinted page's links carry its hints under the MAC with the rest: the page
// they lead to reads them back as they were; a hint altered, or a count of hints that does not match
// what follows, does not check out. A page without hints (a comment list's) links as before they
// existed, and such a continuation reads back without hints.
func TestHintsTravelSigned(t *testing.T) {
	r := get(listTarget + "&page=2")
	page, _ := drf.Read(r.URL.Query()).Resolve(45)
	hints := []int{40, 0, 300, 7}
	next, previous := page.Signed(testKey, []string{"p21", "p40"}).Hinted(hints).Links(r)
	for _, tc := range []struct {
		link *string
		want Continuation
	}{
		{next, Continuation{Number: 3, Position: "p40", Hints: hints}},
		{previous, Continuation{Number: 1, Before: true, Position: "p21", Hints: hints}},
	} {
		if got, ok := continuationOf(follow(t, tc.link), testKey); !ok || !reflect.DeepEqual(got, tc.want) {
			t.Fatalf("%s: continuation %+v %v, want %+v", *tc.link, got, ok, tc.want)
		}
	}
	u, _ := url.Parse(*next)
	raw, _ := base64.RawURLEncoding.DecodeString(u.Query().Get(CursorParam))
	with := func(payload []byte, key []byte) *http.Request {
		q := u.Query()
		cursor := append(bytes.Clone(payload), continuationMAC(key, payload, u.Path, q)...)
		q.Set(CursorParam, base64.RawURLEncoding.EncodeToString(cursor))
		return get(u.Path + "?" + q.Encode())
	}
	payload := raw[:len(raw)-macSize]
	// version, flags, page 3, four hints: 40, 0, 300 (two bytes), 7; then the position.
	if want := []byte{1, flagHints, 3, 4, 40, 0, 0xac, 0x02, 7, 'p', '4', '0'}; !bytes.Equal(payload, want) {
		t.Fatalf("payload % x, want % x", payload, want)
	}
	forged := bytes.Clone(raw)
	forged[5] = 41
	q := u.Query()
	q.Set(CursorParam, base64.RawURLEncoding.EncodeToString(forged))
	if c, ok := continuationOf(get(u.Path+"?"+q.Encode()), testKey); ok {
		t.Errorf("a hint altered checks out as %+v", c)
	}
	for name, p := range map[string][]byte{
		"more hints counted than sent": {1, flagHints, 3, 9, 40, 0, 7, 'p'},
		"more hints than are carried":  append(append([]byte{1, flagHints, 3, 0x81, 0x02}, make([]byte, 257)...), 'p'),
		"no hint counted":              {1, flagHints, 3, 0, 'p'},
		"a hint too large":             {1, flagHints, 3, 1, 0xff, 0xff, 0x7f, 'p'},
		"hints and no position":        {1, flagHints, 3, 2, 1, 2},
	} {
		if c, ok := continuationOf(with(p, testKey), testKey); ok {
			t.Errorf("%s, signed: checks out as %+v", name, c)
		}
	}
	plain, _ := page.Signed(testKey, []string{"p21", "p40"}).Hinted(nil).Links(r)
	u, _ = url.Parse(*plain)
	raw, _ = base64.RawURLEncoding.DecodeString(u.Query().Get(CursorParam))
	if want := []byte{1, 0, 3, 'p', '4', '0'}; !bytes.Equal(raw[:len(raw)-macSize], want) {
		t.Fatalf("a link without hints carries % x, want % x", raw[:len(raw)-macSize], want)
	}
	if c, ok := continuationOf(follow(t, plain), testKey); !ok || c.Hints != nil || c.Position != "p40" {
		t.Fatalf("a continuation without hints reads back as %+v %v", c, ok)
	}
	many, _ := page.Signed(testKey, []string{"p21", "p40"}).Hinted(make([]int, maxHints+1)).Links(r)
	if c, ok := continuationOf(follow(t, many), testKey); !ok || c.Hints != nil || len(*many) > maxCursor {
		t.Fatalf("a link of %d streams carries %+v %v (%d bytes)", maxHints+1, c, ok, len(*many))
	}
	most, _ := page.Signed(testKey, []string{"p21", "p40"}).Hinted(slices.Repeat([]int{maxHint}, maxHints)).Links(r)
	if c, ok := continuationOf(follow(t, most), testKey); !ok || len(c.Hints) != maxHints {
		t.Fatalf("a link of %d streams of the largest hints carries %d hints, %v", maxHints, len(c.Hints), ok)
	}
	empty, _ := page.Signed(testKey, nil).Hinted(hints).Links(r)
	if strings.Contains(*empty, CursorParam) {
		t.Fatalf("a page that shows nothing and was found by its number links with a cursor: %s", *empty)
	}
}
