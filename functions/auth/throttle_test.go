package auth_test

import (
	"fmt"
	"net/http"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/reportingplatform/api/functions/auth"
	"github.com/reportingplatform/api/infra/testkit"
	"github.com/reportingplatform/api/shared/domain"
	"github.com/reportingplatform/api/shared/password"
)

// clock is a test clock that tests move by hand, so that windows end exactly when the test says.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// hashChecks records the hashes logins check: those password.Verify hashed against, not those it
// refused to read (which it does before any work).
type hashChecks struct {
	mu      sync.Mutex
	checked []string
	cheap   bool // refuse every password without hashing: for tests about counts alone
}

func (h *hashChecks) verify(plain, encoded string) (ok, rehash bool, err error) {
	if !h.cheap {
		ok, rehash, err = password.Verify(plain, encoded)
	}
	if err == nil {
		h.mu.Lock()
		h.checked = append(h.checked, encoded)
		h.mu.Unlock()
	}
	return ok, rehash, err
}

// take returns the hashes checked since the last take.
func (h *hashChecks) take() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	checked := h.checked
	h.checked = nil
	return checked
}

func throttleSetup(t *testing.T) (*testkit.DB, http.Handler, *clock) {
	t.Helper()
	db := testkit.NewDB(t)
	gw, c := serve(t, db.Store, &hashChecks{})
	return db, gw, c
}

// serve is login over store, with a clock the test moves by hand and checks recording the hashes that
// logins check.
func serve(t *testing.T, store domain.LoginStore, checks *hashChecks) (http.Handler, *clock) {
	t.Helper()
	c := &clock{now: time.Now().UTC().Truncate(time.Second)}
	h := auth.NewWithVerifier(store, testkit.Log(t), time.Hour, c.Now, checks.verify)
	return testkit.Gateway(t, map[string]http.Handler{"AuthFunction": h}), c
}

func loginFrom(t *testing.T, gw http.Handler, addr, username, password string) testkit.Response {
	t.Helper()
	body := testkit.MustJSON(t, map[string]string{"username": username, "password": password})
	return testkit.Do(t, gw, testkit.Request{Method: "POST", Path: "/api/v1/auth/login", Body: body, RemoteAddr: addr})
}

const badCredentials = `{"non_field_errors": ["Unable to log in with provided credentials."]}`

// expectThrottled asserts DRF's 429 with the wait in the body and in Retry-After.
func expectThrottled(t *testing.T, resp testkit.Response, seconds int) {
	t.Helper()
	resp.Expect(t, http.StatusTooManyRequests,
		fmt.Sprintf(`{"detail": "Request was throttled. Expected available in %d seconds."}`, seconds))
	if got := resp.Header.Get("Retry-After"); got != fmt.Sprint(seconds) {
		t.Fatalf("Retry-After %q, want %d", got, seconds)
	}
}

func TestTenFailuresForOneEmailThrottleItUntilTheWindowEnds(t *testing.T) {
	db := testkit.NewDB(t)
	checks := &hashChecks{}
	gw, c := serve(t, db.Store, checks)
	u := db.User(t, testkit.NewUser{Email: "ada@example.com"})
	other := db.User(t, testkit.NewUser{})
	const addr = "198.51.100.7:4000"

	// The window starts with the first failure; the email counts whatever its letter case.
	loginFrom(t, gw, addr, "ada@example.com", "wrong").Expect(t, 400, badCredentials)
	c.Advance(5 * time.Minute)
	for i := 2; i <= 10; i++ {
		loginFrom(t, gw, addr, "ADA@example.com", fmt.Sprint("wrong ", i)).Expect(t, 400, badCredentials)
	}
	// The eleventh attempt, right password or not, waits for the window's end: 10 of its 15 minutes left.
	// It checks no password; of its claims, the email's is refused and the address's given back.
	checks.take()
	db.Calls.Reset()
	db.Calls.SimulateLatency(testkit.BudgetLatency)
	expectThrottled(t, loginFrom(t, gw, addr, u.Email, testkit.DefaultPassword), 600)
	if ops := db.Calls.Ops(); len(ops) != 4 || db.Calls.Sequential() != 2 || slices.Contains(ops, "TransactWriteItems") {
		t.Fatalf("a throttled login made %v (%d sequential); want the read and both claims, then the address's "+
			"given back", ops, db.Calls.Sequential())
	}
	db.Calls.SimulateLatency(0)
	if checked := checks.take(); len(checked) != 0 {
		t.Fatalf("a throttled login checked %d hashes", len(checked))
	}
	c.Advance(9*time.Minute + 59*time.Second + 500*time.Millisecond)
	// Whole seconds, rounded up as DRF does (with its singular).
	loginFrom(t, gw, addr, u.Email,
		"wrong").Expect(t, 429, `{"detail": "Request was throttled. Expected available in 1 second."}`)

	// Other emails from the same address are not affected.
	if resp := loginFrom(t, gw, addr, other.Email, testkit.DefaultPassword); resp.Status != http.StatusCreated {
		t.Fatalf("another email: %d %s", resp.Status, resp.Body)
	}
	c.Advance(time.Second)
	if resp := loginFrom(t, gw, addr, u.Email, testkit.DefaultPassword); resp.Status != http.StatusCreated {
		t.Fatalf("after the window: %d %s", resp.Status, resp.Body)
	}
	// A new window starts with the next failure.
	for range 10 {
		loginFrom(t, gw, addr, u.Email, "wrong").Expect(t, 400, badCredentials)
	}
	expectThrottled(t, loginFrom(t, gw, addr, u.Email, testkit.DefaultPassword), 900)
}

