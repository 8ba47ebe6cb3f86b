package comments_test

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/reportingplatform/api/infra/testkit"
	"github.com/reportingplatform/api/shared/domain"
)

// TestTwoHundredRoundsOnOneComment: one comment, two hundred rounds, each two PATCHes released together,
// one by its commenter setting text, one by staff setting tag. After every round both answered 200
// with their own change and a read shows both: no update is lost, however often the two collide.
func TestTwoHundredRoundsOnOneComment(t *testing.T) {
	const rounds = 200
	e := setup(t)
	th := e.thread("report")
	c := th.add("start", "")
	th.load(t)
	loaded, err := e.db.Store.Comment(t.Context(), c.ID)
	if err != nil {
		t.Fatal(err)
	}
	want := e.readJSON(t, c)
	want["updated_at"] = domain.FormatTime(e.now) // the handler's clock, which every save writes
	e.db.Calls.Reset()
	began := time.Now()
	for i := range rounds {
		text, tag := fmt.Sprintf("T%d", i), fmt.Sprintf("g%d", i)
		out := e.racePatches(t, c.ID, [2]string{"alice", "staff"},
			[2]string{`{"text": "` + text + `"}`, `{"tag": "` + tag + `"}`})
		if out[0].Status != 200 || out[1].Status != 200 {
			t.Fatalf("round %d: statuses %d %d: %s / %s", i, out[0].Status, out[1].Status, out[0].Body, out[1].Body)
		}
		if got := out[0].Object(t)["text"]; got != text {
			t.Fatalf("round %d: the text PATCH answered text %v", i, got)
		}
		if got := out[1].Object(t)["tag"]; got != tag {
			t.Fatalf("round %d: the tag PATCH answered tag %v", i, got)
		}
		want["text"], want["tag"] = text, tag
		e.do(t, "GET", itemPath(c.ID), "staff", "").Expect(t, 200, testkit.MustJSON(t, want))
	}
	writes := 0
	for _, op := range e.db.Calls.Ops() {
		if op == "TransactWriteItems" || op == "UpdateItem" {
			writes++
		}
	}
	t.Logf("%d rounds in %v; %d of %d saves retried after losing the write", rounds,
		time.Since(began).Round(time.Millisecond), writes-2*rounds, 2*rounds)
	stored, err := e.db.Store.Comment(t.Context(), c.ID)
	if err != nil {
		t.Fatal(err)
	}
	if stored.Version != loaded.Version+2*rounds {
		t.Fatalf("version %d, want %d saves after %d", stored.Version, 2*rounds, loaded.Version)
	}
}

// racePatches sends two PATCHes of comment id, each as its own role with its own body, released
// together; out[j] answers bodies[j].
func (e *env) racePatches(t *testing.T, id string, roles, bodies [2]string) [2]testkit.Response {
	t.Helper()
	var out [2]testkit.Response
	start := make(chan struct{})
	var wg sync.WaitGroup
	for j := range 2 {
		wg.Go(func() {
			<-start
			out[j] = e.do(testkit.InGoroutine(t), "PATCH", itemPath(id), roles[j], bodies[j])
		})
	}
	close(start)
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}
	return out
}
