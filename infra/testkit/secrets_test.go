package testkit

import (
	"log"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/reportingplatform/api/shared/domain"
	"github.com/reportingplatform/api/shared/httpapi"
)

// The search must find what a careless log line would carry, whole or in part, and nothing that only
// looks alike: ids, public hash prefixes, words, values the test sent in a URL.
func TestFindLeaksTellsSecretsFromCoincidences(t *testing.T) {
	userID := uuid.NewString()
	token, tokenHash, err := domain.NewTokenString(userID)
	if err != nil {
		t.Fatal(err)
	}
	idHex, random, _ := strings.Cut(token, ".")
	hashPiece := tokenHash[:24] // a prefix long enough that no random id shares it by chance
	randomPiece := random[5:21]
	const (
		argonHash = "argon2$argon2id$v=19$m=19456,t=2,p=1$c2FsdHNhbHRzYWx0c2FsdA$Zm9vYmFyYmF6cXV4cXV1eGNvcmdlZ3JhdWx0Z2FycGx5"
		unknownID = "00000000-0000-4000-8000-000000000000"
	)
	s := newSecretSet()
	s.credential(token)
	s.password(argonHash)
	s.password(`Vq8"mLp2zR`) // JSON escapes the quote
	s.password("password")
	s.password("wrong")
	s.password(DefaultPassword)
	s.password(unknownID)
	s.password("c0ffee12c0ffee34") // hex digits a random id may hold
	s.publicURL("/api/v1/comments/" + unknownID + "/")
	digits := "12345678" + strings.Repeat("ab", 28) // a token hash that starts with 8 decimal digits
	s.add(kindTokenHash, digits)

	var capture logCapture
	log := httpapi.NewLogger(&capture, "json").With("request_id", uuid.NewString())
	for _, tc := range []struct {
		name  string
		write func()
		want  secretKind // "" when the line is no leak
		piece bool
	}{
		{"the token", func() { log.Info("request", "authorization", "Bearer "+token) }, kindToken, false},
		{"16 characters of the token's random part", func() { log.Info("auth", "token_prefix", randomPiece) },
			kindToken, true},
		{"the token's hash", func() { log.Info("get token", "key", "TOKEN#"+tokenHash) }, kindTokenHash, false},
		{"the first 24 characters of the token's hash", func() { log.Info("get token", "hash", hashPiece) },
			kindTokenHash, true},
		{"the password hash", func() { log.Error("request failed", "error", "bad hash "+argonHash) }, kindHash, false},
		{"16 characters of the hash's salt", func() { log.Warn("hash", "salt", "c2FsdHNhbHRzYWx0") }, kindHash, true},
		{"a password, escaped in JSON", func() { log.Info("login", "body", `{"password": "Vq8"mLp2zR"}`) },
			kindPassword, false},
		{"a piece of a password", func() { log.Info("login", "p", "xq8\"mLp2zx") }, kindPassword, true},
		{"a passphrase", func() { log.Info("login " + DefaultPassword) }, kindPassword, false},

		{"the user id the token starts with", func() { log.Info("request", "user_id", userID, "hex", idHex) }, "", false},
		{"a hash's public prefix", func() { log.Info("upgrade", "from", "argon2$argon2id$v=19$m=19456,t=2,p=1$") },
			"", false},
		{"a UUID that holds 8 hex digits of the token's hash", func() {
			log.Info("request", "path", "/api/v1/comments/"+tokenHash[:8]+"-0000-4000-8000-000000000000/")
		}, "", false},
		// What failed a run: a random id that shares a short run with a secret is no leak.
		{"a request id that starts with 12 hex digits of the token's hash", func() {
			log.Info("request", "write_token", tokenHash[:12]+"0123456789abcdef0123")
		}, "", false},
		{"a UUID that ends with 12 hex digits of the token's hash", func() {
			log.Info("request", "request_id", "00000000-0000-4000-8000-"+tokenHash[10:22])
		}, "", false},
		{"an id that shares 8 characters with the token's random part", func() {
			log.Info("request", "id", "Zz"+random[5:13]+"Zz")
		}, "", false},
		{"an id that shares 15 characters with the hash's salt", func() {
			log.Info("request", "id", "c2FsdHNhbHRzYWx")
		}, "", false},
		{"nanoseconds that match a token hash's decimal digits", func() {
			log.Info("request", "at", "2026-11-23T19:32:10.123456789Z")
		}, "", false},
		{"a piece of a hash with digits and letters", func() { log.Info("x", "h", "9"+digits[1:25]+"x") }, kindTokenHash,
			true},
		{"a piece of a password inside a random hex id", func() {
			log.Info("request", "id", "0123c0ffee12456789abcdef0123456789ab")
		}, "", false},
		{"a piece of a password elsewhere", func() { log.Info("login", "p", "was c0ffee12?") }, kindPassword, true},
		{"words a password is made of", func() { log.Warn("stored password hash unreadable: wrong battery") }, "", false},
		{"a path the test sent that was also a password", func() {
			log.Info("request", "path", "/api/v1/comments/"+unknownID+"/", "status", 404)
		}, "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			capture.lines = nil
			tc.write()
			leaks := findLeaks(capture.lines, s)
			if tc.want == "" {
				if len(leaks) > 0 {
					t.Fatalf("reported %v", leaks)
				}
				return
			}
			if len(leaks) != 1 || leaks[0].kind != tc.want || leaks[0].piece != tc.piece {
				t.Fatalf("leaks %v, want one of kind %q (piece %v) in %s", leaks, tc.want, tc.piece, capture.lines)
			}
			if line := leaks[0].line; strings.Contains(line, leaks[0].secret) || strings.Contains(line, randomPiece) ||
				strings.Contains(line, hashPiece) || strings.Contains(line, "c2FsdHNh") || strings.Contains(line, "mLp2z") ||
				strings.Contains(line, "c0ffee12") {
				t.Fatalf("the report shows the secret: %s", line)
			}
		})
	}
}

