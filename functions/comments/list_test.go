package comments_test

import (
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/reportingplatform/api/infra/fixture"
	"github.com/reportingplatform/api/infra/testkit"
)

func TestListQueryValidation(t *testing.T) {
	e := setup(t)
	th := e.thread("report")
	c := th.add("", "")
	th.load(t)
	one := list(1, nil, nil, e.readJSON(t, c))
	oid := th.objectID
	for _, tc := range []struct {
		name, query string
		status      int
		want        string
	}{
		{"nothing", "", 400, `{"content_type": ["This field is required."], "object_id": ["This field is required."]}`},
		{"no object_id", "content_type=report", 400, `{"object_id": ["This field is required."]}`},
		{"no content_type", "object_id=" + oid, 400, `{"content_type": ["This field is required."]}`},
		{"empty values are missing", "content_type=&object_id=", 400,
			`{"content_type": ["This field is required."], "object_id": ["This field is required."]}`},
		{"bad content_type", "content_type=Report&object_id=" + oid, 400,
			`{"content_type": ["Select a valid choice. Report is not one of the available choices."]}`},
		{"bad object_id", "content_type=report&object_id=42", 400, `{"object_id": ["Enter a valid UUID."]}`},
		{"both bad", "content_type=dataset&object_id=nope", 400,
			`{"content_type": ["Select a valid choice. dataset is not one of the available choices."], "object_id": ` +
				`["Enter a valid UUID."]}`},
		{"bad filter before bad page", "content_type=x&object_id=" + oid + "&page=0", 400,
			`{"content_type": ["Select a valid choice. x is not one of the available choices."]}`},
		{"last value of a repeated parameter", "content_type=nope&content_type=report&object_id=" + oid, 200, one},
		{"object_id without hyphens", "content_type=report&object_id=" + strings.ReplaceAll(oid, "-", ""), 200, one},
		{"object_id upper case in braces", "content_type=report&object_id=%7B" + strings.ToUpper(oid) + "%7D", 200, one},
		{"object_id as a URN, padded", "content_type=report&object_id=+urn:uuid:" + oid + "+", 200, one},
		{"other content type is another object", "content_type=datasetconfiguration&object_id=" + oid, 200,
			list(0, nil, nil)},
		{"unknown parameters ignored", "content_type=report&object_id=" + oid + "&search=x", 200, one},
		{"a NUL in the tag", "content_type=report&object_id=" + oid + "&tag=a%00", 400,
			`{"tag": ["Null characters are not allowed."]}`},
		{"a tag longer than any tag matches nothing",
			"content_type=report&object_id=" + oid + "&tag=" + strings.Repeat("t", 3000), 200, list(0, nil, nil)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e.do(t, "GET", "/api/v1/comments/?"+tc.query, "alice", "").Expect(t, tc.status, tc.want)
		})
	}
}

func TestListOrderingAndTagFilter(t *testing.T) {
	e := setup(t)
	th := e.thread("report_attitude")
	c0 := th.add("review", "")
	c1 := th.add("", c0.ID)
	c2 := th.add("review", "")
	c3 := th.add("other", c2.ID)
	// c4 and c5 are created at the same moment: ties go by id.
	c4, c5 := th.add("review", ""), th.add("", "")
	c5.CreatedAt = c4.CreatedAt
	th.comments[5] = c5
	if c5.ID < c4.ID {
		c4, c5 = c5, c4
	}
	th.load(t)
	all := []fixture.Comment{c0, c1, c2, c3, c4, c5}
	reversed := slices.Clone(all)
	slices.Reverse(reversed)
	reviewed := taggedWith(all, "review")
	reviewedDesc := slices.Clone(reviewed)
	slices.Reverse(reviewedDesc)
	for _, tc := range []struct {
		name  string
		extra []string
		want  []fixture.Comment
	}{
		{"default is oldest first, ties by id", nil, all},
		{"created_at", []string{"ordering=created_at"}, all},
		{"-created_at is the exact reverse", []string{"ordering=-created_at"}, reversed},
		{"unknown ordering ignored", []string{"ordering=text"}, all},
		{"first valid term of a list wins", []string{"ordering=text,+-created_at+,created_at"}, reversed},
		{"empty ordering", []string{"ordering="}, all},
		{"tag exact match", []string{"tag=review"}, reviewed},
		{"tag, newest first", []string{"tag=review", "ordering=-created_at"}, reviewedDesc},
		{"tag is case-sensitive", []string{"tag=Review"}, nil},
		{"tag padded by white space", []string{"tag=+other+"}, []fixture.Comment{c3}},
		{"empty tag is no filter", []string{"tag="}, all},
		{"unknown tag", []string{"tag=nothing"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want := []map[string]any{}
			for _, c := range tc.want {
				want = append(want, e.readJSON(t, c))
			}
			e.do(t, "GET", listPath("report_attitude", th.objectID, tc.extra...), "amy", "").
				Expect(t, 200, list(len(want), nil, nil, want...))
		})
	}
}

