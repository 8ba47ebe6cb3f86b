package httpapi

import (
	"encoding/json"
	"math"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/reportingplatform/api/shared/domain"
)

// DRF's PageNumberPagination, split in two so a handler can start reading before it knows the count:
// Read parses ?page and ?page_size (nothing can fail there), and PageRequest.Resolve checks the page
// against the count the way Django's Paginator does. Page builds DRF's next and previous links. Nothing
// here knows about storage.

// Query parameter names and the message of DRF's NotFound for a bad page.
const (
	PageParam       = "page"
	PageSizeParam   = "page_size"
	msgInvalidPage  = "Invalid page."
	lastPageKeyword = "last" // DRF's last_page_strings
)

// PageNumberPagination holds DRF's page_size and max_page_size.
type PageNumberPagination struct {
	PageSize    int // when page_size is absent or not a positive integer
	MaxPageSize int // larger page_size values are cut to this
}

// Pagination is the pagination SPEC §6 sets for comments and §10 for invitations: every list's.
var Pagination = PageNumberPagination{PageSize: 20, MaxPageSize: 100}

// PageRequest is the page a request asks for, before the number of results is known.
type PageRequest struct {
	Size   int
	number int // the page asked for, ≥ 1; 0 for "last" or a page that is not a positive integer
	last   bool
	cursor string // the continuation sent, unchecked (Continuation checks it)
}

// Read parses the request's page and page_size as DRF does: the last value of a repeated parameter
// (QueryDict.get), page_size that is not a positive integer (Python's int()) gives the default and a
// larger one the maximum, an empty or absent page is page 1, and "last" is the last page.
func (p PageNumberPagination) Read(q url.Values) PageRequest {
	req := PageRequest{Size: p.PageSize, cursor: LastValue(q, CursorParam)}
	if n, ok := PythonInt(LastValue(q, PageSizeParam)); ok && n > 0 {
		req.Size = min(n, p.MaxPageSize)
	}
	raw := LastValue(q, PageParam)
	switch {
	case raw == "":
		req.number = 1
	case raw == lastPageKeyword:
		req.last = true
	default:
		if n, ok := PythonInt(raw); ok && n >= 1 {
			req.number = n
		}
	}
	return req
}

// LastValue is the value of a repeated query parameter that Django's QueryDict.get returns: the last
// one; "" when the parameter is absent (which every reader here treats as sent empty).
func LastValue(q url.Values, name string) string {
	if vs := q[name]; len(vs) > 0 {
		return vs[len(vs)-1]
	}
	return ""
}

// Number returns the page asked for by number; ok is false for "last" and for an invalid page.
func (r PageRequest) Number() (int, bool) { return r.number, r.number > 0 }

// Last reports whether the request asks for the last page, whatever its number.
func (r PageRequest) Last() bool { return r.last }

// Valid reports whether the page can exist for some count: false means 404 whatever the count.
func (r PageRequest) Valid() bool { return r.last || r.number > 0 }

// Needed is how many results from the start the page needs (page × size), saturating instead of
// overflowing; ok is false when that is unknown before the count ("last", or an invalid page).
func (r PageRequest) Needed() (int, bool) {
	if r.number <= 0 {
		return 0, false
	}
	if r.number > math.MaxInt/r.Size {
		return math.MaxInt, true
	}
	return r.number * r.Size, true
}

// Resolve checks the page against count as Django's Paginator does (an empty list still has page 1):
// a page that is not a positive integer or is past the last page is ENOTFOUND "Invalid page.".
func (r PageRequest) Resolve(count int) (Page, error) {
	p := Page{Number: r.number, Size: r.Size, Count: count}
	if r.last {
		p.Number = p.Pages()
	}
	if p.Number < 1 || p.Number > p.Pages() {
		return Page{}, domain.Errorf(domain.ENOTFOUND, msgInvalidPage)
	}
	return p, nil
}

// Page is a valid page of Count results.
type Page struct {
	Number, Size, Count int
	// resized: the page is smaller than the one asked for (fit), so its links say page_size too.
	resized bool
	// from is the continuation the page was read from (Continued), nil for a page found by its number;
	// more says whether an entry lies beyond it in the direction it was read.
	from *Continuation
	more bool
	// key and positions sign its links' continuations (Signed): the positions of the results shown.
	key       []byte
	positions []string
	// hints go with its links' continuations (Hinted).
	hints []int
}

// Pages is the number of pages; an empty list has one (Paginator's allow_empty_first_page).
func (p Page) Pages() int {
	if p.Count <= 0 {
		return 1
	}
	return (p.Count + p.Size - 1) / p.Size
}

// Offset is how many results come before the page.
func (p Page) Offset() int { return (p.Number - 1) * p.Size }

// Len is how many results the page holds.
func (p Page) Len() int { return max(0, min(p.Size, p.Count-p.Offset())) }