// What passes through testkit is registered: passwords of request bodies and fixtures, tokens of
// Authorization and of responses, hashes of tokens.
func TestRequestsAndResponsesRegisterTheirSecrets(t *testing.T) {
	token, hash, err := domain.NewTokenString(uuid.NewString())
	if err != nil {
		t.Fatal(err)
	}
	s := newSecretSet()
	s.requestBody(`{"email": "a@example.com", "password": "Tr1cky-Compiler", "confirm_password": "Tr1cky-Compilr"}`)
	s.requestBody(`{"users": [{"email": "b@example.com", "password": "pbkdf2_sha256$1000$salt$abc"}]}`)
	s.responseBody([]byte(`{"id": "x", "token": "` + token + `", "password": ""}`))
	want := map[string]secretKind{
		"Tr1cky-Compiler": kindPassword, "Tr1cky-Compilr": kindPassword, "pbkdf2_sha256$1000$salt$abc": kindHash,
		token: kindToken, hash: kindTokenHash,
	}
	if len(s.values) != len(want) {
		t.Fatalf("registered %v, want %v", s.values, want)
	}
	for v, kind := range want {
		if s.values[v] != kind {
			t.Errorf("%s registered as %q, want %q", v, s.values[v], kind)
		}
	}
}

// Main fails the test binary when a line logged through Log, or through the log package's default
// logger, carries a secret (run as a child process of this test).
func TestMainFailsWhenALogLineCarriesASecret(t *testing.T) {
	if os.Getenv("TESTKIT_LEAK") != "" {
		token, _, err := domain.NewTokenString(uuid.NewString())
		if err != nil {
			t.Fatal(err)
		}
		secrets.credential(token)
		secrets.password("Vq8#mLp2zR")
		Log(t).Info("authenticated", "token", token[:49]) // the user id, the dot and 16 random characters
		log.Printf("login with Vq8#mLp2zR")
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestMainFailsWhenALogLineCarriesASecret$")
	cmd.Env = append(os.Environ(), "TESTKIT_LEAK=1")
	out, err := cmd.CombinedOutput()
	if err == nil {
		t.Fatalf("the test binary passed with secrets in its logs:\n%s", out)
	}
	for _, want := range []string{
		"SECRET IN LOG: a piece (16 characters) of a token in: ",
		"SECRET IN LOG: a password in: ",
		"2 leaks",
	} {
		if !strings.Contains(string(out), want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(string(out), "Vq8#mLp2zR") {
		t.Errorf("the report shows the password:\n%s", out)
	}
}