func TestListPagination(t *testing.T) {
	e := setup(t)
	th := e.thread("datasetconfiguration")
	for range 45 {
		th.add("", "")
	}
	th.load(t)
	empty := uuid.NewString()
	oid := th.objectID
	// Links carry a continuation (masked: its value is opaque), sorted among the other parameters.
	base := "http://127.0.0.1:3000/api/v1/comments/?content_type=datasetconfiguration&cursor=C&object_id=" + oid
	page := func(from, to int) []map[string]any {
		var out []map[string]any
		for _, c := range th.comments[from:to] {
			out = append(out, e.readJSON(t, c))
		}
		return out
	}
	desc := func(from, to int) []map[string]any {
		out := page(45-to, 45-from)
		slices.Reverse(out)
		return out
	}
	const invalid = `{"detail": "Invalid page."}`
	for _, tc := range []struct {
		name, path string
		status     int
		want       string
	}{
		{"page 1 by default", listPath("datasetconfiguration", oid), 200, list(45, str(base+"&page=2"), nil, page(0, 20)...)},
		{"page 2: previous drops page", listPath("datasetconfiguration", oid, "page=2"), 200,
			list(45, str(base+"&page=3"), str(base), page(20, 40)...)},
		{"page 3 is the last", listPath("datasetconfiguration", oid, "page=3"), 200,
			list(45, nil, str(base+"&page=2"), page(40, 45)...)},
		{"page=last", listPath("datasetconfiguration", oid, "page=last"), 200,
			list(45, nil, str(base+"&page=2"), page(40, 45)...)},
		{"page=last, newest first", listPath("datasetconfiguration", oid, "page=last", "ordering=-created_at"), 200,
			list(45, nil, str(base+"&ordering=-created_at&page=2"), desc(40, 45)...)},
		{"page 2, newest first", listPath("datasetconfiguration", oid, "ordering=-created_at", "page=2"), 200,
			list(45, str(base+"&ordering=-created_at&page=3"), str(base+"&ordering=-created_at"), desc(20, 40)...)},
		{"page_size", listPath("datasetconfiguration", oid, "page_size=10", "page=4"), 200,
			list(45, str(base+"&page=5&page_size=10"), str(base+"&page=3&page_size=10"), page(30, 40)...)},
		{"page_size above the maximum is 100", listPath("datasetconfiguration", oid, "page_size=1000"), 200,
			list(45, nil, nil, page(0, 45)...)},
		{"page_size not a positive integer is the default", listPath("datasetconfiguration", oid, "page_size=0"), 200,
			list(45, str(base+"&page=2&page_size=0"), nil, page(0, 20)...)},
		{"page_size garbage is the default", listPath("datasetconfiguration", oid, "page_size=ten"), 200,
			list(45, str(base+"&page=2&page_size=ten"), nil, page(0, 20)...)},
		{"page past the last", listPath("datasetconfiguration", oid, "page=4"), 404, invalid},
		{"page 0", listPath("datasetconfiguration", oid, "page=0"), 404, invalid},
		{"negative page", listPath("datasetconfiguration", oid, "page=-1"), 404, invalid},
		{"page not an integer", listPath("datasetconfiguration", oid, "page=two"), 404, invalid},
		{"huge page", listPath("datasetconfiguration", oid, "page=99999999999999999999"), 404, invalid},
		{"page past the end at page_size 1", listPath("datasetconfiguration", oid, "page=46", "page_size=1"), 404, invalid},
		{"empty list: page 1 is fine", listPath("report", empty), 200, list(0, nil, nil)},
		{"empty list: page=last is page 1", listPath("report", empty, "page=last"), 200, list(0, nil, nil)},
		{"empty list: page 2 is invalid", listPath("report", empty, "page=2"), 404, invalid},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp := e.do(t, "GET", tc.path, "alice", "")
			if resp.Status == 200 {
				resp = masked(t, resp)
			}
			resp.Expect(t, tc.status, tc.want)
		})
	}
	t.Run("every page at page_size 1", func(t *testing.T) {
		for n := 1; n <= 45; n++ {
			resp := e.do(t, "GET", listPath("datasetconfiguration", oid, "page_size=1", "page="+strconv.Itoa(n)), "alice", "")
			results := resp.Object(t)["results"].([]any)
			if len(results) != 1 || results[0].(map[string]any)["id"] != th.comments[n-1].ID {
				t.Fatalf("page %d of size 1: %s", n, resp.Body)
			}
		}
	})
	t.Run("envelope keys in DRF's order, read shape in the seed's", func(t *testing.T) {
		resp := e.do(t, "GET", listPath("datasetconfiguration", oid), "alice", "")
		if got := strings.Join(keysInOrder(t, resp.Body), ","); got != "count,next,previous,results" {
			t.Fatalf("envelope keys %s", got)
		}
	})
}

