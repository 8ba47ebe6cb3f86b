package comments_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/google/uuid"
	"github.com/reportingplatform/api/infra/fixture"
	"github.com/reportingplatform/api/infra/testkit"
	"github.com/reportingplatform/api/shared/domain"
	"github.com/reportingplatform/api/shared/dynamo"
)

// describeCalls names each DynamoDB call since the last Reset by its operation, the index a Query
// read and the kinds of keys a read by key asked for ("BatchGetItem COMMENT×20 USER×1"), sorted, so
// that a test can say which calls a request made whatever the order parallel calls ended in.
func describeCalls(calls *testkit.Calls) []string {
	kinds := func(keys []map[string]types.AttributeValue) string {
		n := map[string]int{}
		for _, k := range keys {
			pk := k["PK"].(*types.AttributeValueMemberS).Value
			n[pk[:strings.IndexByte(pk, '#')]]++
		}
		var out []string
		for kind, count := range n {
			out = append(out, fmt.Sprintf("%s×%d", kind, count))
		}
		slices.Sort(out)
		return strings.Join(out, " ")
	}
	var out []string
	for _, in := range calls.Inputs() {
		switch in := in.(type) {
		case *dynamodb.QueryInput:
			out = append(out, "Query "+aws.ToString(in.IndexName))
		case *dynamodb.BatchGetItemInput:
			for _, ka := range in.RequestItems {
				out = append(out, "BatchGetItem "+kinds(ka.Keys))
			}
		case *dynamodb.GetItemInput:
			out = append(out, "GetItem "+kinds([]map[string]types.AttributeValue{in.Key}))
		default:
			out = append(out, fmt.Sprintf("%T", in))
		}
	}
	slices.Sort(out)
	return out
}

// TestFirstPageIsOneRoundTripAfterTheSession holds page 1 to its calls: the session with the
// counter beside the keys-only Query of GSI1 (what SPEC §9 allows before the token is verified), then
// one round trip: the page's comments in one Query of GSI6, beside its commenters other than the
// caller (none, one GetItem, or one BatchGetItem), and no comment read by key.
func TestFirstPageIsOneRoundTripAfterTheSession(t *testing.T) {
	e := setup(t)
	session := "BatchGetItem OBJECT×1 TOKEN×1 USER×1"
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
			wantCalls := append([]string{session, "Query GSI1"}, tc.round2...)
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
			wantCalls := []string{"BatchGetItem OBJECT×2 TOKEN×1 USER×1", "Query GSI2", tc.round2}
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
	for _, c := range byGone {
		created, err := time.Parse(time.RFC3339Nano, *c.CreatedAt)
		if err != nil {
			t.Fatal(err)
		}
		dc := domain.Comment{ID: c.ID, OrganizationID: th.org, CommenterID: gone, ContentType: c.ContentType,
			ObjectID: c.ObjectID, Tag: c.Tag, Text: c.Text, CreatedAt: created, UpdatedAt: e.loadedAt}
		if err := e.db.Store.PutComments(context.Background(), []dynamo.FixtureComment{{Comment: dc}}); err != nil {
			t.Fatal(err)
		}
	}
	th.comments = append(th.comments, byGone...)
	slices.SortFunc(th.comments, func(a, b fixture.Comment) int { return strings.Compare(*a.CreatedAt, *b.CreatedAt) })
	shown := func(c fixture.Comment) map[string]any {
		if c.CommenterID != gone {
			return e.readJSON(t, c)
		}
		out := e.readJSON(t, c)
		out["commenter"] = map[string]any{"id": gone, "full_name": "", "email": "", "first_name": "", "last_name": ""}
		return out
	}
	check := func(t *testing.T, comments []fixture.Comment, extra ...string) {
		t.Helper()
		resp := e.do(t, "GET", listPath("report", th.objectID, extra...), "amy", "")
		if resp.Status != 200 {
			t.Fatalf("%d %s", resp.Status, resp.Body)
		}
		body := resp.Object(t)
		results := body["results"].([]any)
		if len(results) != len(comments) {
			t.Fatalf("%d results, want %d: %s", len(results), len(comments), resp.Body)
		}
		for i, c := range comments {
			want := canonical(t, shown(c))
			if got := canonical(t, results[i]); got != want {
				t.Fatalf("result %d:\n got %s\nwant %s", i, got, want)
			}
		}
	}
	all := th.comments
	reversed := slices.Clone(all)
	slices.Reverse(reversed)
	tagged := taggedWith(all, "t")
	t.Run("page 1", func(t *testing.T) { check(t, all[:20]) })
	t.Run("newest first", func(t *testing.T) { check(t, reversed[:20], "ordering=-created_at") })
	t.Run("page 3", func(t *testing.T) { check(t, all[40:], "page=3") })
	t.Run("a page of 100", func(t *testing.T) { check(t, all, "page_size=100") })
	t.Run("a tag's page", func(t *testing.T) { check(t, tagged, "tag=t") })
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
		want := slices.Concat(all[:1], []fixture.Comment{edited}, all[2:4], all[6:22])
		resp := e.do(t, "GET", listPath("report", th.objectID), "amy", "")
		if resp.Status != 200 {
			t.Fatalf("%d %s", resp.Status, resp.Body)
		}
		results := resp.Object(t)["results"].([]any)
		if len(results) != len(want) {
			t.Fatalf("%d results, want %d", len(results), len(want))
		}
		for i, c := range want {
			exp := shown(c)
			if c.ID == edited.ID {
				exp["updated_at"] = domain.FormatTime(e.now)
			}
			if got, w := canonical(t, results[i]), canonical(t, exp); got != w {
				t.Fatalf("result %d:\n got %s\nwant %s", i, got, w)
			}
		}
	})
}

