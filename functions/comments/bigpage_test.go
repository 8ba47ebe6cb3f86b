package comments_test

import (
	"encoding/json"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/reportingplatform/api/shared/httpapi"
)

// TestPagesOfLongCommentsFitALambdaResponse: a comment may hold 100,000 characters, and "<" is six
// bytes once aws-lambda-go writes the body as a JSON string, so twenty such comments (the default page)
// are 12 MB where a Lambda response may be 6 MB: the invocation would fail and API Gateway answer 502.
// A page that large is served smaller, on the grid of its offset, and its links carry the smaller
// page_size: following them reads every comment once, in order, as small pages do.
func TestPagesOfLongCommentsFitALambdaResponse(t *testing.T) {
	e := setup(t)
	th := e.thread("report")
	for range 30 {
		th.add("", "")
	}
	for i := range th.comments {
		th.comments[i].Text = strings.Repeat("<", 100_000)
	}
	th.load(t)

	// The order of reference: pages of 5 (3 MB each as Lambda writes them) are never made smaller.
	var want []string
	for path := listPath("report", th.objectID, "page_size=5"); path != ""; {
		ids, next := e.bigPage(t, path)
		want, path = append(want, ids...), next
	}
	if len(want) != 30 {
		t.Fatalf("pages of 5 gave %d comments, want 30", len(want))
	}

	t.Run("page 1 at the default size", func(t *testing.T) {
		ids, next := e.bigPage(t, listPath("report", th.objectID))
		// 8 comments of 600 KB and the envelope fit 5 MB; 9 do not.
		if !slices.Equal(ids, want[:8]) {
			t.Fatalf("page 1: %d comments %v, want the first 8", len(ids), ids)
		}
		if got := query(t, next); got.Get("page") != "2" || got.Get("page_size") != "8" {
			t.Fatalf("next %s, want page 2 of size 8", next)
		}
		var all []string
		for path := listPath("report", th.objectID); path != ""; {
			ids, next := e.bigPage(t, path)
			all, path = append(all, ids...), next
		}
		if !slices.Equal(all, want) {
			t.Fatalf("following the links read %d comments %v, want the 30 of the small pages in order", len(all), all)
		}
	})
	t.Run("a later page stays on its offset's grid", func(t *testing.T) {
		// Page 2 of 12 starts at 12: of the sizes that divide 12, 6 is the largest that fits.
		body := e.bigBody(t, listPath("report", th.objectID, "page=2", "page_size=12"))
		ids := idsOf(t, body)
		if !slices.Equal(ids, want[12:18]) {
			t.Fatalf("page 2 of 12: %v, want comments 13 to 18", ids)
		}
		var env struct{ Next, Previous string }
		if err := json.Unmarshal(body, &env); err != nil {
			t.Fatal(err)
		}
		if n, p := query(t, env.Next), query(t, env.Previous); n.Get("page") != "4" || n.Get("page_size") != "6" ||
			p.Get("page") != "2" || p.Get("page_size") != "6" {
			t.Fatalf("next %s, previous %s: want pages 4 and 2 of size 6", env.Next, env.Previous)
		}
	})
}

// bigBody gets a list page as staff and checks it fits a Lambda response.
func (e *env) bigBody(t *testing.T, path string) []byte {
	t.Helper()
	resp := e.do(t, "GET", path, "staff", "")
	if resp.Status != 200 {
		t.Fatalf("GET %s: %d %.200s", path, resp.Status, resp.Body)
	}
	asString, _ := json.Marshal(string(resp.Body))
	if len(asString) > httpapi.ResponseBudget {
		t.Fatalf("GET %s: %d bytes as Lambda writes the body, over the %d budget", path, len(asString),
			httpapi.ResponseBudget)
	}
	return resp.Body
}

// bigPage returns the ids of a page and the path of its next link ("" at the end).
func (e *env) bigPage(t *testing.T, path string) ([]string, string) {
	t.Helper()
	body := e.bigBody(t, path)
	var env struct{ Next *string }
	if err := json.Unmarshal(body, &env); err != nil {
		t.Fatal(err)
	}
	next := ""
	if env.Next != nil {
		u, err := url.Parse(*env.Next)
		if err != nil {
			t.Fatal(err)
		}
		next = u.RequestURI()
	}
	return idsOf(t, body), next
}

func idsOf(t *testing.T, body []byte) []string {
	t.Helper()
	var env struct{ Results []struct{ ID string } }
	if err := json.Unmarshal(body, &env); err != nil {
		t.Fatal(err)
	}
	ids := make([]string, len(env.Results))
	for i, r := range env.Results {
		ids[i] = r.ID
	}
	return ids
}

func query(t *testing.T, link string) url.Values {
	t.Helper()
	u, err := url.Parse(link)
	if err != nil {
		t.Fatalf("link %q: %v", link, err)
	}
	return u.Query()
}
