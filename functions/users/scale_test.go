package users_test

import (
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/reportingplatform/api/functions/users"
	"github.com/reportingplatform/api/infra/testkit"
)

// caseVariant writes email with the letters whose position's bit of i is set in upper case: the
// first 128 variants of an address with at least seven letters are all different.
func caseVariant(email string, i int) string {
	b := []byte(email)
	for j, c := range b {
		if c >= 'a' && c <= 'z' && (i>>(j%7))&1 == 1 {
			b[j] = c - 'a' + 'A'
		}
	}
	return string(b)
}

// TestHundredConcurrentCreatesOfOneEmail: a hundred staff requests, released together, create one
// address in a hundred letter cases. Exactly one is created, as sent but for its domain (SPEC §4:
// Django lower-cases only the domain); the other 99 get the uniqueness error, and one user is stored.
//
// Each create hashes its password with argon2id, which the race detector makes much slower, so a hundred
// at once on two cores take far longer than a request's budget (testkit.Gateway lifts the budget for
// that).
func TestHundredConcurrentCreatesOfOneEmail(t *testing.T) {
	db := testkit.NewDB(t)
	rt := users.New(db.Store, testkit.Log(t), time.Now)
	f := fixture{db: db, gw: testkit.Gateway(t, map[string]http.Handler{"UsersFunction": rt})}
	f.staff = db.Token(t, db.User(t, testkit.NewUser{Staff: true}), time.Hour)
	const n = 100
	email := "scale.race-" + uuid.NewString()[:8] + "@example.com"
	variants := make([]string, n)
	distinct := map[string]bool{}
	for i := range variants {
		variants[i] = caseVariant(email, i)
		distinct[variants[i]] = true
		if strings.ToLower(variants[i]) != email {
			t.Fatalf("variant %q is another address", variants[i])
		}
	}
	if len(distinct) != n {
		t.Fatalf("%d distinct letter cases, want %d", len(distinct), n)
	}
	out := make([]testkit.Response, n)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			<-start
			out[i] = testkit.Do(testkit.InGoroutine(t), f.gw,
				testkit.Request{Method: "POST", Path: "/api/v1/users/", Token: f.staff,
					Body: `{"email": "` + variants[i] + `", "password": "Vq8#mLp2zR", "confirm_password": "Vq8#mLp2zR"}`})
		})
	}
	began := time.Now()
	close(start)
	wg.Wait()
	t.Logf("%d concurrent creates answered in %v", n, time.Since(began).Round(time.Millisecond))
	if t.Failed() {
		t.FailNow()
	}

	winner := -1
	other := map[string]int{}
	for i, resp := range out {
		switch {
		case resp.Status == 201 && winner < 0:
			winner = i
		case resp.Status == 201:
			t.Errorf("variants %d (%s) and %d (%s) were both created", winner, variants[winner], i, variants[i])
		case resp.Status == 400 &&
			testkit.JSONEqual(resp.Body, []byte(`{"email": ["user with this email already exists."]}`)):
		default:
			other[fmt.Sprintf("%d %s", resp.Status, resp.Body)]++
		}
	}
	for answer, count := range other {
		t.Errorf("%d requests answered %s", count, answer)
	}
	if winner < 0 {
		t.Fatal("no create succeeded")
	}
	if t.Failed() {
		t.FailNow()
	}
	sent := variants[winner]
	at := strings.LastIndex(sent, "@")
	stored := sent[:at] + strings.ToLower(sent[at:])
	id, _ := out[winner].Object(t)["id"].(string)
	out[winner].Expect(t, 201, `{"id": "`+id+`", "email": "`+stored+`", "first_name": "", "last_name": ""}`)
	for _, v := range []string{email, strings.ToUpper(email), sent} {
		u, err := f.db.UserByEmail(t, v)
		if err != nil || u.ID != id || u.Email != stored {
			t.Fatalf("user by %s: %s %q, %v; want %s %q", v, u.ID, u.Email, err, id, stored)
		}
	}
}
