package comments_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/google/uuid"
	"github.com/reportingplatform/api/infra/fixture"
	"github.com/reportingplatform/api/infra/testkit"
	"github.com/reportingplatform/api/shared/domain"
	"github.com/reportingplatform/api/shared/dynamo"
)

// TestFirstPageIsOneRoundTripAfterTheSession holds page 1 to its calls: the session with the
// counter beside the keys-only Query of GSI1 (what SPEC §9 allows before the token is verified), then
// one round trip: the page's comments in one Query of GSI6, beside its commenters other than the
// caller (none, one GetItem, or one BatchGetItem), and no comment read by key.
func TestFirstPageIsOneRoundTripAfterTheSession(t *testing.T) {
	e := setup(t)
	for _, tc := range []struct {
		name       string
		commenters []string
		caller     string
		round2     []string
	}{
		{"the caller's own comments", []string{"alice"}, "alice", []string{"Query GSI6"}},
		{"the caller and one other", []string{"alice", "amy"}, "alice", []string{"GetItem USER×1", "Query GSI6"}},
		{"another's comments only", []string{"alice"}, "amy", []string{"GetItem USER×1", "Query GSI6"}},
		{"three others", []string{"alice", "amy", "bob", "staff"}, "amy",
			[]string{"BatchGetItem USER×3", "Query GSI6"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			th := e.thread("report")
			for i := range 45 {
				th.add([]string{"", "t"}[i%2], "")
				th.comments[i].CommenterID = e.users[tc.commenters[i%len(tc.commenters)]].ID
			}
			th.load(t)
			want := th.shown(t, 0, 20)
			e.warm(t)
			e.db.Calls.Reset()
			e.db.Calls.SimulateLatency(testkit.BudgetLatency)
			resp := e.do(t, "GET", listPath("report", th.objectID), tc.caller, "")
			masked(t, resp).Expect(t, 200, list(45, page2(th.objectID), nil, want...))
			if got := e.db.Calls.Sequential(); got != 2 {
				t.Fatalf("%d sequential calls %v, want 2", got, e.db.Calls)
			}
			wantCalls := append([]string{sessionCall, "Query GSI1"}, tc.round2...)
			slices.Sort(wantCalls)
			if got := describeCalls(e.db.Calls); !slices.Equal(got, wantCalls) {
				t.Fatalf("calls %q, want %q", got, wantCalls)
			}
		})
	}
}

// TestATagsPageReadsItsRangeUnlessTheTagIsRare: after the session, a tag's page reads the range of
// GSI6 its comments span among the object's others, in one Query of at most twice the entries the
// counters say they span, when that is at most 8 entries per comment shown; a rarer tag's page reads
// its comments by key. Either way it is one round trip after the session, and the page as stored.
func TestATagsPageReadsItsRangeUnlessTheTagIsRare(t *testing.T) {
	e := setup(t)
	for _, tc := range []struct {
		name   string
		every  int // one comment in every so many has the tag
		round2 string
		limit  int32 // the Query's Limit: twice the 77 entries 20 comments of 50 in 200 are expected to span
	}{
		{"one comment in two", 2, "Query GSI6", 2 * 39},
		{"one in four", 4, "Query GSI6", 2 * 77},
		{"one in five: by key", 5, "BatchGetItem COMMENT×20", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			th := e.thread("report")
			for i := range 200 {
				tag := ""
				if i%tc.every == tc.every-1 {
					tag = "t"
				}
				th.add(tag, "")
			}
			th.load(t)
			tagged := taggedWith(th.comments, "t")
			want := make([]map[string]any, 20)
			for i, c := range tagged[:20] {
				want[i] = e.readJSON(t, c)
			}
			e.warm(t)
			e.db.Calls.Reset()
			e.db.Calls.SimulateLatency(testkit.BudgetLatency)
			resp := e.do(t, "GET", listPath("report", th.objectID, "tag=t"), "alice", "")
			next := str(*page2(th.objectID) + "&tag=t")
			masked(t, resp).Expect(t, 200, list(len(tagged), next, nil, want...))
			if got := e.db.Calls.Sequential(); got != 2 {
				t.Fatalf("%d sequential calls %v, want 2", got, e.db.Calls)
			}
			wantCalls := []string{sessionTagCall, "Query GSI2", tc.round2}
			slices.Sort(wantCalls)
			if got := describeCalls(e.db.Calls); !slices.Equal(got, wantCalls) {
				t.Fatalf("calls %q, want %q", got, wantCalls)
			}
			for _, in := range e.db.Calls.Inputs() {
				if q, ok := in.(*dynamodb.QueryInput); ok && aws.ToString(q.IndexName) == "GSI6" &&
					aws.ToInt32(q.Limit) != tc.limit {
					t.Fatalf("the Query of GSI6 has Limit %d, want %d", aws.ToInt32(q.Limit), tc.limit)
				}
			}
		})
	}
}

