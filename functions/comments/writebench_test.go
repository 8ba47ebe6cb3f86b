package comments_test

import (
	"testing"

	"github.com/reportingplatform/api/infra/testkit"
)

// BenchmarkCreateAndDelete times a tagged comment's create and its delete, end to end, on an object
// that has comments: the writes that change the counters (and their counts by time).
func BenchmarkCreateAndDelete(b *testing.B) {
	db := testkit.NewDB(b)
	e := setupOn(b, db, db.Store)
	th := e.thread("report")
	th.add("t", "")
	th.load(b)
	body := `{"content_type": "report", "object_id": "` + th.objectID + `", "text": "x", "tag": "t"}`
	for b.Loop() {
		resp := e.do(b, "POST", "/api/v1/comments/", "alice", body)
		if resp.Status != 201 {
			b.Fatalf("%d %s", resp.Status, resp.Body)
		}
		if resp = e.do(b, "DELETE", itemPath(resp.Object(b)["id"].(string)), "alice", ""); resp.Status != 204 {
			b.Fatalf("%d %s", resp.Status, resp.Body)
		}
	}
}
