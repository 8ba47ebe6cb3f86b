package comments_test

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/google/uuid"
	"github.com/reportingplatform/api/infra/fixture"
	"github.com/reportingplatform/api/shared/domain"
)

func TestParentAndMoveRules(t *testing.T) {
	e := setup(t)
	x := e.thread("report")
	root := x.add("a", "")
	child := x.add("a", root.ID)
	grandchild := x.add("", child.ID)
	lone := x.add("b", "")
	x.load(t)
	y := e.thread("report")
	onY := y.add("", "")
	y.load(t)
	z := e.thread("report_attitude")
	z.org = e.orgB
	onZ := z.add("", "")
	onZ.CommenterID = e.users["bob"].ID
	z.comments[0] = onZ
	z.load(t)
	empty := uuid.NewString()
	missing := uuid.NewString()
	pk := func(id string) string { return fmt.Sprintf(`Invalid pk \"%s\" - object does not exist.`, id) }

	for _, tc := range []struct {
		name, id, body string
		status         int
		want           string
	}{
		{"own parent", lone.ID, `{"parent": "` + lone.ID + `"}`, 400,
			`{"parent": ["A comment cannot be its own ancestor."]}`},
		{"parent is its reply", root.ID, `{"parent": "` + child.ID + `"}`, 400,
			`{"parent": ["A comment cannot be its own ancestor."]}`},
		{"parent is a deeper reply", root.ID, `{"parent": "` + grandchild.ID + `"}`, 400,
			`{"parent": ["A comment cannot be its own ancestor."]}`},
		{"unknown parent", lone.ID, `{"parent": "` + missing + `"}`, 400, `{"parent": ["` + pk(missing) + `"]}`},
		{"parent on another object", lone.ID, `{"parent": "` + onY.ID + `"}`, 400, `{"parent": ["` + pk(onY.ID) + `"]}`},
		{"parent on the same id under another content type", lone.ID,
			`{"content_type": "datasetconfiguration", "parent": "` + root.ID + `"}`, 400, `{"parent": ["` + pk(root.ID) + `"]}`},
		{"a comment with replies cannot move", child.ID, `{"object_id": "` + y.objectID + `", "parent": null}`, 400,
			`{"non_field_errors": ["A comment with replies cannot be moved."]}`},
		{"a content_type change is a move too", root.ID, `{"content_type": "datasetconfiguration"}`, 400,
			`{"non_field_errors": ["A comment with replies cannot be moved."]}`},
		{"a comment with replies keeps its parent, even on another object", root.ID, `{"parent": "` + onY.ID + `"}`, 400,
			`{"non_field_errors": ["A comment with replies cannot be moved."]}`},
		{"a comment with replies keeps its parent, even an unknown one", child.ID, `{"parent": "` + missing + `"}`, 400,
			`{"non_field_errors": ["A comment with replies cannot be moved."]}`},
		{"a reply with replies does not become top-level", child.ID, `{"parent": null}`, 400,
			`{"non_field_errors": ["A comment with replies cannot be moved."]}`},
		{"a comment with replies does not go below a root of its object", child.ID, `{"parent": "` + lone.ID + `"}`, 400,
			`{"non_field_errors": ["A comment with replies cannot be moved."]}`},
		{"a moved comment with replies whose parent is its reply is its own ancestor", root.ID,
			`{"object_id": "` + y.objectID + `", "parent": "` + grandchild.ID + `"}`, 400,
			`{"parent": ["A comment cannot be its own ancestor."]}`},
		{"a comment with replies may name the parent it has", child.ID, `{"parent": "` + root.ID + `"}`, 200,
			written(t, child.ID, "report", x.objectID, str("a"), child.Text, &root.ID)},
		{"a moved reply needs a parent anew", grandchild.ID, `{"object_id": "` + y.objectID + `"}`, 400,
			`{"parent": ["` + pk(child.ID) + `"]}`},
		{"its old parent is not on the new object", grandchild.ID,
			`{"object_id": "` + y.objectID + `", "parent": "` + child.ID + `"}`, 400,
			`{"parent": ["` + pk(child.ID) + `"]}`},
		{"object of another organization", lone.ID,
			`{"content_type": "report_attitude", "object_id": "` + z.objectID + `"}`, 400,
			`{"object_id": ["` + pk(z.objectID) + `"]}`},
		{"both at once", grandchild.ID,
			`{"content_type": "report_attitude", "object_id": "` + z.objectID + `", "parent": "` + missing + `"}`, 400,
			`{"object_id": ["` + pk(z.objectID) + `"], "parent": ["` + pk(missing) + `"]}`},
		{"re-parent within the object", lone.ID, `{"parent": "` + root.ID + `"}`, 200,
			written(t, lone.ID, "report", x.objectID, str("b"), lone.Text, &root.ID)},
		{"a reply moves with a parent anew", grandchild.ID,
			`{"object_id": "` + y.objectID + `", "parent": "` + onY.ID + `"}`, 200,
			written(t, grandchild.ID, "report", y.objectID, nil, grandchild.Text, &onY.ID)},
		{"a reply moves as a root", lone.ID, `{"object_id": "` + empty + `", "parent": null}`, 200,
			written(t, lone.ID, "report", empty, str("b"), lone.Text, nil)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e.do(t, "PATCH", itemPath(tc.id), "alice", tc.body).Expect(t, tc.status, tc.want)
		})
	}
	// grandchild left child, and lone left root: root's only reply is child, child has none.
	t.Run("reply counts follow", func(t *testing.T) {
		e.do(t, "PATCH", itemPath(child.ID), "alice", `{"object_id": "`+empty+`", "parent": null}`).
			Expect(t, 200, written(t, child.ID, "report", empty, str("a"), child.Text, nil))
		e.do(t, "PATCH", itemPath(root.ID), "alice", `{"object_id": "`+empty+`"}`).
			Expect(t, 200, written(t, root.ID, "report", empty, str("a"), root.Text, nil))
		e.do(t, "PATCH", itemPath(onY.ID), "alice", `{"object_id": "`+empty+`"}`).
			Expect(t, 400, `{"non_field_errors": ["A comment with replies cannot be moved."]}`)
	})
	t.Run("an object emptied of another organization's comments can be taken", func(t *testing.T) {
		away := uuid.NewString()
		e.do(t, "PATCH", itemPath(onZ.ID), "bob", `{"object_id": "`+away+`"}`).
			Expect(t, 200, written(t, onZ.ID, "report_attitude", away, nil, onZ.Text, nil))
		e.do(t, "PATCH", itemPath(child.ID), "alice", `{"content_type": "report_attitude", "object_id": "`+z.objectID+`"}`).
			Expect(t, 200, written(t, child.ID, "report_attitude", z.objectID, str("a"), child.Text, nil))
		if n := e.count(t, "report_attitude", z.objectID, "", "amy"); n != 1 {
			t.Fatalf("members of A see %d comments on the object they took", n)
		}
		if n := e.count(t, "report_attitude", z.objectID, "", "bob"); n != 0 {
			t.Fatalf("members of B still see %d", n)
		}
	})
}