// canonical is v as JSON with its objects' keys sorted, for comparing a decoded body with what it
// should be.
func canonical(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestPageOfCommentsWrittenBeforeTheShownIndex: GSI6 is added to a table that holds comments already
// (the deployed stack's, or a developer's local one, to which fixture.EnsureTable adds it as make run
// starts), and DynamoDB fills it from attributes every comment has. Comments written while the table
// had no GSI6 show on page 1 as they are, read in the same calls as any others.
func TestPageOfCommentsWrittenBeforeTheShownIndex(t *testing.T) {
	base := testkit.NewDB(t)
	ctx := context.Background()
	table := base.Table + "-before"
	def := dynamo.TableDefinition(table)
	def.StreamSpecification = nil
	n := len(def.GlobalSecondaryIndexes)
	if testkit.WithoutIndex(def, "GSI6"); len(def.GlobalSecondaryIndexes) != n-1 {
		t.Fatal("the table definition has no GSI6")
	}
	if _, err := base.Client.CreateTable(ctx, def); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_, _ = base.Client.DeleteTable(context.Background(), &dynamodb.DeleteTableInput{TableName: &table})
	})
	db := &testkit.DB{Client: base.Client, Table: table, Store: dynamo.New(base.Client, table), Calls: base.Calls}
	e := setupOn(t, db, db.Store)
	th := e.thread("report")
	for i := range 25 {
		th.add([]string{"", "t"}[i%2], "")
		th.comments[i].CommenterID = e.users[[]string{"alice", "amy", "bob"}[i%3]].ID
	}
	th.load(t)
	// What make run does with a table of the last design: the index is added, the data kept.
	if created, err := fixture.EnsureTable(ctx, base.Client, table); err != nil || created {
		t.Fatalf("EnsureTable = %v, %v; want the table kept and GSI6 added", created, err)
	}

	want := th.shown(t, 0, 20)
	e.warm(t)
	e.db.Calls.Reset()
	resp := e.do(t, "GET", listPath("report", th.objectID), "amy", "")
	masked(t, resp).Expect(t, 200, list(25, page2(th.objectID), nil, want...))
	wantCalls := []string{"BatchGetItem OBJECT×1 TOKEN×1 USER×1", "BatchGetItem USER×2", "Query GSI1", "Query GSI6"}
	if got := describeCalls(e.db.Calls); !slices.Equal(got, wantCalls) {
		t.Fatalf("calls %q, want %q", got, wantCalls)
	}
}

// warm makes the process read the table's continuation key (made by the table's first list), so that
// the calls a test counts next are those of the list alone.
func (e *env) warm(t *testing.T) {
	t.Helper()
	if resp := e.do(t, "GET", listPath("report", uuid.NewString()), "alice", ""); resp.Status != 200 {
		t.Fatalf("%d %s", resp.Status, resp.Body)
	}
}

// page2 is the next link of a list's page 1 (its continuation masked).
func page2(objectID string) *string {
	return str("http://127.0.0.1:3000/api/v1/comments/?content_type=report&cursor=C&object_id=" + objectID + "&page=2")
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
	wantCalls := []string{byKey, "BatchGetItem OBJECT×1 TOKEN×1 USER×1"}
	for range gsi1 {
		wantCalls = append(wantCalls, "Query GSI1")
	}
	wantCalls = append(wantCalls, "Query GSI6")
	if !slices.Equal(calls, wantCalls) || !strings.HasPrefix(byKey, "BatchGetItem COMMENT×") || strings.Contains(byKey, "USER") {
		t.Fatalf("calls %q, want the session, the Queries and one BatchGetItem of comments alone", calls)
	}
}

// shown is the read shape of th's comments from to to, as a page must show them.
func (th *thread) shown(t *testing.T, from, to int) []map[string]any {
	t.Helper()
	out := make([]map[string]any, 0, to-from)
	for _, c := range th.comments[from:to] {
		out = append(out, th.e.readJSON(t, c))
	}
	return out
}

// TestPageOfAnObjectWhoseIDAnotherTypeShares: GSI6's partition is the object id alone, so the comments
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
