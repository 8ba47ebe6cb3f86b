package httpapi

import (
	"math"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/reportingplatform/api/shared/domain"
)

// FuzzPageQuery reads ?page and ?page_size from any query string and resolves the page against any
// count, as DRF's PageNumberPagination does: nothing in the query can fail before the count is known;
// afterwards the page is either a real page of the list or 404 "Invalid page.", and its links are
// absolute URLs of the same request naming the neighbouring pages.
func FuzzPageQuery(f *testing.F) {
	for _, q := range []string{
		"", "page=2", "page=last", "page=0", "page=-1", "page=1.0", "page=%20%2B3%20", "page=1_0", "page=%D9%A2",
		"page_size=5", "page_size=101", "page_size=0", "page_size=-5", "page_size=99999999999999999999",
		"page_size=%F0%9D%9F%90",
		"page=2&page=3", "page=9223372036854775807&page_size=100", "page=99999999999999999999999", "page=%00", "page=%",
		"a=1&page=2&b=%E2%82%AC&b=x;y", "page=" + strings.Repeat("9", 300), "page=\xff", "page_size=5&page=last",
	} {
		for _, count := range []uint32{0, 1, 20, 41, 5000, math.MaxUint32} {
			f.Add(q, count)
		}
	}
	f.Fuzz(func(t *testing.T, rawQuery string, count uint32) {
		q, _ := url.ParseQuery(rawQuery) // what r.URL.Query() gives a handler, bad pairs dropped
		req := drf.Read(q)
		for _, vs := range q {
			for _, v := range vs {
				// Python's int() takes all Go's strconv does (and more: Unicode digits, underscores).
				if want, err := strconv.Atoi(strings.TrimSpace(v)); err == nil {
					if got, ok := PythonInt(v); !ok || got != want {
						t.Fatalf("PythonInt(%q) = %d, %v; want %d", v, got, ok, want)
					}
				}
			}
		}
		wantSize := drf.PageSize
		if n, ok := PythonInt(LastValue(q, PageSizeParam)); ok && n > 0 {
			wantSize = min(n, drf.MaxPageSize)
		}
		if req.Size != wantSize || req.Size < 1 || req.Size > drf.MaxPageSize {
			t.Fatalf("%q: size %d, want %d", rawQuery, req.Size, wantSize)
		}
		if needed, ok := req.Needed(); ok && (needed < req.Size || needed%req.Size != 0 && needed != math.MaxInt) {
			t.Fatalf("%q: needs %d results at size %d", rawQuery, needed, req.Size)
		}
		page, err := req.Resolve(int(count))
		if err != nil {
			if domain.ErrorCode(err) != domain.ENOTFOUND || err.(*domain.Error).Detail != "Invalid page." {
				t.Fatalf("%q, count %d: %v", rawQuery, count, err)
			}
			if n, ok := req.Number(); req.Valid() && !(ok && n > max(1, (int(count)+req.Size-1)/req.Size)) {
				t.Fatalf("%q, count %d: page %d refused", rawQuery, count, n)
			}
			return
		}
		if page.Number < 1 || page.Number > page.Pages() || page.Offset() < 0 || page.Len() < 0 || page.Len() > page.Size ||
			(page.Count > 0 && page.Len() == 0) || page.Offset()+page.Len() > max(page.Count, 0) {
			t.Fatalf("%q, count %d: page %+v (offset %d, len %d)", rawQuery, count, page, page.Offset(), page.Len())
		}
		checkLinks(t, rawQuery, page)
	})
}

// checkLinks holds DRF's next and previous links to the page's neighbours, other parameters kept.
func checkLinks(t *testing.T, rawQuery string, page Page) {
	t.Helper()
	if strings.ContainsAny(rawQuery, "# \x7f") || strings.ContainsFunc(rawQuery, func(r rune) bool { return r < 0x20 }) {
		return // not a request line a client can send
	}
	r := httptest.NewRequest("GET", "http://api.test/api/v1/comments/?"+rawQuery, nil)
	r.Header.Set("X-Forwarded-Proto", "https")
	next, previous := page.Links(r)
	for _, link := range []struct {
		url  *string
		want int // the page it must name; 0: no link
	}{
		{next, map[bool]int{true: page.Number + 1}[page.Number < page.Pages()]},
		{previous, page.Number - 1},
	} {
		if (link.url != nil) != (link.want > 0) {
			t.Fatalf("%q, page %d of %d: link %v, want page %d", rawQuery, page.Number, page.Pages(), link.url, link.want)
		}
		if link.url == nil {
			continue
		}
		u, err := url.Parse(*link.url)
		if err != nil || u.Scheme != "https" || u.Host != "api.test" || u.Path != "/api/v1/comments/" {
			t.Fatalf("%q: link %q (%v)", rawQuery, *link.url, err)
		}
		got := u.Query()
		wantPage := strconv.Itoa(link.want)
		if link.want == 1 {
			wantPage = ""
		}
		if got.Get(PageParam) != wantPage || len(got[PageParam]) > 1 {
			t.Fatalf("%q: link %q names page %q, want %q", rawQuery, *link.url, got.Get(PageParam), wantPage)
		}
		sent, _ := url.ParseQuery(r.URL.RawQuery)
		for name, vs := range sent {
			if name != PageParam && strings.Join(got[name], "\x00") != strings.Join(vs, "\x00") {
				t.Fatalf("%q: link %q lost %s=%q", rawQuery, *link.url, name, vs)
			}
		}
	}
}