// TestPageShowsWhatIsStored holds the page read from GSI6 to what the comments and their commenters
// are: every field of the read shape, tags, replies, commenters without names and one whose user is
// gone (shown by id alone, as a single comment is), in both orders, a second page, a page of 100 and a
// tag's page (read from the range it spans), and after edits, a move and a delete made through the API.
func TestPageShowsWhatIsStored(t *testing.T) {
	e := setup(t)
	th := e.thread("report")
	gone := uuid.NewString()
	authors := []string{"alice", "amy", "bob", "staff", ""}
	for i := range 45 {
		parent := ""
		// Replies between comments the loader writes (not those by the user who is gone).
		if i%7 == 3 && i%len(authors) != len(authors)-1 && (i-1)%len(authors) != len(authors)-1 {
			parent = th.comments[i-1].ID
		}
		th.add([]string{"", "t", "u"}[i%3], parent)
		if a := authors[i%len(authors)]; a != "" {
			th.comments[i].CommenterID = e.users[a].ID
		} else {
			th.comments[i].CommenterID = gone
		}
	}
	// The loader refuses a commenter who is not a user; a user removed since is what this stands for.
	var byGone []fixture.Comment
	for _, c := range th.comments {
		if c.CommenterID == gone {
			byGone = append(byGone, c)
		}
	}
	th.comments = slices.DeleteFunc(th.comments, func(c fixture.Comment) bool { return c.CommenterID == gone })
	th.load(t)
	var written []dynamo.FixtureComment
	for _, c := range byGone {
		created, err := time.Parse(time.RFC3339Nano, *c.CreatedAt)
		if err != nil {
			t.Fatal(err)
		}
		written = append(written, dynamo.FixtureComment{Comment: domain.Comment{ID: c.ID, OrganizationID: th.org,
			CommenterID: gone, ContentType: c.ContentType, ObjectID: c.ObjectID, Tag: c.Tag, Text: c.Text,
			CreatedAt: created, UpdatedAt: e.loadedAt}})
	}
	if err := e.db.Store.PutComments(context.Background(), written); err != nil {
		t.Fatal(err)
	}
	th.comments = append(th.comments, byGone...)
	slices.SortFunc(th.comments, func(a, b fixture.Comment) int { return strings.Compare(*a.CreatedAt, *b.CreatedAt) })
	// The read shapes of comments, one whose user is gone shown by its id alone.
	shapes := func(comments []fixture.Comment) []map[string]any {
		out := make([]map[string]any, len(comments))
		for i, c := range comments {
			out[i] = e.readJSON(t, c)
			if c.CommenterID == gone {
				out[i]["commenter"] = map[string]any{"id": gone, "full_name": "", "email": "", "first_name": "",
					"last_name": ""}
			}
		}
		return out
	}
	check := func(t *testing.T, want []map[string]any, extra ...string) {
		t.Helper()
		resp := e.do(t, "GET", listPath("report", th.objectID, extra...), "amy", "")
		if resp.Status != 200 {
			t.Fatalf("%d %s", resp.Status, resp.Body)
		}
		results := resp.Object(t)["results"].([]any)
		if len(results) != len(want) {
			t.Fatalf("%d results, want %d: %s", len(results), len(want), resp.Body)
		}
		for i := range want {
			if got, w := testkit.MustJSON(t, results[i]), testkit.MustJSON(t, want[i]); got != w {
				t.Fatalf("result %d:\n got %s\nwant %s", i, got, w)
			}
		}
	}
	all := th.comments
	reversed := slices.Clone(all)
	slices.Reverse(reversed)
	tagged := taggedWith(all, "t")
	t.Run("page 1", func(t *testing.T) { check(t, shapes(all[:20])) })
	t.Run("newest first", func(t *testing.T) { check(t, shapes(reversed[:20]), "ordering=-created_at") })
	t.Run("page 3", func(t *testing.T) { check(t, shapes(all[40:]), "page=3") })
	t.Run("a page of 100", func(t *testing.T) { check(t, shapes(all), "page_size=100") })
	t.Run("a tag's page", func(t *testing.T) { check(t, shapes(tagged), "tag=t") })
	t.Run("after an edit, a move and a delete", func(t *testing.T) {
		edited, moved, deleted := all[1], all[4], all[5]
		if resp := e.do(t, "PATCH", itemPath(edited.ID), "staff", `{"text": "edited", "tag": "v"}`); resp.Status != 200 {
			t.Fatalf("PATCH %d %s", resp.Status, resp.Body)
		}
		edited.Text, edited.Tag = "edited", str("v")
		body := `{"content_type": "report", "object_id": "` + uuid.NewString() + `"}`
		if resp := e.do(t, "PUT", itemPath(moved.ID), "staff", body); resp.Status != 200 {
			t.Fatalf("PUT %d %s", resp.Status, resp.Body)
		}
		if resp := e.do(t, "DELETE", itemPath(deleted.ID), "staff", ""); resp.Status != 204 {
			t.Fatalf("DELETE %d %s", resp.Status, resp.Body)
		}
		want := shapes(slices.Concat(all[:1], []fixture.Comment{edited}, all[2:4], all[6:22]))
		want[1]["updated_at"] = domain.FormatTime(e.now)
		check(t, want)
	})
}