// Links returns the next and previous links of the page of request r: DRF's (the request's absolute
// URL with page replaced, removed for page 1, nil at the ends), each with the continuation of the page
// it links to when the page is signed (continuation.go).
func (p Page) Links(r *http.Request) (next, previous *string) {
	self := RequestURL(r)
	if p.resized {
		self = withQueryParam(self, PageSizeParam, strconv.Itoa(p.Size))
	}
	hasNext, hasPrevious := p.ends()
	if hasNext {
		next = p.link(r, self, p.Number+1, false)
	}
	if hasPrevious {
		previous = p.link(r, self, max(p.Number-1, 1), true)
	}
	return next, previous
}

// RequestURL is the absolute URL the client used, as Django's build_absolute_uri sees it behind a
// proxy: the scheme from X-Forwarded-Proto (its first value; anything but https is http), the host the
// client called (calledHost), and the base path the router stripped (the stage "/Prod" through the
// execute-api URL, a custom domain's base path mapping) in front of the resource's path.
func RequestURL(r *http.Request) *url.URL {
	scheme := "http"
	proto, _, _ := strings.Cut(r.Header.Get("X-Forwarded-Proto"), ",")
	if strings.TrimSpace(proto) == "https" {
		scheme = "https"
	}
	return &url.URL{Scheme: scheme, Host: calledHost(r), Path: BasePath(r.Context()) + r.URL.Path, RawQuery: r.URL.RawQuery}
}

// withQueryParam is DRF's replace_query_param (value set) and remove_query_param (value ""): the query
// is parsed, the parameter replaced or dropped, and the rest encoded sorted by name, the values of a
// repeated name in their order (urlencode(sorted(query_dict.items()), doseq=True)). url.Values.Encode
// does exactly that, with the same escaping as Python's quote_plus.
func withQueryParam(u *url.URL, name, value string) *url.URL {
	q, _ := url.ParseQuery(u.RawQuery)
	if q == nil {
		q = url.Values{}
	}
	if value == "" {
		q.Del(name)
	} else {
		q.Set(name, value)
	}
	out := *u
	out.RawQuery = q.Encode()
	return &out
}

// pageBody is DRF's paginated envelope, keys in DRF's order.
type pageBody[T any] struct {
	Count    int     `json:"count"`
	Next     *string `json:"next"`
	Previous *string `json:"previous"`
	Results  []T     `json:"results"`
}

// ResponseBudget is the most a response body may take as Lambda carries it. A synchronous invocation
// answers at most 6 MB, the whole API Gateway proxy response included, in which aws-lambda-go writes
// the body as a JSON string; the rest is headroom for the headers. A page of the longest comments
// (100,000 characters each) would pass it at the default page size, and Lambda would fail the
// invocation (API Gateway: 502): WritePage serves a smaller page instead.
const ResponseBudget = 5_000_000

// maxEscape is the most one byte of a body can grow as a JSON string ("<" is \u003c).
const maxEscape = 6

// WritePage answers 200 with page's envelope around results (never null: an empty page is []). A page
// whose body would pass ResponseBudget is served smaller (fit), its links carrying the smaller
// page_size so that following them reads on without gap or repeat.
func WritePage[T any](w http.ResponseWriter, r *http.Request, page Page, results []T) {
	if results == nil {
		results = []T{}
	}
	body, err := pageJSON(r, page, results)
	if err == nil && len(body)*maxEscape > ResponseBudget && lambdaSize(body) > ResponseBudget {
		var m int
		if page, m, err = fit(r, page, results); err == nil {
			body, err = pageJSON(r, page, results[:m])
		}
	}
	writeBody(w, http.StatusOK, body, err)
}

func pageJSON[T any](r *http.Request, page Page, results []T) ([]byte, error) {
	out := pageBody[T]{Count: page.Count, Results: results}
	out.Next, out.Previous = page.Links(r)
	return MarshalJSON(out)
}

// lambdaSize is how many bytes body takes as the JSON string aws-lambda-go writes it in
// (encoding/json's defaults).
func lambdaSize(body []byte) int {
	b, _ := json.Marshal(string(body)) // a string always marshals
	return len(b)
}

// fit returns the page to serve instead of page when its body is too large: its first m results, m
// the most that fit ResponseBudget among the sizes that divide the page's offset, so that the smaller
// page is a page of its own (number offset/m + 1) and its links stay on the same grid. m = 1 always
// qualifies: no single result comes near the budget.
func fit[T any](r *http.Request, page Page, results []T) (Page, int, error) {
	envelope, err := pageJSON(r, page, []T{})
	if err != nil {
		return Page{}, 0, err
	}
	used := lambdaSize(envelope) + 64 // the links of the smaller page are a few bytes longer
	sizes := make([]int, len(results))
	for i, res := range results {
		b, err := MarshalJSON(res)
		if err != nil {
			return Page{}, 0, err
		}
		sizes[i] = lambdaSize(b) - 2 + 1 // without the quotes, with a comma
	}
	offset, m := page.Offset(), 1
	for n, total := 1, used; n <= len(results); n++ {
		if total += sizes[n-1]; total > ResponseBudget {
			break
		}
		if offset%n == 0 {
			m = n
		}
	}
	out := page.cut(m)
	out.Number, out.Size, out.resized = offset/m+1, m, true
	return out, m, nil
}
