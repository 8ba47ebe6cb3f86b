package invitations_test

import (
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/reportingplatform/api/infra/testkit"
	"github.com/reportingplatform/api/shared/domain"
)

// TestListMatchesTheModel: at a few thousand invitations, every caller's list, under every filter and
// their combinations, on first, middle and last pages of several sizes, is exactly what SPEC §3's GET
// rule, §10's filters and order and §6's pagination make of the data loaded: count, links, and each
// result's id, status and fields, in order. Then the clock passes the expiry of a quarter of the
// pending invitations, and every list is compared again.
func TestListMatchesTheModel(t *testing.T) {
	w := newWorld(t)
	began := time.Now()
	d := LoadDataset(t, w.db, w.now, modelSize)
	t.Logf("loaded %d invitations in %v", len(d.Invitations), time.Since(began).Round(time.Millisecond))
	compare := func(phase int) func(t *testing.T) {
		return func(t *testing.T) {
			for ci, c := range d.callers() {
				t.Run(c.name, func(t *testing.T) {
					t.Parallel()
					began, n := time.Now(), 0
					for i, q := range d.queries(c) {
						count := len(d.list(c, q, w.now))
						pages := []pageAsked{pageVariants[(i+5*ci+7*phase)%len(pageVariants)].of(count)}
						if phase == 0 && i == 0 && c.name == "administrator" {
							pages = everyPageVariant(count)
						}
						for _, p := range pages {
							w.compareList(t, d, c, q, p)
							n++
						}
					}
					t.Logf("%d lists compared in %v", n, time.Since(began).Round(time.Millisecond))
				})
			}
		}
	}
	t.Run("at the load's clock", compare(0))
	expiring := 0
	for _, inv := range d.Invitations {
		if inv.StatusAt(w.now) == 0 && inv.StatusAt(d.ExpiringBy) == 3 {
			expiring++
		}
	}
	if expiring == 0 {
		t.Fatal("the data has no invitation that expires when the clock moves on")
	}
	w.now = d.ExpiringBy
	t.Run(fmt.Sprintf("a day later, %d more expired", expiring), compare(1))
}

// modelSize is how many invitations TestListMatchesTheModel loads.
const modelSize = 2000

// datasetCaller is a Dataset's caller under a name for failure messages.
type datasetCaller struct {
	name string
	Caller
}

func (d *Dataset) callers() []datasetCaller {
	return []datasetCaller{{"staff", d.Staff}, {"administrator", d.Admin}, {"member of three", d.Multi},
		{"invitee", d.Invitee}, {"member and invitee", d.Dual}}
}

// listQuery is a list's filters; status -1 is none.
type listQuery struct {
	organization string
	status       int
	email        string
}

func (q listQuery) values() url.Values {
	v := url.Values{}
	if q.organization != "" {
		v.Set("organization", q.organization)
	}
	if q.status >= 0 {
		v.Set("status", strconv.Itoa(q.status))
	}
	if q.email != "" {
		v.Set("email", q.email)
	}
	return v
}

// queries are the filters c lists with: none; an organization of theirs and one not; each status; their
// own address as typed, in capitals, and another; and those combined.
func (d *Dataset) queries(c datasetCaller) []listQuery {
	mine, other := d.Organizations[2], d.Organizations[5]
	if len(c.Organizations) > 0 {
		mine = c.Organizations[len(c.Organizations)-1]
	}
	own, shared := c.User.Email, d.Shared[1]
	loud := strings.ToUpper(own)
	qs := []listQuery{{status: -1}, {organization: mine, status: -1}, {organization: other, status: -1}}
	for s := range 5 {
		qs = append(qs, listQuery{status: s})
	}
	return append(qs,
		listQuery{email: own, status: -1}, listQuery{email: loud, status: -1}, listQuery{email: strings.ToUpper(shared), status: -1},
		listQuery{organization: mine, status: 0}, listQuery{organization: other, status: 3},
		listQuery{organization: mine, email: loud, status: -1}, listQuery{organization: other, email: shared, status: -1},
		listQuery{email: shared, status: 3}, listQuery{email: loud, status: 0},
		listQuery{organization: mine, status: 0, email: loud}, listQuery{organization: other, status: 3, email: shared},
	)
}

