package users_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/reportingplatform/api/functions/auth"
	"github.com/reportingplatform/api/functions/users"
	"github.com/reportingplatform/api/infra/testkit"
	"github.com/reportingplatform/api/shared/domain"
)

type fixture struct {
	db    *testkit.DB
	gw    http.Handler
	staff string // token of a staff user
}

func setup(t *testing.T) fixture {
	t.Helper()
	db := testkit.NewDB(t)
	log := testkit.Log(t)
	gw := testkit.Gateway(t, map[string]http.Handler{
		"UsersFunction": users.New(db.Store, log, time.Now),
		"AuthFunction":  auth.New(db.Store, log, time.Hour, time.Now),
	})
	admin := db.User(t, testkit.NewUser{Staff: true})
	return fixture{db: db, gw: gw, staff: db.Token(t, admin, time.Hour)}
}

func (f fixture) create(t *testing.T, token, body string) testkit.Response {
	t.Helper()
	return testkit.Do(t, f.gw, testkit.Request{Method: "POST", Path: "/api/v1/users/", Token: token, Body: body})
}

func TestStaffCreatesAUserWhoCanThenLogIn(t *testing.T) {
	f := setup(t)
	resp := f.create(t, f.staff,
		`{"email": "Grace@EXAMPLE.com", "password": "Tr1cky-Compiler", "confirm_password": "Tr1cky-Compiler",
		"first_name": "Grace", "last_name": "Hopper", "id": "ignored", "is_staff": true, "unknown": 1}`)
	if resp.Status != http.StatusCreated {
		t.Fatalf("status %d: %s", resp.Status, resp.Body)
	}
	id := resp.Object(t)["id"].(string)
	resp.Expect(t, 201, `{"id": "`+id+`", "email": "Grace@example.com", "first_name": "Grace", "last_name": "Hopper"}`)

	stored, err := f.db.Store.User(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	if stored.IsStaff || stored.IsSuperuser || !stored.IsActive || !stored.DateJoined.Equal(stored.CreatedAt) {
		t.Fatalf("new user flags: %+v", stored)
	}
	if !strings.HasPrefix(stored.PasswordHash, "argon2$argon2id$") {
		t.Fatal("password not stored as argon2id")
	}
	login := testkit.Do(t, f.gw, testkit.Request{Method: "POST", Path: "/api/v1/auth/login",
		Body: `{"username": "grace@example.com", "password": "Tr1cky-Compiler"}`})
	if login.Status != http.StatusCreated || login.Object(t)["id"] != id {
		t.Fatalf("login of the new user: %d %s", login.Status, login.Body)
	}
}

func TestCreateVariants(t *testing.T) {
	f := setup(t)
	for _, tc := range []struct {
		name, body string
		want       string // with ID in place of the new id
	}{
		{"without trailing slash keeps working", "", ""},
		{"full_name split at the first white space",
			`{"email": "a1@example.com", "password": "Vq8#mLp2zR", "confirm_password": "Vq8#mLp2zR", "full_name": " ` +
				` Ada   King Lovelace "}`,
			`{"id": "ID", "email": "a1@example.com", "first_name": "Ada", "last_name": "King Lovelace"}`},
		{"full_name split at Unicode white space",
			`{"email": "a6@example.com", "password": "Vq8#mLp2zR", "confirm_password": "Vq8#mLp2zR", "full_name": ` +
				`"Ada\u00a0\u000bLovelace"}`,
			`{"id": "ID", "email": "a6@example.com", "first_name": "Ada", "last_name": "Lovelace"}`},
		{"full_name of one word",
			`{"email": "a2@example.com", "password": "Vq8#mLp2zR", "confirm_password": "Vq8#mLp2zR", "full_name": "Cher"}`,
			`{"id": "ID", "email": "a2@example.com", "first_name": "Cher", "last_name": ""}`},
		{"explicit names win over full_name",
			`{"email": "a3@example.com", "password": "Vq8#mLp2zR", "confirm_password": "Vq8#mLp2zR", "full_name": ` +
				`"X Y", "first_name": "Ada"}`,
			`{"id": "ID", "email": "a3@example.com", "first_name": "Ada", "last_name": ""}`},
		// Stored blank, as Django's AbstractUser keeps a name not given, so that login shows the same "".
		{"null names",
			`{"email": "a4@example.com", "password": "Vq8#mLp2zR", "confirm_password": "Vq8#mLp2zR", "first_name": ` +
				`null, "last_name": null}`,
			`{"id": "ID", "email": "a4@example.com", "first_name": "", "last_name": ""}`},
		{"names at their limits",
			`{"email": "a5@example.com", "password": "Vq8#mLp2zR", "confirm_password": "Vq8#mLp2zR", "first_name": "` +
				strings.Repeat("f", 50) + `", "last_name": "` + strings.Repeat("l", 100) + `"}`,
			`{"id": "ID", "email": "a5@example.com", "first_name": "` + strings.Repeat("f", 50) + `", "last_name": "` +
				strings.Repeat("l", 100) + `"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.body == "" {
				resp := testkit.Do(t, f.gw, testkit.Request{Method: "POST", Path: "/api/v1/users", Token: f.staff,
					Body: `{"email": "slash@example.com", "password": "Vq8#mLp2zR", "confirm_password": "Vq8#mLp2zR"}`})
				id, _ := resp.Object(t)["id"].(string)
				resp.Expect(t, 201, `{"id": "`+id+`", "email": "slash@example.com", "first_name": "", "last_name": ""}`)
				return
			}
			resp := f.create(t, f.staff, tc.body)
			id, _ := resp.Object(t)["id"].(string)
			resp.Expect(t, 201, strings.Replace(tc.want, "ID", id, 1))
		})
	}
}

func TestCreateValidation(t *testing.T) {
	f := setup(t)
	f.db.User(t, testkit.NewUser{Email: "taken@example.com"})
	long := func(n int) string { return strings.Repeat("x", n) }
	for _, tc := range []struct{ name, body, want string }{
		{"nothing sent", `{}`,
			`{"email": ["This field is required."], "password": ["This field is required."], "confirm_password": ` +
				`["This field is required."]}`},
		{"bad email and blank passwords", `{"email": "not-an-email", "password": "", "confirm_password": ""}`,
			`{"email": ["Enter a valid email address."], "password": ["This field may not be blank."], ` +
				`"confirm_password": ["This field may not be blank."]}`},
		{"too long",
			`{"email": "` + long(250) +
				`@example.com", "password": "Vq8#mLp2zR", "confirm_password": "Vq8#mLp2zR", "first_name": "` + long(51) +
				`", "last_name": "` + long(101) + `"}`,
			`{"email": ["Ensure this field has no more than 255 characters."], "first_name": ["Ensure this field ` +
				`has no more than 50 characters."], "last_name": ["Ensure this field has no more than 100 characters."]}`},
		{"wrong types", `{"email": 5, "password": true, "confirm_password": ["x"], "first_name": {}}`,
			`{"email": ["Enter a valid email address."], "password": ["Not a valid string."], "confirm_password": ` +
				`["Not a valid string."], "first_name": ["Not a valid string."]}`},
		{"null where not allowed", `{"email": null, "password": null, "confirm_password": null}`,
			`{"email": ["This field may not be null."], "password": ["This field may not be null."], ` +
				`"confirm_password": ["This field may not be null."]}`},
		{"passwords differ", `{"email": "new1@example.com", "password": "Vq8#mLp2zR", "confirm_password": "Vq8#mLp2zX"}`,
			`{"confirm_password": ["Passwords do not match."]}`},
		{"short", `{"email": "new2@example.com", "password": "Zq9#x", "confirm_password": "Zq9#x"}`,
			`{"password": ["This password is too short. It must contain at least 8 characters."]}`},
		{"common and numeric", `{"email": "new3@example.com", "password": "12345678", "confirm_password": "12345678"}`,
			`{"password": ["This password is too common.", "This password is entirely numeric."]}`},
		{"common", `{"email": "new4@example.com", "password": "password", "confirm_password": "password"}`,
			`{"password": ["This password is too common."]}`},
		{"similar to the email",
			`{"email": "marguerite.yourcenar@example.com", "password": "margueriteyourcenar", "confirm_password": ` +
				`"margueriteyourcenar"}`,
			`{"password": ["The password is too similar to the email."]}`},
		{"similar to the first name",
			`{"email": "x1@example.com", "first_name": "Bartholomew", "password": "bartholomew1", ` +
				`"confirm_password": "bartholomew1"}`,
			`{"password": ["The password is too similar to the first name."]}`},
		{"similar to the first name before the email",
			`{"email": "lovelace@example.com", "first_name": "Lovelace", "password": "lovelace1", ` +
				`"confirm_password": "lovelace1"}`,
			`{"password": ["The password is too similar to the first name."]}`},
		{"similar to the last name",
			`{"email": "x2@example.com", "last_name": "Featherstonehaugh", "password": "featherstonehaugh", ` +
				`"confirm_password": "featherstonehaugh"}`,
			`{"password": ["The password is too similar to the last name."]}`},
		{"full_name parts too long",
			`{"email": "x3@example.com", "password": "Vq8#mLp2zR", "confirm_password": "Vq8#mLp2zR", "full_name": "` +
				long(51) + ` ` + long(101) + `"}`,
			`{"full_name": ["Ensure this field has no more than 50 characters.", "Ensure this field has no more ` +
				`than 100 characters."]}`},
		{"email taken", `{"email": "taken@example.com", "password": "Vq8#mLp2zR", "confirm_password": "Vq8#mLp2zR"}`,
			`{"email": ["user with this email already exists."]}`},
		{"email taken in another case",
			`{"email": "TAKEN@Example.COM", "password": "Vq8#mLp2zR", "confirm_password": "Vq8#mLp2zR"}`,
			`{"email": ["user with this email already exists."]}`},
		{"not an object", `["a"]`, `{"non_field_errors": ["Invalid data. Expected a dictionary, but got list."]}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f.create(t, f.staff, tc.body).Expect(t, 400, tc.want)
		})
	}
	t.Run("nothing was written", func(t *testing.T) {
		for _, email := range []string{"new1@example.com", "new2@example.com", "new3@example.com", "x3@example.com"} {
			if _, err := f.db.UserByEmail(t, email); domain.ErrorCode(err) != domain.ENOTFOUND {
				t.Fatalf("%s exists after a refused create (err %v)", email, err)
			}
		}
	})
}

func TestCreateAuthenticationAndPermission(t *testing.T) {
	f := setup(t)
	plain := f.db.User(t, testkit.NewUser{})
	super := f.db.User(t, testkit.NewUser{Superuser: true})
	inactive := f.db.User(t, testkit.NewUser{Staff: true})
	inactiveToken := f.db.Token(t, inactive, time.Hour)
	f.db.Deactivate(t, inactive)
	body := `{"email": "perm@example.com", "password": "Vq8#mLp2zR", "confirm_password": "Vq8#mLp2zR"}`
	const notProvided = `{"detail": "Authentication credentials were not provided."}`
	for _, tc := range []struct {
		name, auth, body, contentType string
		status                        int
		want                          string
	}{
		{"no header", "", body, "", 401, notProvided},
		{"empty header", " ", body, "", 401, notProvided},
		{"other scheme", "Basic dXNlcjpwYXNz", body, "", 401, notProvided},
		{"bearer without token", "Bearer", body, "", 401, `{"detail": "Invalid token header. No credentials provided."}`},
		{"token with spaces", "Bearer a b", body, "", 401,
			`{"detail": "Invalid token header. Token string should not contain spaces."}`},
		{"garbage token", "Bearer not-a-token", body, "", 401, `{"detail": "Invalid token."}`},
		{"unknown token", "Bearer " + forged(t, plain), body, "", 401, `{"detail": "Invalid token."}`},
		{"expired token", "Bearer " + f.db.Token(t, plain, -time.Second), body, "", 401, `{"detail": "Invalid token."}`},
		{"inactive user", "Bearer " + inactiveToken, body, "", 401, `{"detail": "User inactive or deleted."}`},
		{"not staff", "Bearer " + f.db.Token(t, plain, time.Hour), body, "", 403,
			`{"detail": "You do not have permission to perform this action."}`},
		{"authentication before media type", "", body, "text/plain", 401, notProvided},
		{"permission before body", "Bearer " + f.db.Token(t, plain, time.Hour), `[`, "", 403,
			`{"detail": "You do not have permission to perform this action."}`},
		{"scheme word in any case", "bEaReR " + f.db.Token(t, super, time.Hour), `{}`, "", 400,
			`{"email": ["This field is required."], "password": ["This field is required."], "confirm_password": ` +
				`["This field is required."]}`},
		{"media type checked for staff", "Bearer " + f.staff, body, "text/plain", 415,
			`{"detail": "Unsupported media type \"text/plain\" in request."}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := map[string]string{}
			if tc.auth != "" {
				h["Authorization"] = tc.auth
			}
			if tc.contentType != "" {
				h["Content-Type"] = tc.contentType
			}
			resp := testkit.Do(t, f.gw, testkit.Request{Method: "POST", Path: "/api/v1/users/", Body: tc.body, Header: h})
			resp.Expect(t, tc.status, tc.want)
			if tc.status == 401 && resp.Header.Get("WWW-Authenticate") != `Bearer realm="api"` {
				t.Fatalf("WWW-Authenticate %q", resp.Header.Get("WWW-Authenticate"))
			}
		})
	}
	t.Run("superuser creates", func(t *testing.T) {
		resp := f.create(t, f.db.Token(t, super, time.Hour), body)
		if resp.Status != 201 {
			t.Fatalf("status %d: %s", resp.Status, resp.Body)
		}
	})
	t.Run("other method", func(t *testing.T) {
		resp := testkit.Do(t, f.gw, testkit.Request{Method: "DELETE", Path: "/api/v1/users/", Token: f.staff})
		resp.Expect(t, 405, `{"detail": "Method \"DELETE\" not allowed."}`)
		if resp.Header.Get("Allow") != "POST" {
			t.Fatalf("Allow %q", resp.Header.Get("Allow"))
		}
	})
}

// forged returns a well-formed token for u that was never issued.
func forged(t *testing.T, u domain.User) string {
	t.Helper()
	tok, _, err := domain.NewTokenString(u.ID)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

func TestConcurrentCreatesOfOneEmailGiveOneUser(t *testing.T) {
	f := setup(t)
	const n = 10
	statuses := make([]int, n)
	bodies := make([]string, n)
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			resp := f.create(t, f.staff,
				`{"email": "race@example.com", "password": "Vq8#mLp2zR", "confirm_password": "Vq8#mLp2zR"}`)
			statuses[i], bodies[i] = resp.Status, string(resp.Body)
		}(i)
	}
	wg.Wait()
	created := 0
	for i, s := range statuses {
		switch {
		case s == 201:
			created++
		case s == 400 && testkit.JSONEqual([]byte(bodies[i]), []byte(`{"email": ["user with this email already exists."]}`)):
		default:
			t.Fatalf("unexpected %d %s", s, bodies[i])
		}
	}
	if created != 1 {
		t.Fatalf("%d creates succeeded, want exactly 1 (%v)", created, statuses)
	}
}

func TestCreateCallBudget(t *testing.T) {
	f := setup(t)
	for i, want := range []int{201, 400} {
		t.Run(fmt.Sprint(want), func(t *testing.T) {
			f.db.Calls.Reset()
			f.db.Calls.SimulateLatency(testkit.BudgetLatency)
			email := "budget@example.com"
			resp := f.create(t, f.staff, `{"email": "`+email+`", "password": "Vq8#mLp2zR", "confirm_password": "Vq8#mLp2zR"}`)
			if resp.Status != want {
				t.Fatalf("call %d: status %d: %s", i, resp.Status, resp.Body)
			}
			if n := len(f.db.Calls.Ops()); n > 2 {
				t.Fatalf("user creation made %d DynamoDB calls (%v), budget 2", n, f.db.Calls)
			}
		})
	}
}
