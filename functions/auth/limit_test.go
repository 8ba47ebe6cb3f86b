package auth_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/reportingplatform/api/infra/faultproxy"
	"github.com/reportingplatform/api/infra/testkit"
	"github.com/reportingplatform/api/shared/domain"
	"github.com/reportingplatform/api/shared/dynamo"
)

// SPEC §9, "Login limit under load": attempts sent at once count as if sent one after another.

// loginsAtOnce sends one login per email in emails, all at once from addr, and returns the answers.
func loginsAtOnce(t *testing.T, gw http.Handler, addr string, emails []string, password string) []testkit.Response {
	t.Helper()
	answers := make([]testkit.Response, len(emails))
	var wg sync.WaitGroup
	for i, email := range emails {
		wg.Add(1)
		go func() {
			defer wg.Done()
			body := testkit.MustJSON(t, map[string]string{"username": email, "password": password})
			answers[i] = testkit.Do(testkit.InGoroutine(t), gw,
				testkit.Request{Method: "POST", Path: "/api/v1/auth/login", Body: body, RemoteAddr: addr})
		}()
	}
	wg.Wait()
	return answers
}

// expectRefusedOrThrottled asserts that refused of the answers are DRF's 400 and the others DRF's 429
// for a full window.
func expectRefusedOrThrottled(t *testing.T, answers []testkit.Response, refused int) {
	t.Helper()
	var got400 int
	for _, a := range answers {
		if a.Status == http.StatusBadRequest {
			a.Expect(t, http.StatusBadRequest, badCredentials)
			got400++
			continue
		}
		expectThrottled(t, a, 900)
	}
	if got400 != refused {
		t.Fatalf("%d of %d attempts at once were refused with 400, want %d (the rest 429)", got400, len(answers), refused)
	}
}

func TestFortyWrongPasswordsAtOnceCheckTen(t *testing.T) {
	db := testkit.NewDB(t)
	checks := &hashChecks{}
	gw, _ := serve(t, db.Store, checks)
	u := db.User(t, testkit.NewUser{})
	const addr = "198.51.100.40:4000"
	emails := make([]string, 40)
	for i := range emails {
		emails[i] = u.Email
	}
	expectRefusedOrThrottled(t, loginsAtOnce(t, gw, addr, emails, "wrong"), domain.LoginFailuresPerEmail)
	checked := checks.take()
	if len(checked) != domain.LoginFailuresPerEmail {
		t.Fatalf("%d passwords checked, want %d", len(checked), domain.LoginFailuresPerEmail)
	}
	for _, h := range checked {
		if h != u.PasswordHash {
			t.Fatal("a wrong password was checked against another hash than the user's")
		}
	}
	// The right password now waits too, and is not checked.
	expectThrottled(t, loginFrom(t, gw, addr, u.Email, testkit.DefaultPassword), 900)
	if n := len(checks.take()); n != 0 {
		t.Fatalf("a throttled login checked %d passwords", n)
	}
}

func TestHundredAndFiftyFailuresFromOneAddressAtOnceCheckAHundred(t *testing.T) {
	db := testkit.NewDB(t)
	checks := &hashChecks{cheap: true} // the count is the subject: a hundred argon2id hashes would add nothing
	gw, _ := serve(t, db.Store, checks)
	const addr = "203.0.113.150:5555"
	emails := make([]string, 150)
	for i := range emails {
		emails[i] = fmt.Sprintf("nobody-%d@example.com", i)
	}
	expectRefusedOrThrottled(t, loginsAtOnce(t, gw, addr, emails, "guess"), domain.LoginFailuresPerIP)
	if n := len(checks.take()); n != domain.LoginFailuresPerIP {
		t.Fatalf("%d passwords checked, want %d", n, domain.LoginFailuresPerIP)
	}
}