// list is the model: the invitations c may read (SPEC §3: staff all; members of the invitation's
// organization; the invitee, by address in any case) that q keeps at now (status as read then), newest
// first, ties by id (§10).
func (d *Dataset) list(c datasetCaller, q listQuery, now time.Time) []ModelInvitation {
	var out []ModelInvitation
	for _, inv := range d.Invitations {
		readable := c.User.IsStaff || c.User.IsSuperuser || slices.Contains(c.Organizations, inv.Organization) ||
			strings.EqualFold(inv.Email, c.User.Email)
		if readable && (q.organization == "" || inv.Organization == q.organization) &&
			(q.status < 0 || inv.StatusAt(now) == q.status) && (q.email == "" || strings.EqualFold(inv.Email, q.email)) {
			out = append(out, inv)
		}
	}
	slices.SortFunc(out, func(a, b ModelInvitation) int {
		if c := b.Created.Compare(a.Created); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	return out
}

// pageAsked is a page and page_size as sent; "" is not sent.
type pageAsked struct{ page, size string }

// pageVariant is a page of a list asked for one way: first, middle or last page (the last as "last"
// or by its number), at a page_size (0: none sent, the default 20).
type pageVariant struct {
	which string // "first", "middle", "last", "last by number"
	size  int
}

// pageVariants are every way the test asks for a page. Each list is asked one of them, in turn, so
// that every way is asked of every caller.
var pageVariants = func() []pageVariant {
	var out []pageVariant
	for _, size := range []int{0, 1, 7, 100} {
		for _, which := range []string{"first", "middle", "last", "last by number"} {
			out = append(out, pageVariant{which, size})
		}
	}
	return out
}()

// of is the page and page_size to send for v of a list of count.
func (v pageVariant) of(count int) pageAsked {
	size, p := v.size, pageAsked{}
	if size == 0 {
		size = 20
	} else {
		p.size = strconv.Itoa(size)
	}
	pages := max(1, (count+size-1)/size)
	switch v.which {
	case "middle":
		p.page = strconv.Itoa((pages + 1) / 2)
	case "last":
		p.page = "last"
	case "last by number":
		p.page = strconv.Itoa(pages)
	}
	return p
}

// everyPageVariant is every way of asking for a page of a list of count.
func everyPageVariant(count int) []pageAsked {
	var out []pageAsked
	for _, v := range pageVariants {
		out = append(out, v.of(count))
	}
	return out
}

// resultFields are the fields of a listed invitation the model knows.
type resultFields struct {
	ID           string   `json:"id"`
	Status       int      `json:"status"`
	Email        string   `json:"email"`
	Role         int      `json:"role"`
	ExpiryDate   string   `json:"expiry_date"`
	Organization orgShape `json:"organization"`
}

type modelPage struct {
	Count    int            `json:"count"`
	Next     *string        `json:"next"`
	Previous *string        `json:"previous"`
	Results  []resultFields `json:"results"`
}

// expectedPage is DRF's page p of all (SPEC §6): page_size absent 20, at most 100; "last" the last page;
// links this request's URL with page replaced (dropped for page 1), parameters sorted by name.
func (d *Dataset) expectedPage(all []ModelInvitation, query url.Values, p pageAsked, now time.Time) modelPage {
	size := 20
	if p.size != "" {
		size, _ = strconv.Atoi(p.size)
		size = min(size, 100)
	}
	pages := max(1, (len(all)+size-1)/size)
	number := 1
	switch p.page {
	case "last":
		number = pages
	case "":
	default:
		number, _ = strconv.Atoi(p.page)
	}
	link := func(n int) *string {
		q := url.Values{}
		for k, v := range query {
			q[k] = v
		}
		q.Del("page")
		if n > 1 {
			q.Set("page", strconv.Itoa(n))
		}
		s := "http://127.0.0.1:3000" + listPath + "?" + q.Encode()
		if len(q) == 0 {
			s = "http://127.0.0.1:3000" + listPath
		}
		return &s
	}
	out := modelPage{Count: len(all), Results: []resultFields{}}
	if number < pages {
		out.Next = link(number + 1)
	}
	if number > 1 {
		out.Previous = link(number - 1)
	}
	for _, inv := range all[(number-1)*size : min(len(all), number*size)] {
		out.Results = append(out.Results, resultFields{
			ID: inv.ID, Status: inv.StatusAt(now), Email: inv.Email, Role: inv.Role,
			ExpiryDate: domain.FormatTime(inv.Expiry), Organization: orgShape{inv.Organization, d.organizationName(inv.Organization)},
		})
	}
	return out
}

// compareList sends c's list with q and page p and compares its whole body with the model's page.
func (w *world) compareList(t *testing.T, d *Dataset, c datasetCaller, q listQuery, p pageAsked) {
	t.Helper()
	query := q.values()
	if p.page != "" {
		query.Set("page", p.page)
	}
	if p.size != "" {
		query.Set("page_size", p.size)
	}
	path := listPath + "?" + query.Encode()
	resp := testkit.Do(t, w.gw, testkit.Request{Method: "GET", Path: path, Token: c.Token})
	if resp.Status != 200 {
		t.Fatalf("%s: GET %s: %d %s", c.name, path, resp.Status, resp.Body)
	}
	var got modelPage
	if err := json.Unmarshal(resp.Body, &got); err != nil {
		t.Fatalf("%s: GET %s: %v: %s", c.name, path, err, resp.Body)
	}
	want := d.expectedPage(d.list(c, q, w.now), query, p, w.now)
	if diff := pageDiff(got, want); diff != "" {
		t.Errorf("%s: GET %s: %s", c.name, path, diff)
	}
}

// pageDiff says where got differs from want, "" when it does not.
func pageDiff(got, want modelPage) string {
	str := func(s *string) string {
		if s == nil {
			return "null"
		}
		return *s
	}
	switch {
	case got.Count != want.Count:
		return fmt.Sprintf("count %d, want %d", got.Count, want.Count)
	case str(got.Next) != str(want.Next):
		return fmt.Sprintf("next %s, want %s", str(got.Next), str(want.Next))
	case str(got.Previous) != str(want.Previous):
		return fmt.Sprintf("previous %s, want %s", str(got.Previous), str(want.Previous))
	case len(got.Results) != len(want.Results):
		return fmt.Sprintf("%d results, want %d", len(got.Results), len(want.Results))
	}
	for i := range got.Results {
		if got.Results[i] != want.Results[i] {
			return fmt.Sprintf("result %d: %+v, want %+v", i, got.Results[i], want.Results[i])
		}
	}
	return ""
}
