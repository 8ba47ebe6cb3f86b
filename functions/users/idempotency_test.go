package users_test

import (
	"net/http"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/reportingplatform/api/functions/users"
	"github.com/reportingplatform/api/infra/testkit"
	"github.com/reportingplatform/api/shared/domain"
)

// createWithKey sends a create with an Idempotency-Key header (SPEC §9).
func (f fixture) createWithKey(t testing.TB, token, key, body string) testkit.Response {
	t.Helper()
	return testkit.Do(t, f.gw, testkit.Request{Method: "POST", Path: "/api/v1/users/", Token: token, Body: body,
		Header: map[string]string{"Idempotency-Key": key}})
}

// TestIdempotencyKeyReplaysTheCreate: the same caller sending the same key and body again, its fields in
// another order and spaced otherwise, gets the first 201 and the same user, and nothing is written
// again; another body with the key gets 422; another caller's key of the same name is its own.
func TestIdempotencyKeyReplaysTheCreate(t *testing.T) {
	f := setup(t)
	first := f.createWithKey(t, f.staff, "user-key-1",
		`{"email": "kay@example.com", "password": "Vq8#mLp2zR", "confirm_password": "Vq8#mLp2zR", "first_name": "Kay"}`)
	if first.Status != http.StatusCreated {
		t.Fatalf("first: %d %s", first.Status, first.Body)
	}
	id := first.Object(t)["id"].(string)
	want := `{"id": "` + id + `", "email": "kay@example.com", "first_name": "Kay", "last_name": ""}`
	first.Expect(t, 201, want)
	users := len(f.db.Items(t, "USER#"))

	f.db.Calls.Reset()
	again := f.createWithKey(t, f.staff, "user-key-1",
		`{"first_name":"Kay","confirm_password":"Vq8#mLp2zR",
		  "password":"Vq8#mLp2zR", "email":"kay@example.com"}`)
	again.Expect(t, 201, want)
	// The session, the refused claim (which brings the record back), the user: no write, no hash.
	if ops := f.db.Calls.Ops(); !slices.Equal(ops, []string{"BatchGetItem", "PutItem", "GetItem"}) {
		t.Errorf("replay made %v", ops)
	}
	if got := len(f.db.Items(t, "USER#")); got != users {
		t.Errorf("%d users after the replay, want %d", got, users)
	}

	f.createWithKey(t, f.staff, "user-key-1",
		`{"email": "kay2@example.com", "password": "Vq8#mLp2zR", "confirm_password": "Vq8#mLp2zR"}`).
		Expect(t, 422, `{"detail": "This Idempotency-Key was already used with a different request."}`)

	other := f.db.Token(t, f.db.User(t, testkit.NewUser{Staff: true}), time.Hour)
	theirs := f.createWithKey(t, other, "user-key-1",
		`{"email": "kay3@example.com", "password": "Vq8#mLp2zR", "confirm_password": "Vq8#mLp2zR"}`)
	if theirs.Status != http.StatusCreated || theirs.Object(t)["id"] == id {
		t.Fatalf("another caller's key: %d %s", theirs.Status, theirs.Body)
	}
	if got := len(f.db.Items(t, "USER#")); got != users+2 { // theirs, and the other staff user
		t.Errorf("%d users, want %d", got, users+2)
	}
}

// TestIdempotencyKeyOfARefusedCreateIsFree: a create refused after its claim (the email is taken)
// gives the key back, so the client's corrected request with the same key goes through.
func TestIdempotencyKeyOfARefusedCreateIsFree(t *testing.T) {
	f := setup(t)
	body := `{"email": "dup@example.com", "password": "Vq8#mLp2zR", "confirm_password": "Vq8#mLp2zR"}`
	if resp := f.create(t, f.staff, body); resp.Status != http.StatusCreated {
		t.Fatalf("setup: %d %s", resp.Status, resp.Body)
	}
	f.createWithKey(t, f.staff, "refused", body).Expect(t, 400, `{"email": ["user with this email already exists."]}`)
	if got := f.db.Items(t, "IDEMPOTENCY#"); len(got) != 0 {
		t.Fatalf("the refused create left its key: %v", got)
	}
	resp := f.createWithKey(t, f.staff, "refused", strings.Replace(body, "dup@", "dup2@", 1))
	if resp.Status != http.StatusCreated {
		t.Fatalf("the same key after a refusal: %d %s", resp.Status, resp.Body)
	}
}