// TestPageOfCommentsWrittenBeforeTheShownIndex: GSI6 is added to a table that holds comments already
// (the deployed stack's, or a developer's local one, to which fixture.EnsureTable adds it as make run
// starts), and DynamoDB fills it from attributes every comment has. Comments written while the table
// had no GSI6 show on page 1 as they are, read in the same calls as any others.
func TestPageOfCommentsWrittenBeforeTheShownIndex(t *testing.T) {
	db := testkit.NewDBWithout(t, "GSI6")
	e := setupOn(t, db, db.Store)
	th := e.thread("report")
	for i := range 25 {
		th.add([]string{"", "t"}[i%2], "")
		th.comments[i].CommenterID = e.users[[]string{"alice", "amy", "bob"}[i%3]].ID
	}
	th.load(t)
	// What make run does with a table of the last design: the index is added, the data kept.
	if created, err := fixture.EnsureTable(context.Background(), db.Client, db.Table); err != nil || created {
		t.Fatalf("EnsureTable = %v, %v; want the table kept and GSI6 added", created, err)
	}

	want := th.shown(t, 0, 20)
	e.warm(t)
	e.db.Calls.Reset()
	resp := e.do(t, "GET", listPath("report", th.objectID), "amy", "")
	masked(t, resp).Expect(t, 200, list(25, page2(th.objectID), nil, want...))
	wantCalls := []string{sessionCall, "BatchGetItem USER×2", "Query GSI1", "Query GSI6"}
	if got := describeCalls(e.db.Calls); !slices.Equal(got, wantCalls) {
		t.Fatalf("calls %q, want %q", got, wantCalls)
	}
}

// TestPageOverAMegabyteTakesOneReadMore: a Query answers at most 1 MB, so a page of long comments
// gets what it did not return by key, in one round trip more, and shows every comment in order.
func TestPageOverAMegabyteTakesOneReadMore(t *testing.T) {
	e := setup(t)
	th := e.thread("report")
	for i := range 12 {
		th.add("", "")
		th.comments[i].Text = strings.Repeat(string(rune('a'+i)), domain.MaxCommentText)
	}
	th.load(t)
	want := th.shown(t, 0, 12)
	e.warm(t)
	e.db.Calls.Reset()
	e.db.Calls.SimulateLatency(testkit.BudgetLatency)
	resp := e.do(t, "GET", listPath("report", th.objectID), "alice", "")
	resp.Expect(t, 200, list(12, nil, nil, want...))
	// DynamoDB Local stops a Query of GSI1 at 1 MB of the items' size, not the entries': it may take a
	// Query more, one after another, before the page.
	calls := describeCalls(e.db.Calls)
	gsi1 := 0
	for _, c := range calls {
		if c == "Query GSI1" {
			gsi1++
		}
	}
	if got := e.db.Calls.Sequential(); got != gsi1+2 {
		t.Fatalf("%d sequential calls %q, want %d", got, calls, gsi1+2)
	}
	byKey := calls[0] // sorted: the read by key of what the Query did not return comes first
	wantCalls := []string{byKey, sessionCall}
	for range gsi1 {
		wantCalls = append(wantCalls, "Query GSI1")
	}
	wantCalls = append(wantCalls, "Query GSI6")
	if !slices.Equal(calls, wantCalls) || !strings.HasPrefix(byKey, "BatchGetItem COMMENT×") || strings.Contains(byKey, "USER") {
		t.Fatalf("calls %q, want the session, the Queries and one BatchGetItem of comments alone", calls)
	}
}

// of a dataset configuration and of a report with the same id, written at interleaved times, share
// it. Each list shows its own alone, in order; a report's comment that the other's took the place of
// under the Query's Limit is read by key.
func TestPageOfAnObjectWhoseIDAnotherTypeShares(t *testing.T) {
	e := setup(t)
	report, config := e.thread("report"), e.thread("datasetconfiguration")
	config.objectID = report.objectID
	config.base = report.base.Add(500 * time.Millisecond)
	for range 30 {
		report.add("", "")
		config.add("", "")
	}
	e.load(t, fixture.File{Comments: append(slices.Clone(report.comments), config.comments...)})
	e.warm(t)
	for _, th := range []*thread{report, config} {
		e.db.Calls.Reset()
		resp := e.do(t, "GET", listPath(th.contentType, th.objectID), "amy", "")
		next := "http://127.0.0.1:3000/api/v1/comments/?content_type=" + th.contentType + "&cursor=C&object_id=" +
			th.objectID + "&page=2"
		masked(t, resp).Expect(t, 200, list(30, &next, nil, th.shown(t, 0, 20)...))
		calls := describeCalls(e.db.Calls)
		if !slices.Contains(calls, "Query GSI6") || !slices.ContainsFunc(calls, func(c string) bool {
			return strings.HasPrefix(c, "BatchGetItem COMMENT×")
		}) {
			t.Fatalf("calls %q, want the Query of GSI6, then the comments it did not return by key", calls)
		}
	}
}
