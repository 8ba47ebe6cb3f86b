package dynamo_test

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/google/uuid"
	"github.com/reportingplatform/api/infra/faultproxy"
	"github.com/reportingplatform/api/infra/testkit"
	"github.com/reportingplatform/api/shared/domain"
	"github.com/reportingplatform/api/shared/dynamo"
	"github.com/reportingplatform/api/shared/httpapi"
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

// budget is a request's time for the store, as the router gives it.
func budget(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), httpapi.RequestBudget)
	t.Cleanup(cancel)
	return ctx
}

// counter reads the counter item pk as AddToCounter leaves it (0 when absent).
func counter(t *testing.T, db *testkit.DB, pk string) float64 {
	t.Helper()
	n, _ := db.Items(t, pk)[pk+" "+pk]["n"].(float64)
	return n
}

// A write that DynamoDB did but whose answer came late or never succeeds: the store sends it again, and
// the copy settles it, writing nothing again. A create, a transaction whose copy DynamoDB answers with
// the first one's success under its token (it would otherwise find its own user and answer "email
// taken"); and a delete (a logout), a single write whose copy finds the item gone.
func TestAWriteWhoseAnswerIsLostIsSettledByItsToken(t *testing.T) {
	t.Parallel()
	db := testkit.NewDB(t)
	store, proxy := behindProxy(t, db)
	// The late answer is held until the client's attempt timeout gives up on it: one due a moment after
	// would race the client's timer, which a busy machine can make late.
	for _, f := range []faultproxy.Fault{{Mode: faultproxy.LateAnswer}, {Mode: faultproxy.LostAnswer}} {
		f.Ops, f.Times = []string{"TransactWriteItems"}, 1
		u := newUser()
		proxy.Set(f)
		before := proxy.Requests()
		if err := store.CreateUser(budget(t), u, nil); err != nil {
			t.Errorf("create user under %s: %v, want it done", f.Mode, err)
		}
		if got, want := proxy.Calls()[before:], []string{"TransactWriteItems", "TransactWriteItems"}; !slices.Equal(got, want) {
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
		if err := store.RevokeToken(budget(t), domain.TokenRef{UserID: u.ID, Hash: hash}); err != nil {
			t.Errorf("revoke token under %s: %v, want it done", f.Mode, err)
		}
		if got, want := proxy.Calls()[before:], []string{"DeleteItem", "DeleteItem"}; !slices.Equal(got, want) {
			t.Errorf("revoke token under %s: calls %v, want %v", f.Mode, got, want)
		}
		if s, err := db.Store.Session(context.Background(),
			domain.TokenRef{UserID: u.ID, Hash: hash}); err != nil || s.Found {
			t.Errorf("revoke token under %s: the token is still there (%v)", f.Mode, err)
		}
	}
}

// DynamoDB Local honours ClientRequestToken as AWS does (SPEC §9 asks to check it): a copy queued inside
// a slow DynamoDB, done after its caller gave up and after the copy sent again, writes nothing twice, and
// the caller's answer is the write's. A read would have found nothing while the first copy waited.
func TestACopyDoneAfterItsTwinWritesNothingTwice(t *testing.T) {
	t.Parallel()
	db := testkit.NewDB(t)
	store, proxy := behindProxy(t, db)
	pk, marker := "TEST#"+uuid.NewString(), "TEST#"+uuid.NewString()
	// The first copy waits past the attempt timeout and past its twin, until Close, then is done.
	proxy.Set(faultproxy.Fault{Mode: faultproxy.Queued, Delay: time.Hour, MaxDelay: time.Hour,
		Ops: []string{"TransactWriteItems"}, Times: 1})
	if err := store.AddToCounter(budget(t), pk, marker, 1); err != nil {
		t.Fatalf("add under a queued first copy: %v, want it done", err)
	}
	if got, want := proxy.Calls(), []string{"TransactWriteItems", "TransactWriteItems"}; !slices.Equal(got, want) {
		t.Errorf("calls %v, want %v", got, want)
	}
	if err := proxy.Close(); err != nil { // waits for the queued copy to be done
		t.Fatal(err)
	}
	if n := counter(t, db, pk); n != 1 {
		t.Errorf("counter = %v after a write whose first copy was done last; want 1", n)
	}
}

// Another transaction sent under a token already used is refused (IdempotentParameterMismatch), as in
// AWS: the token names one write, never a second.
func TestATokenNamesOneWrite(t *testing.T) {
	t.Parallel()
	db := testkit.NewDB(t)
	pk := "TEST#" + uuid.NewString()
	if err := db.Store.AddToCounterWithToken(context.Background(), pk, "tok-"+pk[5:20], 1); err != nil {
		t.Fatal(err)
	}
	if err := db.Store.AddToCounterWithToken(context.Background(), pk, "tok-"+pk[5:20], 1); err != nil {
		t.Errorf("the same transaction under its token again: %v, want its first success", err)
	}
	err := db.Store.AddToCounterWithToken(context.Background(), pk, "tok-"+pk[5:20], 2)
	var mismatch *types.IdempotentParameterMismatchException
	if !errors.As(err, &mismatch) {
		t.Errorf("another transaction under the token: %v, want IdempotentParameterMismatchException", err)
	}
	if n := counter(t, db, pk); n != 1 {
		t.Errorf("counter = %v, want 1", n)
	}
}

// A write that never reaches DynamoDB's answer (every copy dropped) is sent again while the request's
// budget lasts, then its outcome is open: EOPEN, the one 503 that says the change may have been saved.
// A connection that cannot be made sent nothing: EUNAVAILABLE.
func TestAWriteNeverAnsweredIsOpen(t *testing.T) {
	t.Parallel()
	db := testkit.NewDB(t)
	store, proxy := behindProxy(t, db)
	u := newUser()
	proxy.Set(faultproxy.Fault{Mode: faultproxy.Drop, Ops: []string{"TransactWriteItems"}})
	err := store.CreateUser(budget(t), u, nil)
	if domain.ErrorCode(err) != domain.EOPEN {
		t.Errorf("create user whose every copy is dropped: %v, want EOPEN", err)
	}
	if got := proxy.Calls(); len(got) < 2 || slices.ContainsFunc(got, func(op string) bool { return op != "TransactWriteItems" }) {
		t.Errorf("calls %v, want the transaction sent again, and nothing read", got)
	}
	if _, err := db.UserByEmail(t, u.Email); err == nil {
		t.Error("a create that never reached DynamoDB wrote its user")
	}

	// Dropped once, it lands on the second copy.
	proxy.Set(faultproxy.Fault{Mode: faultproxy.Drop, Ops: []string{"TransactWriteItems"}, Times: 1})
	before := proxy.Requests()
	if err := store.CreateUser(budget(t), u, nil); err != nil {
		t.Errorf("create user dropped once: %v, want it done", err)
	}
	if got, want := proxy.Calls()[before:], []string{"TransactWriteItems", "TransactWriteItems"}; !slices.Equal(got, want) {
		t.Errorf("create user dropped once: calls %v, want %v", got, want)
	}

	closed := newUser()
	_ = proxy.Close()
	store = dynamo.New(testkit.ProductionClient(t, proxy.URL), db.Table)
	if err := store.CreateUser(budget(t), closed, nil); domain.ErrorCode(err) != domain.EUNAVAILABLE {
		t.Errorf("create user with no store to connect to: %v, want EUNAVAILABLE", err)
	}
}

// A write refused for what surely did not write it (throttling) is retried by the SDK as any call; a
// refusal that is DynamoDB's decision (the email taken) is final.
func TestARefusedWriteIsNotSentAgain(t *testing.T) {
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
