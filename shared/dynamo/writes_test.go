package dynamo_test

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/reportingplatform/api/infra/faultproxy"
	"github.com/reportingplatform/api/infra/testkit"
	"github.com/reportingplatform/api/shared/domain"
	"github.com/reportingplatform/api/shared/dynamo"
)

// behindProxy is a store over db's table that reaches DynamoDB Local only through a fault proxy, with
// the production client (its attempt timeout and retries).
func behindProxy(t *testing.T, db *testkit.DB) (*dynamo.Store, *faultproxy.Proxy) {
	t.Helper()
	client, proxy := testkit.BehindProxy(t)
	return dynamo.New(client, db.Table), proxy
}

func newUser() domain.User {
	now := domain.Stamp(time.Now())
	return domain.User{ID: uuid.NewString(), Email: "lost-" + uuid.NewString()[:8] + "@example.com",
		PasswordHash: "!unusable", IsActive: true, DateJoined: now, CreatedAt: now, UpdatedAt: now}
}

// lateAnswer holds DynamoDB's answer just past the client's attempt timeout.
const lateAnswer = dynamo.AttemptTimeout + 150*time.Millisecond

// A write that DynamoDB did but whose answer came late or never succeeds: the store reads it back once,
// and does not send it again. Both the transaction (a create user) and a lone delete (a logout).
func TestAWriteWhoseAnswerIsLostIsReadBackOnce(t *testing.T) {
	t.Parallel()
	db := testkit.NewDB(t)
	store, proxy := behindProxy(t, db)
	for _, f := range []faultproxy.Fault{{Mode: faultproxy.LateAnswer, Delay: lateAnswer}, {Mode: faultproxy.LostAnswer}} {
		f.Ops = []string{"TransactWriteItems"}
		u := newUser()
		proxy.Set(f)
		before := proxy.Requests()
		if err := store.CreateUser(context.Background(), u, nil); err != nil {
			t.Errorf("create user under %s: %v, want it done", f.Mode, err)
		}
		if got, want := proxy.Calls()[before:], []string{"TransactWriteItems", "BatchGetItem"}; !slices.Equal(got, want) {
			t.Errorf("create user under %s: calls %v, want %v", f.Mode, got, want)
		}
		if _, err := db.UserByEmail(t, u.Email); err != nil {
			t.Errorf("create user under %s: %v", f.Mode, err)
		}

		token := db.Token(t, u, time.Hour)
		_, hash, _ := domain.ParseTokenString(token)
		f.Ops = []string{"DeleteItem"}
		proxy.Set(f)
		before = proxy.Requests()
		if err := store.RevokeToken(context.Background(), domain.TokenRef{UserID: u.ID, Hash: hash}); err != nil {
			t.Errorf("revoke token under %s: %v, want it done", f.Mode, err)
		}
		if got, want := proxy.Calls()[before:], []string{"DeleteItem", "BatchGetItem"}; !slices.Equal(got, want) {
			t.Errorf("revoke token under %s: calls %v, want %v", f.Mode, got, want)
		}
		if s, err := db.Store.Session(context.Background(),
			domain.TokenRef{UserID: u.ID, Hash: hash}); err != nil || s.Found {
			t.Errorf("revoke token under %s: the token is still there (%v)", f.Mode, err)
		}
	}
}

// A write that did not land (dropped before DynamoDB saw it) is read back and sent again, as often as
// the client tries any call; then EUNAVAILABLE, with nothing written.
func TestAWriteThatDidNotLandIsSentAgainThenUnavailable(t *testing.T) {
	t.Parallel()
	db := testkit.NewDB(t)
	store, proxy := behindProxy(t, db)
	u := newUser()
	proxy.Set(faultproxy.Fault{Mode: faultproxy.Drop, Ops: []string{"TransactWriteItems"}})
	err := store.CreateUser(context.Background(), u, nil)
	if domain.ErrorCode(err) != domain.EUNAVAILABLE {
		t.Errorf("create user whose every attempt is dropped: %v, want EUNAVAILABLE", err)
	}
	want := slices.Repeat([]string{"TransactWriteItems", "BatchGetItem"}, dynamo.MaxAttempts)
	if got := proxy.Calls(); !slices.Equal(got, want) {
		t.Errorf("calls %v, want %v", got, want)
	}
	if _, err := db.UserByEmail(t, u.Email); err == nil {
		t.Error("a create that never reached DynamoDB wrote its user")
	}

	// Dropped once, it lands on the second attempt.
	proxy.Set(faultproxy.Fault{Mode: faultproxy.Drop, Ops: []string{"TransactWriteItems"}, Times: 1})
	before := proxy.Requests()
	if err := store.CreateUser(context.Background(), u, nil); err != nil {
		t.Errorf("create user dropped once: %v, want it done", err)
	}
	if got, want := proxy.Calls()[before:], []string{"TransactWriteItems", "BatchGetItem",
		"TransactWriteItems"}; !slices.Equal(got, want) {
		t.Errorf("create user dropped once: calls %v, want %v", got, want)
	}
}

// Only when the write's answer is lost and DynamoDB cannot be read either is the outcome unknown:
// EUNAVAILABLE, the one case in which a write may have landed (SPEC §9).
func TestAWriteThatCannotBeReadBackIsUnavailable(t *testing.T) {
	t.Parallel()
	db := testkit.NewDB(t)
	store, proxy := behindProxy(t, db)
	u := newUser()
	proxy.Set(faultproxy.Fault{Mode: faultproxy.LostAnswer, Ops: []string{"TransactWriteItems"}},
		faultproxy.Fault{Mode: faultproxy.InternalError, Ops: []string{"BatchGetItem"}})
	err := store.CreateUser(context.Background(), u, nil)
	if domain.ErrorCode(err) != domain.EUNAVAILABLE {
		t.Errorf("create user, answer lost, store unreadable: %v, want EUNAVAILABLE", err)
	}
	want := append([]string{"TransactWriteItems"}, slices.Repeat([]string{"BatchGetItem"}, dynamo.MaxAttempts)...)
	if got := proxy.Calls(); !slices.Equal(got, want) {
		t.Errorf("calls %v, want %v: one write, its read-back retried by the SDK", got, want)
	}
}

// A write refused for what surely did not write it (throttling) is retried by the SDK as any call, and
// never read back; a refusal that is DynamoDB's decision (the email taken) is neither.
func TestARefusedWriteIsNotReadBack(t *testing.T) {
	t.Parallel()
	db := testkit.NewDB(t)
	store, proxy := behindProxy(t, db)
	u := newUser()
	proxy.Set(faultproxy.Fault{Mode: faultproxy.Throttle, Ops: []string{"TransactWriteItems"}, Times: 2})
	if err := store.CreateUser(context.Background(), u, nil); err != nil {
		t.Errorf("create user throttled twice: %v, want it done", err)
	}
	u2 := newUser()
	u2.Email = u.Email
	if err := store.CreateUser(context.Background(), u2, nil); !errors.Is(err, domain.ErrEmailTaken) {
		t.Errorf("create user of a taken email: %v, want ErrEmailTaken", err)
	}
	if got, want := proxy.Calls(), slices.Repeat([]string{"TransactWriteItems"}, 4); !slices.Equal(got, want) {
		t.Errorf("calls %v, want %v", got, want)
	}
}