// count is the list's count for an object (and tag) as role sees it; it also checks that the list
// holds that many results, so counters and index agree.
func (e *env) count(t *testing.T, contentType, objectID, tag, role string) int {
	t.Helper()
	extra := []string{"page_size=100"}
	if tag != "" {
		extra = append(extra, "tag="+tag)
	}
	resp := e.do(t, "GET", listPath(contentType, objectID, extra...), role, "")
	if resp.Status != 200 {
		t.Fatalf("list: %d %s", resp.Status, resp.Body)
	}
	body := resp.Object(t)
	n := int(body["count"].(float64))
	if got := len(body["results"].([]any)); got != n {
		t.Fatalf("%s/%s tag %q: count %d but %d results", contentType, objectID, tag, n, got)
	}
	return n
}

func TestCountsFollowMovesAndTagChanges(t *testing.T) {
	e := setup(t)
	x, y := e.thread("report"), e.thread("report")
	var xs []fixture.Comment
	for i := range 12 {
		xs = append(xs, x.add([]string{"a", "b", ""}[i%3], ""))
	}
	y.add("a", "")
	x.load(t)
	y.load(t)
	check := func(t *testing.T, want map[string]int) {
		t.Helper()
		for k, n := range want {
			var oid, tag string
			_, _ = fmt.Sscanf(k, "%s %s", &oid, &tag)
			objectID := map[string]string{"x": x.objectID, "y": y.objectID}[oid]
			if got := e.count(t, "report", objectID, tag, "alice"); got != n {
				t.Errorf("%s: count %d, want %d", k, got, n)
			}
		}
	}
	check(t, map[string]int{"x": 12, "x a": 4, "x b": 4, "y": 1, "y a": 1, "y b": 0})

	steps := []struct{ id, body string }{
		{xs[0].ID, `{"tag": "b"}`},                                     // x: a 3, b 5
		{xs[1].ID, `{"tag": null}`},                                    // x: b 4
		{xs[2].ID, `{"tag": "a"}`},                                     // x: a 4
		{xs[3].ID, `{"object_id": "` + y.objectID + `"}`},              // a moves: x 11, x a 3; y 2, y a 2
		{xs[4].ID, `{"object_id": "` + y.objectID + `", "tag": "a"}`},  // b → y a: x 10, x b 3; y 3, y a 3
		{xs[5].ID, `{"object_id": "` + y.objectID + `", "tag": null}`}, // untagged: x 9; y 4
		{xs[6].ID, `{"tag": "a"}`},                                     // same tag: nothing changes
	}
	for _, s := range steps {
		if resp := e.do(t, "PATCH", itemPath(s.id), "alice", s.body); resp.Status != 200 {
			t.Fatalf("PATCH %s: %d %s", s.body, resp.Status, resp.Body)
		}
	}
	check(t, map[string]int{"x": 9, "x a": 3, "x b": 3, "y": 4, "y a": 3, "y b": 0})

	t.Run("concurrent saves keep every count", func(t *testing.T) {
		var wg sync.WaitGroup
		for i, c := range xs[6:] {
			wg.Go(func() {
				body := `{"tag": "c"}`
				if i%2 == 0 {
					body = `{"object_id": "` + y.objectID + `", "tag": "c"}`
				}
				if resp := e.do(t, "PATCH", itemPath(c.ID), "alice", body); resp.Status != 200 {
					t.Errorf("PATCH %s: %d %s", body, resp.Status, resp.Body)
				}
			})
		}
		wg.Wait()
		check(t, map[string]int{"x": 6, "x a": 1, "x b": 1, "x c": 3, "y": 7, "y a": 3, "y c": 3})
	})
	t.Run("the counters agree with the store", func(t *testing.T) {
		c, err := e.db.Store.CommentCount(context.Background(),
			domain.CommentObject{ContentType: "report", ObjectID: y.objectID}, nil)
		if err != nil || c.N != 7 || c.OrganizationID != e.orgA {
			t.Fatalf("y's counter %+v, %v", c, err)
		}
	})
}

func TestConcurrentReparentingNeverMakesACycle(t *testing.T) {
	e := setup(t)
	for round := range 5 {
		th := e.thread("report")
		a, b := th.add("", ""), th.add("", "")
		th.load(t)
		var wg sync.WaitGroup
		statuses := make([]int, 2)
		for i, pair := range [][2]string{{a.ID, b.ID}, {b.ID, a.ID}} {
			wg.Go(func() {
				resp := e.do(t, "PATCH", itemPath(pair[0]), "alice", `{"parent": "`+pair[1]+`"}`)
				statuses[i] = resp.Status
				if resp.Status == 400 {
					resp.Expect(t, 400, `{"parent": ["A comment cannot be its own ancestor."]}`)
				}
			})
		}
		wg.Wait()
		if statuses[0]+statuses[1] != 600 {
			t.Fatalf("round %d: statuses %v, want one 200 and one 400", round, statuses)
		}
	}
}
