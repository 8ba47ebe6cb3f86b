package comments_test

import (
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/reportingplatform/api/functions/comments"
	"github.com/reportingplatform/api/infra/testkit"
)

// TestCallBudget holds every operation to its sequential DynamoDB round trips, authentication
// included (it is read in the same call as the first data): list 2 (3 for a page deeper than a first
// page's 100 entries, whose index read waits for the session; 2 for a page a link's continuation
// names), retrieve 2 (1 for the commenter's own
// comment), PUT and PATCH 2 (3 when the body names a parent but no text: the comment is read with its
// text, the parent without, so not in one call). Parallel calls count once (Calls.Sequential); the
// count is exact.
func TestCallBudget(t *testing.T) {
	e := setup(t)
	th := e.thread("report")
	root := th.add("t", "")
	reply := th.add("t", root.ID)
	for range 100 {
		th.add("t", "")
	}
	lone := th.add("", "")
	other := th.add("", "")
	chain1 := th.add("", "")
	chain2 := th.add("", chain1.ID)
	chain3 := th.add("", chain2.ID)
	mover := th.add("", "")
	leaf := th.add("", "")
	th.load(t)
	target := e.thread("report")
	onTarget := target.add("", "")
	target.load(t)
	oid := th.objectID

	// The table's first list ever makes the continuation key that signs its links (a GetItem that finds
	// none, then a conditional PutItem): one round trip more, once for the table. The process keeps it.
	t.Run("a forged token's list makes no continuation key", func(t *testing.T) {
		e.db.Calls.Reset()
		resp := testkit.Do(t, e.gw, testkit.Request{Method: "GET", Path: listPath("report", oid),
			Token: strings.Repeat("f", 40)})
		if resp.Status != 401 || string(resp.Body) != `{"detail":"Invalid token."}` {
			t.Fatalf("%d %s", resp.Status, resp.Body)
		}
		if ops := e.db.Calls.Ops(); slices.Contains(ops, "PutItem") {
			t.Fatalf("a request with a forged token wrote: %v", ops)
		}
	})
	t.Run("the table's first list makes the continuation key", func(t *testing.T) {
		e.db.Calls.Reset()
		e.db.Calls.SimulateLatency(testkit.BudgetLatency)
		if resp := e.do(t, "GET", listPath("report", oid), "alice", ""); resp.Status != 200 {
			t.Fatalf("%d %s", resp.Status, resp.Body)
		}
		if got := e.db.Calls.Sequential(); got != 3 || !slices.Contains(e.db.Calls.Ops(), "PutItem") {
			t.Fatalf("%d sequential calls %v, want 3 with the key's PutItem", got, e.db.Calls)
		}
	})

	for _, tc := range []struct {
		name, method, path, role, body string
		status, budget                 int
	}{
		{"list page 1", "GET", listPath("report", oid), "alice", "", 200, 2},
		{"list with tag, newest first, page 2", "GET",
			listPath("report", oid, "tag=t", "ordering=-created_at", "page=2", "page_size=10"), "alice", "", 200, 2},
		{"list page 11 of 10: its 110 entries wait for the session", "GET",
			listPath("report", oid, "page=11", "page_size=10"), "alice", "", 200, 3},
		{"list last page", "GET", listPath("report", oid, "page=last", "page_size=7"), "alice", "", 200, 2},
		{"list by staff", "GET", listPath("report", oid), "staff", "", 200, 2},
		{"list hidden from the caller", "GET", listPath("report", oid), "bob", "", 200, 1},
		{"list of an empty object", "GET", listPath("report", uuid.NewString()), "alice", "", 200, 1},
		{"list past the last page", "GET", listPath("report", oid, "page=9"), "alice", "", 404, 1},
		{"retrieve", "GET", itemPath(reply.ID), "amy", "", 200, 2},
		{"retrieve one's own", "GET", itemPath(lone.ID), "alice", "", 200, 1},
		{"retrieve hidden", "GET", itemPath(reply.ID), "bob", "", 404, 1},
		{"PATCH text", "PATCH", itemPath(lone.ID), "alice", `{"text": "x"}`, 200, 2},
		{"PATCH tag", "PATCH", itemPath(lone.ID), "alice", `{"tag": "u"}`, 200, 2},
		{"PATCH parent", "PATCH", itemPath(lone.ID), "alice", `{"parent": "` + root.ID + `"}`, 200, 3},
		{"PATCH parent and text", "PATCH", itemPath(lone.ID), "alice",
			`{"parent": "` + chain3.ID + `", "text": "y"}`, 200, 2},
		{"PUT move with a new parent", "PUT", itemPath(lone.ID), "alice",
			`{"content_type": "report", "object_id": "` + target.objectID + `", "parent": "` + onTarget.ID +
				`", "tag": "v"}`, 200, 3},
		{"PUT move with a new parent and text", "PUT", itemPath(mover.ID), "alice",
			`{"content_type": "report", "object_id": "` + target.objectID + `", "parent": "` + onTarget.ID +
				`", "text": "z"}`, 200, 2},
		{"PUT move to a new object", "PUT", itemPath(other.ID), "staff",
			`{"content_type": "datasetconfiguration", "object_id": "` + uuid.NewString() + `"}`, 200, 2},
		// Only object_id: the target's counter is known once the comment (its content type) is.
		{"PATCH move by object_id alone", "PATCH", itemPath(mover.ID), "alice",
			`{"object_id": "` + uuid.NewString() + `", "parent": null}`, 200, 3},
		{"PATCH move by object_id alone, a root", "PATCH", itemPath(other.ID), "staff",
			`{"object_id": "` + uuid.NewString() + `"}`, 200, 3},
		{"PATCH refused by a rule", "PATCH", itemPath(root.ID), "alice",
			`{"content_type": "report", "object_id": "` + target.objectID + `"}`, 400, 1},
		{"PATCH forbidden", "PATCH", itemPath(reply.ID), "amy", `{"text": "x"}`, 403, 1},
		{"POST a reply", "POST", "/api/v1/comments/", "alice",
			`{"content_type": "report", "object_id": "` + oid + `", "text": "x", "tag": "t", "parent": "` + root.ID +
				`"}`, 201, 2},
		{"POST on a new object", "POST", "/api/v1/comments/", "staff",
			`{"content_type": "report", "object_id": "` + uuid.NewString() + `", "text": "x", "organization_id": "` +
				e.orgB + `"}`, 201, 2},
		{"POST refused", "POST", "/api/v1/comments/", "bob",
			`{"content_type": "report", "object_id": "` + oid + `", "text": "x"}`, 400, 1},
		{"DELETE a reply", "DELETE", itemPath(lone.ID), "alice", "", 204, 2},
		{"DELETE refused", "DELETE", itemPath(chain1.ID), "alice", "", 400, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e.db.Calls.Reset()
			e.db.Calls.SimulateLatency(testkit.BudgetLatency)
			resp := e.do(t, tc.method, tc.path, tc.role, tc.body)
			if resp.Status != tc.status {
				t.Fatalf("status %d, want %d: %s", resp.Status, tc.status, resp.Body)
			}
			if got := e.db.Calls.Sequential(); got != tc.budget {
				t.Fatalf("%d sequential calls %v, want %d", got, e.db.Calls, tc.budget)
			}
			t.Logf("%d sequential: %v", e.db.Calls.Sequential(), e.db.Calls)
		})
	}
	// A page reached by a link's continuation costs what a first page costs: its Query goes out with the
	// session, but at page_size 100, whose 101 entries are more than SPEC §9 lets go out before the
	// token is verified. A process that does not have the key yet reads it beside the session, and
	// checks the continuation after: one round trip more, once per process.
	linked := func(t *testing.T, path string) string {
		t.Helper()
		u, err := url.Parse(*next(t, e.do(t, "GET", path, "alice", "")))
		if err != nil {
			t.Fatal(err)
		}
		return u.RequestURI()
	}
	for _, tc := range []struct {
		name   string
		gw     http.Handler
		path   string
		budget int
	}{
		{"list by a next link", e.gw, linked(t, listPath("report", oid, "tag=t", "page=3", "page_size=10")), 2},
		{"list by a next link, page_size 100", e.gw, linked(t, listPath("report", oid, "page_size=100")), 3},
		{"a new process's first list", testkit.Gateway(t, map[string]http.Handler{
			"CommentsFunction": comments.New(e.db.Store, testkit.Log(t), time.Now)}), listPath("report", oid), 2},
		{"a new process's first list by a next link", testkit.Gateway(t, map[string]http.Handler{
			"CommentsFunction": comments.New(e.db.Store, testkit.Log(t), time.Now)}),
			linked(t, listPath("report", oid, "page=2")), 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e.db.Calls.Reset()
			e.db.Calls.SimulateLatency(testkit.BudgetLatency)
			resp := testkit.Do(t, tc.gw, testkit.Request{Method: "GET", Path: tc.path, Token: e.tokens["alice"]})
			if resp.Status != 200 {
				t.Fatalf("%d %s", resp.Status, resp.Body)
			}
			if got := e.db.Calls.Sequential(); got != tc.budget {
				t.Fatalf("%d sequential calls %v, want %d", got, e.db.Calls, tc.budget)
			}
		})
	}
	// A reply goes as deep as the thread allows for the same calls: no save walks the thread.
	t.Run("re-parenting costs the same at any depth", func(t *testing.T) {
		for _, parent := range []string{th.comments[5].ID, chain1.ID, chain3.ID} {
			e.db.Calls.Reset()
			e.db.Calls.SimulateLatency(testkit.BudgetLatency)
			resp := e.do(t, "PATCH", itemPath(leaf.ID), "alice", `{"parent": "`+parent+`", "text": "w"}`)
			if resp.Status != 200 {
				t.Fatalf("%d %s", resp.Status, resp.Body)
			}
			if got := e.db.Calls.Sequential(); got != 2 {
				t.Fatalf("%d sequential calls %v, want 2", got, e.db.Calls)
			}
		}
	})
}
