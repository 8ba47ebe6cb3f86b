package comments_test

import (
	"testing"

	"github.com/reportingplatform/api/infra/fixture"
	"github.com/reportingplatform/api/infra/testkit"
)

// BenchmarkList times a list request end to end (API Gateway event, adapter, handler, DynamoDB Local):
// page 1 of an object with 5,000 comments should cost what page 1 of one with 100 costs; a deep page
// costs more, as it reads the index entries before it.
func BenchmarkList(b *testing.B) {
	db := testkit.NewDB(b)
	e := setupOn(b, db, db.Store)
	big, small := e.thread("report"), e.thread("report")
	for i := range 5000 {
		big.add([]string{"t", "u"}[i%2], "")
	}
	for i := range 100 {
		small.add([]string{"t", "u"}[i%2], "")
	}
	e.load(b, fixture.File{Comments: append(big.comments, small.comments...)})
	for _, bc := range []struct {
		name  string
		th    *thread
		extra []string
	}{
		{"100/page1", small, nil},
		{"5000/page1", big, nil},
		{"5000/page1_tag_desc", big, []string{"tag=t", "ordering=-created_at"}},
		{"5000/page50", big, []string{"page=50"}},
		{"5000/page125_size20_from_end", big, []string{"page=125"}},
		{"5000/last", big, []string{"page=last"}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			path := listPath("report", bc.th.objectID, bc.extra...)
			for b.Loop() {
				if resp := e.do(b, "GET", path, "alice", ""); resp.Status != 200 {
					b.Fatalf("%d %s", resp.Status, resp.Body)
				}
			}
		})
	}
}
