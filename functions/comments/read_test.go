package comments_test

import (
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/reportingplatform/api/infra/testkit"
)

func TestRetrieve(t *testing.T) {
	e := setup(t)
	th := e.thread("report")
	root := th.add("", "")
	reply := th.add("review", root.ID)
	th.load(t)
	// bob's comment on an object of organization B, with a commenter whose first name is null.
	other := e.thread("datasetconfiguration")
	other.org = e.orgB
	theirs := other.add("", "")
	theirs.CommenterID = e.users["bob"].ID
	other.comments[0] = theirs
	other.load(t)

	path := func(id string) string { return "/api/v1/comments/" + id + "/" }
	replyJSON := testkit.MustJSON(t, e.readJSON(t, reply))
	for _, tc := range []struct {
		name, path, role string
		status           int
		want             string
	}{
		{"a member reads a reply", path(reply.ID), "amy", 200, replyJSON},
		{"the commenter", path(reply.ID), "alice", 200, replyJSON},
		{"staff read any organization's", path(theirs.ID), "staff", 200, testkit.MustJSON(t, e.readJSON(t, theirs))},
		{"null first name is empty, full_name trimmed", path(theirs.ID), "bob", 200,
			testkit.MustJSON(t, e.readJSON(t, theirs))},
		{"root with null tag and parent", path(root.ID), "alice", 200, testkit.MustJSON(t, e.readJSON(t, root))},
		{"without the trailing slash", "/api/v1/comments/" + reply.ID, "alice", 200, replyJSON},
		{"upper-case id", path(strings.ToUpper(reply.ID)), "alice", 200, replyJSON},
		{"member of another organization", path(reply.ID), "bob", 404, `{"detail": "Not found."}`},
		{"no membership", path(reply.ID), "olga", 404, `{"detail": "Not found."}`},
		{"unknown id", path(uuid.NewString()), "staff", 404, `{"detail": "Not found."}`},
		{"id not a UUID", path("42"), "staff", 404, `{"detail": "Not found."}`},
		{"no credentials", path(reply.ID), "", 401, `{"detail": "Authentication credentials were not provided."}`},
		{"authentication before the id", path("42"), "", 401, `{"detail": "Authentication credentials were not provided."}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e.do(t, "GET", tc.path, tc.role, "").Expect(t, tc.status, tc.want)
		})
	}
	t.Run("fields in the seed's order", func(t *testing.T) {
		resp := e.do(t, "GET", path(reply.ID), "alice", "")
		want := "id,content_type,commenter,created_at,updated_at,object_id,tag,text,parent"
		if got := strings.Join(keysInOrder(t, resp.Body), ","); got != want {
			t.Fatalf("keys %s, want %s", got, want)
		}
	})
	t.Run("POST is not allowed", func(t *testing.T) {
		resp := e.do(t, "POST", path(reply.ID), "staff", "")
		resp.Expect(t, 405, `{"detail": "Method \"POST\" not allowed."}`)
		if got := resp.Header.Get("Allow"); got != "DELETE, GET, HEAD, PATCH, PUT" {
			t.Fatalf("Allow %q", got)
		}
	})
}