func TestUnknownEmailsAreThrottledAsKnownOnes(t *testing.T) {
	_, gw, _ := throttleSetup(t)
	for range 10 {
		loginFrom(t, gw, "", "nobody@example.com", "guess").Expect(t, 400, badCredentials)
	}
	expectThrottled(t, loginFrom(t, gw, "", "nobody@example.com", "guess"), 900)
}

func TestSuccessfulLoginsNeitherCountNorReset(t *testing.T) {
	db, gw, _ := throttleSetup(t)
	u := db.User(t, testkit.NewUser{})
	for range 9 {
		loginFrom(t, gw, "", u.Email, "wrong").Expect(t, 400, badCredentials)
	}
	for range 3 {
		if resp := loginFrom(t, gw, "", u.Email, testkit.DefaultPassword); resp.Status != http.StatusCreated {
			t.Fatalf("login after 9 failures: %d %s", resp.Status, resp.Body)
		}
	}
	loginFrom(t, gw, "", u.Email, "wrong").Expect(t, 400, badCredentials)
	expectThrottled(t, loginFrom(t, gw, "", u.Email, testkit.DefaultPassword), 900)
}

func TestHundredFailuresFromOneAddressThrottleIt(t *testing.T) {
	db, gw, c := throttleSetup(t)
	u := db.User(t, testkit.NewUser{})
	const attacker, neighbour = "203.0.113.9:5555", "203.0.113.10:5555"
	// Nine failures per email, so that no email reaches its own limit: the address does.
	for i := range 100 {
		email := fmt.Sprintf("victim-%d@example.com", i/9)
		loginFrom(t, gw, attacker, email, "guess").Expect(t, 400, badCredentials)
		if i == 49 {
			c.Advance(7 * time.Minute)
		}
	}
	// The address's window started with its first failure, 7 minutes ago.
	expectThrottled(t, loginFrom(t, gw, attacker, u.Email, testkit.DefaultPassword), 480)
	if resp := loginFrom(t, gw, neighbour, u.Email, testkit.DefaultPassword); resp.Status != http.StatusCreated {
		t.Fatalf("another address: %d %s", resp.Status, resp.Body)
	}
	c.Advance(8 * time.Minute)
	if resp := loginFrom(t, gw, attacker, u.Email, testkit.DefaultPassword); resp.Status != http.StatusCreated {
		t.Fatalf("after the window: %d %s", resp.Status, resp.Body)
	}
}

// Failures that arrive together are all counted: none is lost to another's write.
func TestConcurrentFailuresAreAllCounted(t *testing.T) {
	db, gw, _ := throttleSetup(t)
	u := db.User(t, testkit.NewUser{})
	var wg sync.WaitGroup
	for range 10 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			body := testkit.MustJSON(t, map[string]string{"username": u.Email, "password": "wrong"})
			resp := testkit.Do(testkit.InGoroutine(t), gw,
				testkit.Request{Method: "POST", Path: "/api/v1/auth/login", Body: body})
			if resp.Status != 400 {
				t.Errorf("concurrent failure: %d %s", resp.Status, resp.Body)
			}
		}()
	}
	wg.Wait()
	expectThrottled(t, loginFrom(t, gw, "", u.Email, testkit.DefaultPassword), 900)
}
