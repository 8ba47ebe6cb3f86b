package auth_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/reportingplatform/api/infra/testkit"
	"github.com/reportingplatform/api/shared/password"
)

// TestEveryRefusedLoginChecksOneHashOfTheSameKind holds SPEC §9's "Login timing" without a clock: a
// login refused for any reason checks exactly one hash, and it is an argon2id hash at the current
// parameters, the user's own for a wrong password, the dummy one for everything else. (make bench
// prints the times.)
func TestEveryRefusedLoginChecksOneHashOfTheSameKind(t *testing.T) {
	db := testkit.NewDB(t)
	checks := &hashChecks{}
	gw, _ := serve(t, db.Store, checks)
	active := db.User(t, testkit.NewUser{})
	legacy := djangoPBKDF2(t, testkit.DefaultPassword, "s4lt", 1000)
	for _, tc := range []struct {
		name, email, password string
		want                  string // the one hash checked
	}{
		{"wrong password", active.Email, "wrong", active.PasswordHash},
		{"unknown email", "nobody@example.com", testkit.DefaultPassword, password.DummyHash},
		{"inactive account", db.User(t, testkit.NewUser{Inactive: true}).Email, testkit.DefaultPassword, password.DummyHash},
		{"inactive account with a Django hash", db.User(t, testkit.NewUser{Inactive: true, Hash: legacy}).Email,
			testkit.DefaultPassword, password.DummyHash},
		{"unusable password", db.User(t, testkit.NewUser{Hash: "!Xk2ab9unusable"}).Email, "!Xk2ab9unusable",
			password.DummyHash},
		{"unreadable hash", db.User(t, testkit.NewUser{Hash: "argon2$argon2id$v=19$m=7168,t=5,p=1$broken"}).Email,
			"x", password.DummyHash},
		{"unsupported hash", db.User(t, testkit.NewUser{Hash: "bcrypt_sha256$$2b$12$abc"}).Email, "x", password.DummyHash},
	} {
		t.Run(tc.name, func(t *testing.T) {
			checks.take()
			loginFrom(t, gw, "", tc.email, tc.password).Expect(t, http.StatusBadRequest, badCredentials)
			checked := checks.take()
			if len(checked) != 1 || checked[0] != tc.want {
				t.Fatalf("checked %d hashes (the expected one: %v), want exactly one", len(checked),
					len(checked) == 1 && checked[0] == tc.want)
			}
		})
	}
	// The same kind: argon2id at the parameters new hashes get.
	kind := func(h string) string { return h[:strings.LastIndex(h[:strings.LastIndex(h, "$")], "$")] }
	if kind(active.PasswordHash) != kind(password.DummyHash) {
		t.Fatalf("the dummy hash is %s, a user's %s", kind(password.DummyHash), kind(active.PasswordHash))
	}
}