func TestListLinksBehindAPIGateway(t *testing.T) {
	e := setup(t)
	th := e.thread("report")
	for range 5 {
		th.add("t", "")
	}
	th.load(t)
	oid := th.objectID
	results := func(from, to int) []map[string]any {
		var out []map[string]any
		for _, c := range th.comments[from:to] {
			out = append(out, e.readJSON(t, c))
		}
		return out
	}
	const host = "abc.execute-api.eu-west-1.amazonaws.com"
	staged := "https://" + host + "/Prod/api/v1/comments/?content_type=report&cursor=C&object_id=" + oid
	local := "http://127.0.0.1:3000/api/v1/comments?content_type=report&cursor=C&object_id=" + oid
	for _, tc := range []struct {
		name, target, host, proto string
		want                      string
	}{
		{"stage prefix and https",
			"/Prod/api/v1/comments/?page_size=2&object_id=" + oid + "&tag=t&content_type=report&page=2",
			host, "https",
			list(5, str(staged+"&page=3&page_size=2&tag=t"), str(staged+"&page_size=2&tag=t"), results(2, 4)...)},
		{"custom domain, no stage", "/api/v1/comments/?content_type=report&object_id=" + oid + "&page_size=2",
			"api.example.com", "https",
			list(5,
				str("https://api.example.com/api/v1/comments/?content_type=report&cursor=C&object_id="+oid+"&page=2&page_size=2"),
				nil, results(0, 2)...)},
		{"localhost, no trailing slash, plain http",
			"/api/v1/comments?object_id=" + oid + "&content_type=report&page_size=2&page=3",
			"127.0.0.1:3000", "",
			list(5, nil, str(local+"&page=2&page_size=2"), results(4, 5)...)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req := testkit.Request{Method: "GET", Path: tc.target, Token: e.tokens["alice"], Host: tc.host}
			if tc.proto != "" {
				req.Header = map[string]string{"X-Forwarded-Proto": tc.proto}
			}
			masked(t, testkit.Do(t, e.gw, req)).Expect(t, 200, tc.want)
		})
	}
}

func TestListVisibility(t *testing.T) {
	e := setup(t)
	th := e.thread("report")
	a, b := th.add("", ""), th.add("x", "")
	th.load(t)
	visible := list(2, nil, nil, e.readJSON(t, a), e.readJSON(t, b))
	for _, tc := range []struct {
		role, extra, want string
		status            int
	}{
		{"staff", "", visible, 200},
		{"alice", "", visible, 200},
		{"amy", "", visible, 200},
		{"bob", "", list(0, nil, nil), 200},
		{"bob", "tag=x", list(0, nil, nil), 200},
		{"olga", "", list(0, nil, nil), 200},
		{"olga", "page=2", `{"detail": "Invalid page."}`, 404},
	} {
		t.Run(tc.role+" "+tc.extra, func(t *testing.T) {
			var extra []string
			if tc.extra != "" {
				extra = append(extra, tc.extra)
			}
			e.do(t, "GET", listPath("report", th.objectID, extra...), tc.role, "").Expect(t, tc.status, tc.want)
		})
	}
}

func TestListNeedsAuthentication(t *testing.T) {
	e := setup(t)
	path := listPath("report", uuid.NewString())
	for _, tc := range []struct{ name, header, want string }{
		{"no header", "", `{"detail": "Authentication credentials were not provided."}`},
		{"bad token", "Bearer nope", `{"detail": "Invalid token."}`},
		{"empty bearer", "Bearer", `{"detail": "Invalid token header. No credentials provided."}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req := testkit.Request{Method: "GET", Path: path}
			if tc.header != "" {
				req.Header = map[string]string{"Authorization": tc.header}
			}
			resp := testkit.Do(t, e.gw, req)
			resp.Expect(t, 401, tc.want)
			if resp.Header.Get("WWW-Authenticate") != `Bearer realm="api"` {
				t.Fatalf("WWW-Authenticate %q", resp.Header.Get("WWW-Authenticate"))
			}
		})
	}
	t.Run("authentication before the filters", func(t *testing.T) {
		e.do(t, "GET", "/api/v1/comments/", "", "").Expect(t, 401,
			`{"detail": "Authentication credentials were not provided."}`)
	})
	t.Run("other methods", func(t *testing.T) {
		resp := e.do(t, "PUT", "/api/v1/comments/", "alice", `{}`)
		resp.Expect(t, 405, `{"detail": "Method \"PUT\" not allowed."}`)
		if resp.Header.Get("Allow") != "GET, HEAD, POST" {
			t.Fatalf("Allow %q", resp.Header.Get("Allow"))
		}
	})
}
