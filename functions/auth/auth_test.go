package auth_test

import (
	"context"
	"crypto/pbkdf2"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/reportingplatform/api/functions/auth"
	"github.com/reportingplatform/api/infra/testkit"
	"github.com/reportingplatform/api/shared/domain"
)

func setup(t *testing.T) (*testkit.DB, http.Handler) {
	t.Helper()
	db := testkit.NewDB(t)
	h := auth.New(db.Store, testkit.Log(t), 24*time.Hour, time.Now)
	return db, testkit.Gateway(t, map[string]http.Handler{"AuthFunction": h})
}

func login(t testing.TB, gw http.Handler, username, password string) testkit.Response {
	t.Helper()
	body := testkit.MustJSON(t, map[string]string{"username": username, "password": password})
	return testkit.Do(t, gw, testkit.Request{Method: "POST", Path: "/api/v1/auth/login", Body: body})
}

func TestLoginReturnsUserWithNewToken(t *testing.T) {
	db, gw := setup(t)
	u := db.User(t,
		testkit.NewUser{Email: "Ada@Example.com", FirstName: domain.Ptr("Ada"), LastName: domain.Ptr("Lovelace")})
	before := time.Now().UTC()

	for _, tc := range []struct{ name, path, username string }{
		{"seed path", "/api/v1/auth/login", "Ada@example.com"},
		{"trailing slash", "/api/v1/auth/login/", "Ada@example.com"},
		{"email in other case", "/api/v1/auth/login", "ADA@EXAMPLE.COM"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			body := testkit.MustJSON(t, map[string]string{"username": tc.username, "password": testkit.DefaultPassword})
			resp := testkit.Do(t, gw, testkit.Request{Method: "POST", Path: tc.path, Body: body})
			if resp.Status != http.StatusCreated {
				t.Fatalf("status %d: %s", resp.Status, resp.Body)
			}
			got := resp.Object(t)
			token, _ := got["token"].(string)
			if _, _, ok := domain.ParseTokenString(token); !ok {
				t.Fatalf("token %q is not a token", token)
			}
			lastLogin, err := time.Parse(time.RFC3339Nano, got["last_login"].(string))
			if err != nil || lastLogin.Before(before.Truncate(time.Microsecond)) {
				t.Fatalf("last_login %v not updated (err %v)", got["last_login"], err)
			}
			want := map[string]any{
				"id": u.ID, "token": token, "organizations": "[]", "password": "",
				"last_login": got["last_login"], "is_superuser": false, "is_staff": false, "is_active": true,
				"date_joined": domain.FormatTime(u.DateJoined), "created_at": domain.FormatTime(u.CreatedAt),
				"updated_at": domain.FormatTime(u.UpdatedAt), "email": "Ada@example.com",
				"first_name": "Ada", "last_name": "Lovelace", "groups": []any{}, "user_permissions": []any{},
			}
			resp.Expect(t, http.StatusCreated, testkit.MustJSON(t, want))
			if strings.Contains(string(resp.Body), "argon2") {
				t.Fatal("the response carries the password hash")
			}
		})
	}
}

func TestEveryLoginMakesANewTokenAndOldOnesStayValid(t *testing.T) {
	db, gw := setup(t)
	u := db.User(t, testkit.NewUser{})
	first := login(t, gw, u.Email, testkit.DefaultPassword).Object(t)["token"].(string)
	second := login(t, gw, u.Email, testkit.DefaultPassword).Object(t)["token"].(string)
	if first == second {
		t.Fatal("two logins gave the same token")
	}
	for _, tok := range []string{first, second} {
		id, hash, _ := domain.ParseTokenString(tok)
		session, err := db.Store.Session(context.Background(), domain.TokenRef{UserID: id, Hash: hash})
		if err != nil || !session.Found || session.User.ID != u.ID {
			t.Fatalf("token does not authenticate: %+v, %v", session, err)
		}
		stored := session.Token
		if d := stored.ExpiresAt.Sub(stored.CreatedAt); d != 24*time.Hour {
			t.Fatalf("token lifetime %v, want TOKEN_TTL 24h", d)
		}
		if stored.Hash == tok || strings.Contains(stored.Hash, tok) {
			t.Fatal("the token is stored in clear")
		}
	}
}

