package comments_test

import (
	"fmt"
	"sync"
	"testing"

	"github.com/google/uuid"
	"github.com/reportingplatform/api/infra/testkit"
)

// createBody is a POST body for a comment on (report, objectID); extra fields are JSON members.
func createBody(objectID, text string, extra ...string) string {
	b := fmt.Sprintf(`{"content_type": "report", "object_id": %q, "text": %q`, objectID, text)
	for _, x := range extra {
		b += ", " + x
	}
	return b + "}"
}

// countOf is the list count role sees for (report, objectID), with the tag filter when tag is set.
func (e *env) countOf(t *testing.T, role, objectID, tag string) int {
	t.Helper()
	extra := []string{"page_size=1"}
	if tag != "" {
		extra = append(extra, "tag="+tag)
	}
	resp := e.do(t, "GET", listPath("report", objectID, extra...), role, "")
	if resp.Status != 200 {
		t.Fatalf("list: %d %s", resp.Status, resp.Body)
	}
	return int(resp.Object(t)["count"].(float64))
}

func TestCreateValidation(t *testing.T) {
	e := setup(t)
	th := e.thread("report")
	root := th.add("", "")
	th.load(t)
	other := e.thread("report")
	elsewhere := other.add("", "")
	other.load(t)
	fresh := uuid.NewString()
	for _, tc := range []struct {
		name, role, body string
		status           int
		want             string
	}{
		{"nothing", "alice", `{}`, 400,
			`{"content_type": ["This field is required."], "object_id": ["This field is required."], "text": ["This ` +
				`field is required."]}`},
		{"bad values", "alice",
			`{"content_type": "page", "object_id": "x", "text": "", "tag": "", "parent": 7, "organization_id": "y"}`, 400,
			`{"content_type": ["\"page\" is not a valid choice."], "object_id": ["Must be a valid UUID."], "text": ` +
				`["This field may not be blank."], "tag": ["This field may not be blank."], "parent": ["Must be a ` +
				`valid UUID."], "organization_id": ["Must be a valid UUID."]}`},
		{"new object without organization_id", "alice", createBody(fresh, "hi"), 400,
			`{"organization_id": ["This field is required."]}`},
		{"new object in an organization the caller is not a member of", "alice",
			createBody(fresh, "hi", `"organization_id": "`+e.orgB+`"`), 400,
			`{"organization_id": ["Invalid pk \"` + e.orgB + `\" - object does not exist."]}`},
		{"staff: an organization that does not exist", "staff",
			createBody(fresh, "hi", `"organization_id": "`+fresh+`"`), 400,
			`{"organization_id": ["Invalid pk \"` + fresh + `\" - object does not exist."]}`},
		{"an object of another organization", "bob", createBody(th.objectID, "hi"), 400,
			`{"object_id": ["Invalid pk \"` + th.objectID + `\" - object does not exist."]}`},
		// SPEC §10: to a caller who is not a member of the object's organization the object does not
		// exist, and nothing else is said, whatever organization_id and parent name.
		{"an object of another organization, naming that organization", "bob",
			createBody(th.objectID, "hi", `"organization_id": "`+e.orgA+`"`), 400,
			`{"object_id": ["Invalid pk \"` + th.objectID + `\" - object does not exist."]}`},
		{"an object of another organization, naming the caller's", "bob",
			createBody(th.objectID, "hi", `"organization_id": "`+e.orgB+`"`), 400,
			`{"object_id": ["Invalid pk \"` + th.objectID + `\" - object does not exist."]}`},
		{"an object of another organization, naming none that exists, with a missing parent", "bob",
			createBody(th.objectID, "hi", `"organization_id": "`+fresh+`"`, `"parent": "`+fresh+`"`), 400,
			`{"object_id": ["Invalid pk \"` + th.objectID + `\" - object does not exist."]}`},
		// SPEC §1: a reference sent as "" is null; a UUID is taken as sent.
		{"organization_id blank", "alice", createBody(fresh, "hi", `"organization_id": ""`), 400,
			`{"organization_id": ["This field may not be null."]}`},
		{"white space around UUIDs", "alice",
			createBody(" "+th.objectID+" ", "hi", `"organization_id": "\t`+e.orgA+`"`, `"parent": "`+root.ID+`\n"`), 400,
			`{"object_id": ["Must be a valid UUID."], "organization_id": ["Must be a valid UUID."], "parent": ` +
				`["Must be a valid UUID."]}`},
		{"organization_id other than the object's", "alice",
			createBody(th.objectID, "hi", `"organization_id": "`+e.orgB+`"`), 400,
			`{"organization_id": ["Invalid pk \"` + e.orgB + `\" - object does not exist."]}`},
		{"parent on another object", "alice", createBody(th.objectID, "hi", `"parent": "`+elsewhere.ID+`"`), 400,
			`{"parent": ["Invalid pk \"` + elsewhere.ID + `\" - object does not exist."]}`},
		{"parent that does not exist", "alice", createBody(th.objectID, "hi", `"parent": "`+fresh+`"`), 400,
			`{"parent": ["Invalid pk \"` + fresh + `\" - object does not exist."]}`},
		{"no credentials", "", createBody(th.objectID, "hi"), 401,
			`{"detail": "Authentication credentials were not provided."}`},
		{"text too long", "alice", createBody(th.objectID, fmt.Sprintf("%0100001d", 0)), 400,
			`{"text": ["Ensure this field has no more than 100000 characters."]}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := e.countOf(t, "staff", th.objectID, "")
			e.do(t, "POST", "/api/v1/comments/", tc.role, tc.body).Expect(t, tc.status, tc.want)
			if after := e.countOf(t, "staff", th.objectID, ""); after != before {
				t.Fatalf("count %d after a refused create, was %d", after, before)
			}
			if n := e.countOf(t, "staff", fresh, ""); n != 0 {
				t.Fatalf("the new object has %d comments after a refused create", n)
			}
		})
	}
	if n := e.countOf(t, "staff", th.objectID, ""); n != 1 || root.ID == "" {
		t.Fatalf("count %d, want the one loaded", n)
	}
}

func TestCreateThenDelete(t *testing.T) {
	e := setup(t)
	object := uuid.NewString()

	// The first comment names the organization; it is then the object's.
	first := e.do(t, "POST", "/api/v1/comments", "alice",
		createBody(object, "first", `"organization_id": "`+e.orgA+`"`, `"tag": "review"`, `"id": "ignored"`))
	if first.Status != 201 {
		t.Fatalf("%d %s", first.Status, first.Body)
	}
	id := first.Object(t)["id"].(string)
	if _, err := uuid.Parse(id); err != nil {
		t.Fatalf("id %q", id)
	}
	first.Expect(t, 201, written(t, id, "report", object, str("review"), "first", nil))
	if got := keysInOrder(t, first.Body); fmt.Sprint(got) != "[id content_type object_id tag text parent]" {
		t.Fatalf("keys %v", got)
	}
	// Members of A see it, with alice as the commenter and created_at = updated_at = now.
	read := e.do(t, "GET", itemPath(id), "amy", "")
	alice := e.users["alice"]
	want := map[string]any{
		"id": id, "content_type": "report", "object_id": object, "tag": "review", "text": "first", "parent": nil,
		"created_at": e.now.Format("2006-01-02T15:04:05.000000Z"), "updated_at": e.now.Format("2006-01-02T15:04:05.000000Z"),
		"commenter": map[string]any{"id": alice.ID, "full_name": alice.FullName(), "email": alice.Email,
			"first_name": "Alice", "last_name": ""},
	}
	read.Expect(t, 200, testkit.MustJSON(t, want))
	if n := e.countOf(t, "bob", object, ""); n != 0 {
		t.Fatalf("bob (organization B) sees %d", n)
	}

	// A reply by amy, without organization_id; staff may comment anywhere.
	reply := e.do(t, "POST", "/api/v1/comments/", "amy",
		createBody(object, "reply", `"parent": "`+id+`"`, `"organization_id": "`+e.orgA+`"`))
	if reply.Status != 201 {
		t.Fatalf("%d %s", reply.Status, reply.Body)
	}
	replyID := reply.Object(t)["id"].(string)
	if s := e.do(t, "POST", "/api/v1/comments/", "staff", createBody(object, "by staff")); s.Status != 201 {
		t.Fatalf("staff: %d %s", s.Status, s.Body)
	}
	if n, tagged := e.countOf(t, "alice", object, ""), e.countOf(t, "alice", object, "review"); n != 3 || tagged != 1 {
		t.Fatalf("count %d, tagged %d; want 3 and 1", n, tagged)
	}

	// Delete: the parent with its reply is refused, others who may read get 403, outsiders 404.
	e.do(t, "DELETE", itemPath(id), "alice", "").Expect(t, 400,
		`{"non_field_errors": ["A comment with replies cannot be deleted."]}`)
	e.do(t, "DELETE", itemPath(replyID), "alice", "").Expect(t, 403,
		`{"detail": "You do not have permission to perform this action."}`)
	e.do(t, "DELETE", itemPath(replyID), "bob", "").Expect(t, 404, `{"detail": "Not found."}`)
	e.do(t, "DELETE", itemPath(uuid.NewString()), "alice", "").Expect(t, 404, `{"detail": "Not found."}`)
	e.do(t, "DELETE", itemPath(replyID), "", "").Expect(t, 401,
		`{"detail": "Authentication credentials were not provided."}`)
	if n := e.countOf(t, "alice", object, ""); n != 3 {
		t.Fatalf("count %d after refused deletes, want 3", n)
	}
	// amy administers A: she may delete alice's reply... here her own; then alice's root has no reply left.
	del := e.do(t, "DELETE", itemPath(replyID), "amy", "")
	if del.Status != 204 || len(del.Body) != 0 {
		t.Fatalf("DELETE: %d %q", del.Status, del.Body)
	}
	e.do(t, "GET", itemPath(replyID), "amy", "").Expect(t, 404, `{"detail": "Not found."}`)
	if d := e.do(t, "DELETE", itemPath(id), "amy", ""); d.Status != 204 {
		t.Fatalf("an administrator deletes another's comment: %d %s", d.Status, d.Body)
	}
	if n, tagged := e.countOf(t, "alice", object, ""), e.countOf(t, "alice", object, "review"); n != 1 || tagged != 0 {
		t.Fatalf("count %d, tagged %d; want 1 and 0", n, tagged)
	}
}

// TestConcurrentCreatesKeepTheCountExact: 50 parallel creates on one object, then the list, then every
// one deleted in parallel: the count follows exactly.
func TestConcurrentCreatesKeepTheCountExact(t *testing.T) {
	e := setup(t)
	object := uuid.NewString()
	const n = 50
	ids := make([]string, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			t := testkit.InGoroutine(t)
			resp := testkit.Do(t, e.gw, testkit.Request{Method: "POST", Path: "/api/v1/comments/", Token: e.tokens["alice"],
				Body: createBody(object, fmt.Sprint("comment ", i), `"organization_id": "`+e.orgA+`"`, `"tag": "t"`)})
			if resp.Status != 201 {
				t.Errorf("create %d: %d %s", i, resp.Status, resp.Body)
				return
			}
			ids[i] = resp.Object(t)["id"].(string)
		}()
	}
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}
	page := e.do(t, "GET", listPath("report", object, "page_size=100"), "alice", "")
	if page.Status != 200 || page.Object(t)["count"] != float64(n) || len(page.Object(t)["results"].([]any)) != n {
		t.Fatalf("after %d creates: %d %s", n, page.Status, page.Body)
	}
	if tagged := e.countOf(t, "alice", object, "t"); tagged != n {
		t.Fatalf("tag count %d, want %d", tagged, n)
	}
	for _, id := range ids {
		wg.Add(1)
		go func() {
			defer wg.Done()
			t := testkit.InGoroutine(t)
			if resp := testkit.Do(t, e.gw,
				testkit.Request{Method: "DELETE", Path: itemPath(id), Token: e.tokens["alice"]}); resp.Status != 204 {
				t.Errorf("delete %s: %d %s", id, resp.Status, resp.Body)
			}
		}()
	}
	wg.Wait()
	if c, tagged := e.countOf(t, "alice", object, ""), e.countOf(t, "alice", object, "t"); c != 0 || tagged != 0 {
		t.Fatalf("after deleting all: count %d, tagged %d", c, tagged)
	}
	// An object whose comments are all gone is free again: another organization may comment on it.
	if resp := e.do(t, "POST", "/api/v1/comments/", "bob",
		createBody(object, "now ours", `"organization_id": "`+e.orgB+`"`)); resp.Status != 201 {
		t.Fatalf("%d %s", resp.Status, resp.Body)
	}
}

// TestBlankParentIsNoParent: SPEC §1, as DRF's relational fields take it: `parent: ""` is null, on a
// create and on a save.
func TestBlankParentIsNoParent(t *testing.T) {
	e := setup(t)
	th := e.thread("report")
	root := th.add("", "")
	reply := th.add("", root.ID)
	th.load(t)
	resp := e.do(t, "POST", "/api/v1/comments/", "alice", createBody(th.objectID, "hi", `"parent": ""`))
	id, _ := resp.Object(t)["id"].(string)
	resp.Expect(t, 201, written(t, id, "report", th.objectID, nil, "hi", nil))
	e.do(t, "PATCH", itemPath(reply.ID), "alice", `{"parent": ""}`).
		Expect(t, 200, written(t, reply.ID, "report", th.objectID, nil, reply.Text, nil))
	if got := e.do(t, "GET", itemPath(reply.ID), "alice", "").Object(t)["parent"]; got != nil {
		t.Fatalf("stored parent %v, want none", got)
	}
}
