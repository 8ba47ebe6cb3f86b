package comments_test

import (
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/reportingplatform/api/infra/testkit"
)

// createWithKey sends a comment create with an Idempotency-Key header (SPEC §9).
func (e *env) createWithKey(t testing.TB, role, key, body string) testkit.Response {
	t.Helper()
	return testkit.Do(t, e.gw,
		testkit.Request{Method: "POST", Path: "/api/v1/comments/", Token: e.tokens[role], Body: body,
			Header: map[string]string{"Idempotency-Key": key}})
}

// TestIdempotencyKeyReplaysTheCommentAsItIsNow: the retry of a create with its key gets the first 201
// and the comment as it is now (edited since), and the object still has one comment; another body gets
// 422; another caller with a key of the same name writes its own comment; the record lives 24 hours.
func TestIdempotencyKeyReplaysTheCommentAsItIsNow(t *testing.T) {
	e := setup(t)
	object := uuid.NewString()
	body := createBody(object, "first", `"organization_id": "`+e.orgA+`"`, `"tag": "review"`)
	first := e.createWithKey(t, "alice", "comment-key", body)
	if first.Status != 201 {
		t.Fatalf("first: %d %s", first.Status, first.Body)
	}
	id := first.Object(t)["id"].(string)
	first.Expect(t, 201, written(t, id, "report", object, str("review"), "first", nil))

	// The record: the caller's key, done with the comment, kept 24 hours from the create.
	records := e.db.Items(t, "IDEMPOTENCY#")
	if len(records) != 1 {
		t.Fatalf("records: %v", records)
	}
	for _, rec := range records {
		if rec["expires_at_epoch"] != float64(e.now.Add(24*time.Hour).Unix()) || rec["resource_id"] != id ||
			rec["status"] != float64(201) {
			t.Fatalf("record %v, want it done with %s and expiring at %d", rec, id, e.now.Add(24*time.Hour).Unix())
		}
	}

	e.do(t, "PATCH", itemPath(id), "alice", `{"text": "edited"}`).Expect(t, 200,
		written(t, id, "report", object, str("review"), "edited", nil))
	e.db.Calls.Reset()
	// The same body written otherwise: another order, other white space, an escaped letter.
	same := `{"tag":"review","organization_id":"` + e.orgA + `","text":"fir\u0073t",` + "\n" + `"object_id":"` +
		object + `","content_type":"report"}`
	e.createWithKey(t, "alice", "comment-key", same).Expect(t, 201,
		written(t, id, "report", object, str("review"), "edited", nil))
	// The session with the body's counter, the refused claim (the record comes back with it), the comment.
	if ops := e.db.Calls.Ops(); !slices.Equal(ops, []string{"BatchGetItem", "PutItem", "GetItem"}) {
		t.Errorf("replay made %v", ops)
	}
	if n, tagged := e.countOf(t, "alice", object, ""), e.countOf(t, "alice", object, "review"); n != 1 || tagged != 1 {
		t.Fatalf("after the replay: count %d, tagged %d; want 1 and 1", n, tagged)
	}
	if got := len(e.db.Items(t, "COMMENT#")); got != 1 {
		t.Fatalf("%d comments in the table, want 1", got)
	}

	e.createWithKey(t, "alice", "comment-key", createBody(object, "second", `"organization_id": "`+e.orgA+`"`)).
		Expect(t, 422, `{"detail": "This Idempotency-Key was already used with a different request."}`)

	theirs := e.createWithKey(t, "amy", "comment-key", body)
	if theirs.Status != 201 || theirs.Object(t)["id"] == id {
		t.Fatalf("another caller's key: %d %s", theirs.Status, theirs.Body)
	}
	if n := e.countOf(t, "alice", object, ""); n != 2 {
		t.Fatalf("count %d, want 2", n)
	}

	// Deleted since: the replay finds nothing to show and writes nothing.
	if d := e.do(t, "DELETE", itemPath(id), "alice", ""); d.Status != 204 {
		t.Fatalf("delete: %d %s", d.Status, d.Body)
	}
	e.createWithKey(t, "alice", "comment-key", body).Expect(t, 404, `{"detail": "Not found."}`)
	if n := e.countOf(t, "alice", object, ""); n != 1 {
		t.Fatalf("count %d after replaying a deleted comment, want 1", n)
	}
}

// TestIdempotencyKeyInFlight: while the first request with a key is being processed (held before its
// transaction), the second gets 409 and writes nothing; the first then lands, alone, and a third gets
// its comment.
func TestIdempotencyKeyInFlight(t *testing.T) {
	e := setup(t)
	object := uuid.NewString()
	body := createBody(object, "once", `"organization_id": "`+e.orgA+`"`)
	arrived, release := e.db.Calls.Hold("TransactWriteItems")
	defer release()
	done := make(chan testkit.Response, 1)
	go func() { done <- e.createWithKey(testkit.InGoroutine(t), "alice", "in-flight", body) }()
	<-arrived

	e.createWithKey(t, "alice", "in-flight", body).Expect(t, 409,
		`{"detail": "A request with this Idempotency-Key is being processed."}`)
	e.createWithKey(t, "alice", "in-flight", createBody(object, "other", `"organization_id": "`+e.orgA+`"`)).
		Expect(t, 422, `{"detail": "This Idempotency-Key was already used with a different request."}`)
	release()
	first := <-done
	if first.Status != 201 {
		t.Fatalf("first: %d %s", first.Status, first.Body)
	}
	id := first.Object(t)["id"].(string)
	e.createWithKey(t, "alice", "in-flight", body).Expect(t, 201, written(t, id, "report", object, nil, "once", nil))
	if n := e.countOf(t, "alice", object, ""); n != 1 {
		t.Fatalf("count %d, want 1", n)
	}
}

// TestIdempotencyKeyCostsOneClaim: with a key a create makes one call more than without (the claim
// before the transaction, which completes it); without one nothing changes.
func TestIdempotencyKeyCostsOneClaim(t *testing.T) {
	e := setup(t)
	e.db.Calls.SimulateLatency(testkit.BudgetLatency)
	for _, tc := range []struct {
		key  string
		want []string
	}{
		{"", []string{"BatchGetItem", "TransactWriteItems"}},
		{"costs", []string{"BatchGetItem", "PutItem", "TransactWriteItems"}},
	} {
		e.db.Calls.Reset()
		req := testkit.Request{Method: "POST", Path: "/api/v1/comments/", Token: e.tokens["alice"],
			Body: createBody(uuid.NewString(), "hi", `"organization_id": "`+e.orgA+`"`)}
		if tc.key != "" {
			req.Header = map[string]string{"Idempotency-Key": tc.key}
		}
		if resp := testkit.Do(t, e.gw, req); resp.Status != 201 {
			t.Fatalf("key %q: %d %s", tc.key, resp.Status, resp.Body)
		}
		if ops := e.db.Calls.Ops(); !slices.Equal(ops, tc.want) || e.db.Calls.Sequential() != len(tc.want) {
			t.Errorf("key %q: %v in %d round trips, want %v", tc.key, ops, e.db.Calls.Sequential(), tc.want)
		}
	}
}