func TestLoginRefusals(t *testing.T) {
	db, gw := setup(t)
	active := db.User(t, testkit.NewUser{})
	inactive := db.User(t, testkit.NewUser{Inactive: true})
	const bad = `{"non_field_errors": ["Unable to log in with provided credentials."]}`
	for _, tc := range []struct {
		name, body, contentType string
		status                  int
		want                    string
	}{
		{"wrong password", `{"username": "` + active.Email + `", "password": "wrong password"}`, "", 400, bad},
		{"unknown email", `{"username": "nobody@example.com", "password": "whatever"}`, "", 400, bad},
		{"name longer than any email",
			`{"username": "` + strings.Repeat("x", 3000) + `@example.com", "password": "whatever"}`, "", 400, bad},
		{"inactive user", `{"username": "` + inactive.Email + `", "password": "` + testkit.DefaultPassword + `"}`,
			"", 400, bad},
		{"missing fields", `{}`, "", 400,
			`{"username": ["This field is required."], "password": ["This field is required."]}`},
		{"empty body", ``, "", 400, `{"username": ["This field is required."], "password": ["This field is required."]}`},
		{"blank fields", `{"username": " ", "password": ""}`, "", 400,
			`{"username": ["This field may not be blank."], "password": ["This field may not be blank."]}`},
		{"null fields", `{"username": null, "password": null}`, "", 400,
			`{"username": ["This field may not be null."], "password": ["This field may not be null."]}`},
		{"not strings", `{"username": ["a"], "password": {"b": 1}}`, "", 400,
			`{"username": ["Not a valid string."], "password": ["Not a valid string."]}`},
		{"list body", `[1, 2]`, "", 400, `{"non_field_errors": ["Invalid data. Expected a dictionary, but got list."]}`},
		{"string body", `"x"`, "", 400, `{"non_field_errors": ["Invalid data. Expected a dictionary, but got str."]}`},
		{"int body", `7`, "", 400, `{"non_field_errors": ["Invalid data. Expected a dictionary, but got int."]}`},
		{"text/plain", `{"username": "a"}`, "text/plain", 415,
			`{"detail": "Unsupported media type \"text/plain\" in request."}`},
		{"json with charset", `{}`, "application/json; charset=utf-8", 400,
			`{"username": ["This field is required."], "password": ["This field is required."]}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req := testkit.Request{Method: "POST", Path: "/api/v1/auth/login", Body: tc.body}
			if tc.contentType != "" {
				req.Header = map[string]string{"Content-Type": tc.contentType}
			}
			testkit.Do(t, gw, req).Expect(t, tc.status, tc.want)
		})
	}
	t.Run("malformed JSON", func(t *testing.T) {
		resp := testkit.Do(t, gw, testkit.Request{Method: "POST", Path: "/api/v1/auth/login", Body: `{"username": `})
		detail, _ := resp.Object(t)["detail"].(string)
		if resp.Status != 400 || !strings.HasPrefix(detail, "JSON parse error - ") {
			t.Fatalf("got %d %s", resp.Status, resp.Body)
		}
	})
	t.Run("body over 1 MiB", func(t *testing.T) {
		big := `{"username": "` + strings.Repeat("a", 1<<20) + `"}`
		testkit.Do(t, gw, testkit.Request{Method: "POST", Path: "/api/v1/auth/login", Body: big}).
			Expect(t, 413, `{"detail": "Request body too large."}`)
	})
	t.Run("other method", func(t *testing.T) {
		resp := testkit.Do(t, gw, testkit.Request{Method: "GET", Path: "/api/v1/auth/login"})
		resp.Expect(t, 405, `{"detail": "Method \"GET\" not allowed."}`)
		if got := resp.Header.Get("Allow"); got != "POST" {
			t.Fatalf("Allow %q", got)
		}
	})
	t.Run("unknown path", func(t *testing.T) {
		testkit.Do(t, gw, testkit.Request{Method: "POST", Path: "/api/v1/auth/signup"}).Expect(t, 404,
			`{"detail": "Not found."}`)
	})
}

// djangoPBKDF2 writes a hash the way Django's default PBKDF2PasswordHasher does.
func djangoPBKDF2(t *testing.T, plain, salt string, iterations int) string {
	t.Helper()
	key, err := pbkdf2.Key(sha256.New, plain, []byte(salt), iterations, 32)
	if err != nil {
		t.Fatal(err)
	}
	return "pbkdf2_sha256$" + strconv.Itoa(iterations) + "$" + salt + "$" + base64.StdEncoding.EncodeToString(key)
}

func TestDjangoPBKDF2HashLogsInAndIsUpgradedToArgon2id(t *testing.T) {
	db, gw := setup(t)
	legacy := djangoPBKDF2(t, "s3cret-from-django", "p4Ssalt", 1000)
	u := db.User(t, testkit.NewUser{Email: "legacy2@example.com", Hash: legacy})
	login(t, gw, "legacy2@example.com",
		"wrong").Expect(t, 400, `{"non_field_errors": ["Unable to log in with provided credentials."]}`)
	if got, _ := db.Store.User(context.Background(), u.ID); got.PasswordHash != legacy {
		t.Fatal("a failed login changed the stored hash")
	}
	if resp := login(t, gw, "legacy2@example.com", "s3cret-from-django"); resp.Status != http.StatusCreated {
		t.Fatalf("pbkdf2 login: %d %s", resp.Status, resp.Body)
	}
	got, err := db.Store.User(context.Background(), u.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(got.PasswordHash, "argon2$argon2id$v=19$m=7168,t=5,p=1$") {
		t.Fatalf("stored hash not upgraded: %.30s…", got.PasswordHash)
	}
	if resp := login(t, gw, "legacy2@example.com", "s3cret-from-django"); resp.Status != http.StatusCreated {
		t.Fatalf("login after upgrade: %d %s", resp.Status, resp.Body)
	}
}

func TestLoginCallBudget(t *testing.T) {
	db, gw := setup(t)
	u := db.User(t, testkit.NewUser{})
	for _, tc := range []struct {
		name, email, password string
		status                int
		calls, sequential     int
	}{
		// The email's claim read while the attempt is claimed in the email's and the address's failure
		// windows; the user, read while the password is hashed; the write, which gives both claims back.
		{"success", u.Email, testkit.DefaultPassword, 201, 5, 3},
		// The login gave its windows back whole: the next one claims as the first did.
		{"success again", u.Email, testkit.DefaultPassword, 201, 5, 3},
		// The read and the claims, then the user beside the hash, then the writes that keep both claims
		// as failures, at once (until then they are pending, and lapse if the login is never answered).
		{"wrong password", u.Email, "nope", 400, 6, 3},
		{"wrong password again", u.Email, "nope", 400, 6, 3},
		// A success within windows that hold failures takes its own claims back in its write.
		{"success after failures", u.Email, testkit.DefaultPassword, 201, 5, 3},
		// The same as a known email: the dummy hash check takes the time a real one does, beside the
		// read of a user that does not exist.
		{"unknown email", "nobody@example.com", "nope", 400, 6, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			db.Calls.Reset()
			db.Calls.SimulateLatency(testkit.BudgetLatency)
			if resp := login(t, gw, tc.email, tc.password); resp.Status != tc.status {
				t.Fatalf("status %d: %s", resp.Status, resp.Body)
			}
			if n := len(db.Calls.Ops()); n != tc.calls {
				t.Fatalf("login made %d DynamoDB calls (%v), want %d", n, db.Calls, tc.calls)
			}
			if n := db.Calls.Sequential(); n != tc.sequential {
				t.Fatalf("login made %d sequential DynamoDB calls (%v), want %d", n, db.Calls, tc.sequential)
			}
		})
	}
}

func BenchmarkLogin(b *testing.B) {
	db := testkit.NewDB(b)
	h := auth.New(db.Store, testkit.Log(b), time.Hour, time.Now)
	gw := testkit.Gateway(b, map[string]http.Handler{"AuthFunction": h})
	u := db.User(b, testkit.NewUser{})
	// The three cases should cost about the same: timing must not tell which emails exist.
	for _, bc := range []struct{ name, email, password string }{
		{"success", u.Email, testkit.DefaultPassword},
		{"wrong_password", u.Email, "wrong"},
		{"unknown_email", "nobody@example.com", "wrong"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			body := `{"username": "` + bc.email + `", "password": "` + bc.password + `"}`
			for i := 0; i < b.N; i++ {
				testkit.Do(b, gw, testkit.Request{Method: "POST", Path: "/api/v1/auth/login", Body: body})
			}
		})
	}
}

// A user moved over from the Django service by the fixture loader, with its pbkdf2_sha256 hash and its
// memberships, logs in, sees its organizations, and its hash becomes argon2id.
func TestUserLoadedFromDjangoLogsIn(t *testing.T) {
	db, gw := setup(t)
	const (
		userID = "0b8e3c5a-1f2d-4e6a-9b7c-8d9e0f1a2b3c"
		acme   = "1c2d3e4f-5a6b-4c7d-8e9f-0a1b2c3d4e5f"
		zeta   = "2d3e4f5a-6b7c-4d8e-9f0a-1b2c3d4e5f6a"
	)
	legacy := djangoPBKDF2(t, "from-django-2019", "Zx81salt", 260000)
	db.Load(t, json.RawMessage(`{
		"users": [{"id": "`+userID+`", "email": "Moved@Example.com", "password": "`+legacy+
		`", "first_name": "Mo", "last_name": "Ved"}],
		"organizations": [{"id": "`+zeta+`", "name": "Zeta"}, {"id": "`+acme+`", "name": "Acme"}],
		"members": [{"organization_id": "`+zeta+`", "user_id": "`+userID+`", "role": 0},
		            {"organization_id": "`+acme+`", "user_id": "`+userID+`", "role": 2}]}`), time.Now(), time.Hour)
	resp := login(t, gw, "moved@example.com", "from-django-2019")
	if resp.Status != http.StatusCreated {
		t.Fatalf("status %d: %s", resp.Status, resp.Body)
	}
	want := `[{"id":"` + acme + `","name":"Acme","role":2},{"id":"` + zeta + `","name":"Zeta","role":0}]`
	if got := resp.Object(t)["organizations"]; got != want {
		t.Fatalf("organizations %v\nwant %s", got, want)
	}
	stored, err := db.Store.User(context.Background(), userID)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(stored.PasswordHash, "argon2$argon2id$") {
		t.Fatalf("hash not upgraded: %.20s…", stored.PasswordHash)
	}
}
