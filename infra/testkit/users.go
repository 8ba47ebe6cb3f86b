package testkit

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/reportingplatform/api/shared/domain"
	"github.com/reportingplatform/api/shared/password"
)

// NewUser describes a user to create directly in the store.
type NewUser struct {
	Email     string // default: a random address
	Password  string // default: DefaultPassword
	Hash      string // a stored hash to use as is (a Django pbkdf2_sha256 one, say) instead of Password's
	FirstName *string
	LastName  *string
	Staff     bool
	Superuser bool
	Inactive  bool
}

// DefaultPassword is the password of test users that set none.
const DefaultPassword = "correct horse battery staple"

var (
	hashMu    sync.Mutex
	hashCache = map[string]string{}
)

// hashOf hashes a password once per test binary: an argon2id hash is slow by design.
func hashOf(tb testing.TB, plain string) string {
	tb.Helper()
	hashMu.Lock()
	defer hashMu.Unlock()
	if h, ok := hashCache[plain]; ok {
		return h
	}
	h, err := password.Hash(plain)
	if err != nil {
		tb.Fatalf("hash: %v", err)
	}
	hashCache[plain] = h
	return h
}

// User creates a user in the store.
func (db *DB) User(tb testing.TB, n NewUser) domain.User {
	tb.Helper()
	if n.Email == "" {
		n.Email = "user-" + uuid.NewString()[:8] + "@example.com"
	}
	if n.Password == "" {
		n.Password = DefaultPassword
	}
	hash := n.Hash
	if hash == "" {
		hash = hashOf(tb, n.Password)
	}
	secrets.password(n.Password)
	secrets.hash(hash)
	now := domain.Stamp(time.Now())
	u := domain.User{
		ID: uuid.NewString(), Email: domain.NormalizeEmail(n.Email), PasswordHash: hash,
		FirstName: n.FirstName, LastName: n.LastName, IsStaff: n.Staff, IsSuperuser: n.Superuser,
		IsActive: !n.Inactive, DateJoined: now, CreatedAt: now, UpdatedAt: now,
	}
	if err := db.Store.CreateUser(context.Background(), u, nil); err != nil {
		tb.Fatalf("create user: %v", err)
	}
	return u
}

// Token stores a token for u that expires after ttl (negative: already expired) and returns it.
func (db *DB) Token(tb testing.TB, u domain.User, ttl time.Duration) string {
	tb.Helper()
	token, hash, err := domain.NewTokenString(u.ID)
	if err != nil {
		tb.Fatal(err)
	}
	secrets.credential(token)
	now := domain.Stamp(time.Now())
	u.LastLogin = &now
	t := domain.Token{Hash: hash, UserID: u.ID, CreatedAt: now, ExpiresAt: now.Add(ttl)}
	if err := db.Store.RecordLogin(context.Background(), domain.LoginWrite{User: u, Token: t}); err != nil {
		tb.Fatalf("store token: %v", err)
	}
	return token
}
