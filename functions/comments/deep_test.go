package comments_test

import (
	"testing"
)

// A comment with replies may take a parent at the bottom of a thread deeper than the ancestors the
// save's transaction can guard: the walk reads them all and the save succeeds.
func TestReparentUnderADeepThread(t *testing.T) {
	e := setup(t)
	th := e.thread("report")
	chain := []string{th.add("", "").ID}
	for range 120 {
		chain = append(chain, th.add("", chain[len(chain)-1]).ID)
	}
	mover := th.add("", "")
	th.add("", mover.ID) // mover has a reply, so its new parent's ancestors are walked
	th.load(t)

	deepest := chain[len(chain)-1]
	resp := e.do(t, "PATCH", "/api/v1/comments/"+mover.ID+"/", "alice", `{"parent": "`+deepest+`"}`)
	resp.Expect(t, 200, `{"id": "`+mover.ID+`", "content_type": "report", "object_id": "`+th.objectID+`", "tag": null,
		"text": "`+mover.Text+`", "parent": "`+deepest+`"}`)

	// And the top of that thread may not go under the mover's reply's branch: mover is now its descendant.
	resp = e.do(t, "PATCH", "/api/v1/comments/"+chain[0]+"/", "alice", `{"parent": "`+mover.ID+`"}`)
	resp.Expect(t, 400, `{"parent": ["A comment cannot be its own ancestor."]}`)
}