// TestInvalidIdempotencyKeys: SPEC §9 accepts 1 to 255 visible ASCII characters; anything else is 400
// and writes nothing.
func TestInvalidIdempotencyKeys(t *testing.T) {
	f := setup(t)
	body := func(n int) string {
		return `{"email": "key` + strings.Repeat("x", n) +
			`@example.com", "password": "Vq8#mLp2zR", "confirm_password": "Vq8#mLp2zR"}`
	}
	before := len(f.db.Items(t, ""))
	for i, key := range []string{"", strings.Repeat("k", 256), "clé", "ключ", "a b", "a\tb", "a\x7fb",
		"a\x01b", " "} {
		f.db.Calls.Reset()
		f.createWithKey(t, f.staff, key, body(i)).Expect(t, 400, `{"detail": "Invalid Idempotency-Key header."}`)
		if ops := f.db.Calls.Ops(); !slices.Equal(ops, []string{"BatchGetItem"}) {
			t.Errorf("key %q: %v, want the session alone", key, ops)
		}
	}
	if got := len(f.db.Items(t, "")); got != before {
		t.Fatalf("%d items after the refusals, want %d", got, before)
	}
	for i, key := range []string{strings.Repeat("k", 255), "!", `"quoted"`, "~#:/?=&"} {
		if resp := f.createWithKey(t, f.staff, key, body(100+i)); resp.Status != http.StatusCreated {
			t.Errorf("key %q: %d %s", key, resp.Status, resp.Body)
		}
	}
}

// setupWithClock is setup with the handler's clock in the test's hands: at holds its time (Unix µs).
func setupWithClock(t *testing.T) (fixture, *atomic.Int64) {
	t.Helper()
	db := testkit.NewDB(t)
	at := &atomic.Int64{}
	at.Store(time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC).UnixMicro())
	clock := func() time.Time { return time.UnixMicro(at.Load()).UTC() }
	gw := testkit.Gateway(t, map[string]http.Handler{"UsersFunction": users.New(db.Store, testkit.Log(t), clock)})
	// The token is made at the real time, which the handler's clock stays before.
	return fixture{db: db, gw: gw, staff: db.Token(t, db.User(t, testkit.NewUser{Staff: true}), time.Hour)}, at
}

// TestIdempotencyKeyLasts24Hours: the key's record counts for 24 hours from its create, then the key
// is free again, whatever DynamoDB's time to live has removed yet.
func TestIdempotencyKeyLasts24Hours(t *testing.T) {
	f, at := setupWithClock(t)
	start := at.Load()
	body := func(email string) string {
		return `{"email": "` + email + `@example.com", "password": "Vq8#mLp2zR", "confirm_password": "Vq8#mLp2zR"}`
	}
	if resp := f.createWithKey(t, f.staff, "day", body("day1")); resp.Status != http.StatusCreated {
		t.Fatalf("first: %d %s", resp.Status, resp.Body)
	}
	at.Store(start + (24*time.Hour - time.Second).Microseconds())
	f.createWithKey(t, f.staff, "day", body("day2")).
		Expect(t, 422, `{"detail": "This Idempotency-Key was already used with a different request."}`)
	at.Store(start + (24 * time.Hour).Microseconds())
	second := f.createWithKey(t, f.staff, "day", body("day2"))
	if second.Status != http.StatusCreated {
		t.Fatalf("a day later: %d %s", second.Status, second.Body)
	}
	f.createWithKey(t, f.staff, "day", body("day2")).Expect(t, 201, string(second.Body))
}

// TestIdempotencyKeyOfAStalledRequestIsTakenOver: a request that holds its key past the lease (held
// here before its transaction, as a process that stalled) is overtaken by the client's retry, which
// creates the user; the stalled request's transaction, conditioned on its claim, then writes nothing
// and it answers 409. One user, and the next retry replays the second.
func TestIdempotencyKeyOfAStalledRequestIsTakenOver(t *testing.T) {
	f, at := setupWithClock(t)
	db := f.db
	body := `{"email": "stalled@example.com", "password": "Vq8#mLp2zR", "confirm_password": "Vq8#mLp2zR"}`

	arrived, release := db.Calls.Hold("TransactWriteItems")
	defer release()
	stalled := make(chan testkit.Response, 1)
	go func() { stalled <- f.createWithKey(testkit.InGoroutine(t), f.staff, "stalled", body) }()
	<-arrived
	f.createWithKey(t, f.staff, "stalled", body).Expect(t, 409,
		`{"detail": "A request with this Idempotency-Key is being processed."}`)

	at.Add((domain.IdempotencyLease + time.Second).Microseconds())
	retry := f.createWithKey(t, f.staff, "stalled", body)
	if retry.Status != http.StatusCreated {
		t.Fatalf("retry after the lease: %d %s", retry.Status, retry.Body)
	}
	release()
	(<-stalled).Expect(t, 409, `{"detail": "A request with this Idempotency-Key is being processed."}`)
	f.createWithKey(t, f.staff, "stalled", body).Expect(t, 201, string(retry.Body))
	if n := len(db.Items(t, "EMAIL#")); n != 2 { // the staff user's and the new one's
		t.Fatalf("%d email claims, want 2", n)
	}
}