// TestNoPasswordIsCheckedUncounted: a login whose attempt cannot be counted, or whose credentials
// cannot be read, answers 503 without checking a password; what it had claimed is given back, so that
// once the store answers again the email still has its ten attempts.
func TestNoPasswordIsCheckedUncounted(t *testing.T) {
	db := testkit.NewDB(t)
	client, proxy := testkit.ClientBehindProxy(t)
	checks := &hashChecks{}
	gw, _ := serve(t, dynamo.New(client, db.Table), checks)
	u := db.User(t, testkit.NewUser{})
	const addr = "192.0.2.53:4000"
	for _, fault := range []faultproxy.Fault{
		{Mode: faultproxy.Unavailable},
		{Mode: faultproxy.InternalError, Ops: []string{"UpdateItem"}}, // the claims
		{Mode: faultproxy.InternalError, Ops: []string{"GetItem"}},    // the credentials, once claimed
	} {
		proxy.Set(fault)
		for _, password := range []string{"wrong", testkit.DefaultPassword} {
			loginFrom(t, gw, addr, u.Email, password).Expect(t, http.StatusServiceUnavailable,
				`{"detail": "Service temporarily unavailable, try again soon."}`)
		}
		if n := len(checks.take()); n != 0 {
			t.Fatalf("under %v, %d passwords were checked", fault, n)
		}
	}
	proxy.Clear()
	for range domain.LoginFailuresPerEmail {
		loginFrom(t, gw, addr, u.Email, "wrong").Expect(t, http.StatusBadRequest, badCredentials)
	}
	expectThrottled(t, loginFrom(t, gw, addr, u.Email, testkit.DefaultPassword), 900)
}

// SPEC §9: an attempt answered 503 (its password not checked, or its result not recorded) stops counting
// within 30 s, so a failing store never locks the owner out for the window. Here the credentials cannot
// be read (the proxy fails every GetItem) and the claims cannot be given back (the store's give-back
// fails as a failing store's does): twenty attempts answer 503, and the first ten leave their places
// pending. The owner waits for them to lapse (told so by the 429's wait), not for the window's end.
func TestAttemptsAnswered503StopCountingWithin30Seconds(t *testing.T) {
	db := testkit.NewDB(t)
	client, proxy := testkit.ClientBehindProxy(t)
	checks := &hashChecks{}
	store := &releaseFailing{LoginStore: dynamo.New(client, db.Table)}
	gw, c := serve(t, store, checks)
	u := db.User(t, testkit.NewUser{})
	const addr = "192.0.2.54:4000"
	proxy.Set(faultproxy.Fault{Mode: faultproxy.InternalError, Ops: []string{"GetItem"}})
	store.failing.Store(true)
	for range 20 {
		loginFrom(t, gw, addr, u.Email, "wrong").Expect(t, http.StatusServiceUnavailable,
			`{"detail": "Service temporarily unavailable, try again soon."}`)
	}
	proxy.Clear()
	store.failing.Store(false)
	expectThrottled(t, loginFrom(t, gw, addr, u.Email, testkit.DefaultPassword), 900)
	c.Advance(domain.LoginClaimLife)
	if resp := loginFrom(t, gw, addr, u.Email, testkit.DefaultPassword); resp.Status != http.StatusCreated {
		t.Fatalf("the owner after the pending places lapsed: %d %s, want 201", resp.Status, resp.Body)
	}
	if n := len(checks.take()); n != 1 {
		t.Fatalf("%d passwords checked, want the owner's alone", n)
	}
	// The window has its ten places again: failures count from zero, in a window that starts anew.
	for range domain.LoginFailuresPerEmail {
		loginFrom(t, gw, addr, u.Email, "wrong").Expect(t, http.StatusBadRequest, badCredentials)
	}
	expectThrottled(t, loginFrom(t, gw, addr, u.Email, testkit.DefaultPassword), 900)
}

// releaseFailing is a store whose give-back of a login's claims fails while failing is set, as a failing
// store's would.
type releaseFailing struct {
	domain.LoginStore
	failing atomic.Bool
}

func (s *releaseFailing) ReleaseLogin(ctx context.Context, c domain.LoginClaim) error {
	if s.failing.Load() {
		return &domain.Error{Code: domain.EUNAVAILABLE, Err: errors.New("give-back failed")}
	}
	return s.LoginStore.ReleaseLogin(ctx, c)
}
