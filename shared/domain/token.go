package domain

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"strings"

	"github.com/google/uuid"
)

// A token string is "<user id without dashes>.<43 characters of base64url>": 256 random bits after the
// user id. Carrying the user id lets authentication read the token and its user in one DynamoDB call;
// the id is not a secret (the login response returns it), the random part is.
const tokenRandomBytes = 32

// NewTokenString returns a fresh token for userID and the hash under which it is stored.
func NewTokenString(userID string) (token, hash string, err error) {
	id, err := uuid.Parse(userID)
	if err != nil {
		return "", "", &Error{Code: EINTERNAL, Err: err}
	}
	random := make([]byte, tokenRandomBytes)
	if _, err := rand.Read(random); err != nil {
		return "", "", &Error{Code: EINTERNAL, Err: err}
	}
	token = hex.EncodeToString(id[:]) + "." + base64.RawURLEncoding.EncodeToString(random)
	return token, HashToken(token), nil
}

// ParseTokenString returns the user id a token names and the token's hash; ok is false for anything
// that is not shaped like a token of ours.
func ParseTokenString(token string) (userID, hash string, ok bool) {
	idHex, secret, found := strings.Cut(token, ".")
	if !found || len(idHex) != 32 {
		return "", "", false
	}
	raw, err := hex.DecodeString(idHex)
	if err != nil {
		return "", "", false
	}
	if b, err := base64.RawURLEncoding.DecodeString(secret); err != nil || len(b) != tokenRandomBytes {
		return "", "", false
	}
	id, err := uuid.FromBytes(raw)
	if err != nil {
		return "", "", false
	}
	return id.String(), HashToken(token), true
}

// HashToken is how tokens are stored: a leaked table gives no usable token. SHA-256 suffices for
// 256-bit random secrets; a slow hash would only slow every request.
func HashToken(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}
