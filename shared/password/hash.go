package password

import (
	"crypto/pbkdf2"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"golang.org/x/crypto/argon2"
)

// Parameters of new hashes: one of the OWASP Password Storage Cheat Sheet's
// equivalent minimums for argon2id (the sheet lists its rows as "an equal
// level of defense"). Of those rows it is the one with the least memory,
// which is what a Lambda function pays for: every first touch of fresh memory
// is a page fault, which a cold instance's first logins pay for (doc.go).
// Raising memory or the memory-passes product makes Verify report needsRehash
// for older hashes, so they can be increased later without a migration.
const (
	// ArgonMemoryKiB is the argon2 memory cost in KiB (m).
	ArgonMemoryKiB = 7168
	// ArgonTime is the number of argon2 passes over memory (t).
	ArgonTime = 5
	// ArgonThreads is the argon2 parallelism, the number of lanes (p).
	ArgonThreads = 1
	// ArgonKeyLen is the length in bytes of the derived hash; 32 is what
	// Django's Argon2PasswordHasher uses.
	ArgonKeyLen = 32
	// ArgonSaltLen is the length in bytes of the random salt; 16 bytes
	// (128 bits) is the size RFC 9106 recommends.
	ArgonSaltLen = 16
)

// Limits on stored parameters. A stored hash is data, so an absurd parameter
// (m=4294967295, iterations=1e12) would let whoever can write one make every
// login of that user burn gigabytes or hours; such hashes are refused as
// malformed instead. Every value is far above anything Django writes.
const (
	maxArgonMemoryKiB    = 1 << 20 // 1 GiB
	maxArgonTime         = 10
	maxArgonThreads      = 16
	minArgonSaltLen      = 8    // RFC 9106 minimum
	minArgonKeyLen       = 4    // RFC 9106 minimum
	maxArgonKeyLen       = 1024 // far above any real hash, bounds the work
	maxPBKDF2Iterations  = 10_000_000
	pbkdf2SHA256KeyLen   = sha256.Size
	argonAlgorithmPrefix = "argon2"
	pbkdf2Algorithm      = "pbkdf2_sha256"
	argonVersionField    = "v=19" // argon2 version 0x13, the only one x/crypto implements
)

var (
	// ErrMalformedHash reports an encoded hash that cannot be parsed or whose
	// parameters are out of the accepted range.
	ErrMalformedHash = errors.New("malformed password hash")
	// ErrUnsupportedHash reports a well-formed hash of an algorithm or
	// version this package does not implement (for example argon2d, argon2
	// version 0x10, or Django's sha1/md5 hashers).
	ErrUnsupportedHash = errors.New("unsupported password hash")
)

// b64Raw decodes argon2 salts and hashes. Strict mode rejects non-zero
// trailing bits like the argon2 reference decoder does, so each hash has one
// spelling.
var (
	b64Raw = base64.RawStdEncoding.Strict()
	b64Std = base64.StdEncoding.Strict()
)

// Hash returns a new Django-compatible argon2id hash of plain with a fresh
// random salt and the current parameters.
func Hash(plain string) (string, error) {
	salt := make([]byte, ArgonSaltLen)
	if _, err := rand.Read(salt); err != nil {
		return "", fmt.Errorf("password: hash: read random salt: %w", err)
	}
	awaitPrepared()
	key := argon2.IDKey([]byte(plain), salt, ArgonTime, ArgonMemoryKiB, ArgonThreads, ArgonKeyLen)
	return encodeArgon2id(salt, key), nil
}

// encodeArgon2id formats salt and key as Django stores an argon2id hash made
// with the current parameters.
func encodeArgon2id(salt, key []byte) string {
	return fmt.Sprintf("%s$argon2id$%s$m=%d,t=%d,p=%d$%s$%s",
		argonAlgorithmPrefix, argonVersionField, ArgonMemoryKiB, ArgonTime, ArgonThreads,
		b64Raw.EncodeToString(salt), b64Raw.EncodeToString(key))
}

// Verify reports whether plain matches the Django-encoded hash. needsRehash
// is true only when the password matched and the stored hash should be
// replaced by Hash(plain): always for pbkdf2_sha256 and argon2i, and for
// argon2id hashes whose parameters are weaker than the current ones. A hash
// that cannot be parsed, or uses an unsupported algorithm, gives ok=false and
// an error wrapping ErrMalformedHash or ErrUnsupportedHash. Verify never
// panics, whatever the input.
func Verify(plain, encoded string) (ok bool, needsRehash bool, err error) {
	// Go's base64 decoders skip newlines; Django's and argon2's do not.
	if strings.ContainsAny(encoded, "\r\n") {
		return false, false, fmt.Errorf("password: verify: %w: line break", ErrMalformedHash)
	}
	algorithm, _, _ := strings.Cut(encoded, "$")
	switch algorithm {
	case argonAlgorithmPrefix:
		return verifyArgon2(plain, encoded)
	case pbkdf2Algorithm:
		return verifyPBKDF2(plain, encoded)
	case "":
		return false, false, fmt.Errorf("password: verify: %w: no algorithm", ErrMalformedHash)
	default:
		return false, false, fmt.Errorf("password: verify: %w: unknown algorithm", ErrUnsupportedHash)
	}
}

// argon2Hash is a parsed Django argon2 hash.
type argon2Hash struct {
	variant string // "argon2id" or "argon2i"
	memory  uint32
	time    uint32
	threads uint8
	salt    []byte
	key     []byte
}

// verifyArgon2 checks plain against a hash of Django's Argon2PasswordHasher.
func verifyArgon2(plain, encoded string) (bool, bool, error) {
	h, err := parseArgon2(encoded)
	if err != nil {
		return false, false, fmt.Errorf("password: verify argon2: %w", err)
	}
	var got []byte
	switch h.variant {
	case "argon2id":
		awaitPrepared()
		got = argon2.IDKey([]byte(plain), h.salt, h.time, h.memory, h.threads, uint32(len(h.key)))
	case "argon2i":
		got = argon2.Key([]byte(plain), h.salt, h.time, h.memory, h.threads, uint32(len(h.key)))
	}
	if subtle.ConstantTimeCompare(got, h.key) != 1 {
		return false, false, nil
	}
	return true, h.weakerThanCurrent(), nil
}

// weakerThanCurrent reports whether h should be replaced by a hash with the
// current parameters: less memory, or less work (memory × passes, the cost of
// one guess in OWASP's table), than the current ones. Hashes of OWASP's other
// rows, and Django's own defaults, are not weaker and are kept. Parallelism
// is not compared: more lanes over the same memory is not a weaker hash, and
// Django's own p=8 hashes must not be rewritten on every login.
func (h argon2Hash) weakerThanCurrent() bool {
	return h.variant != "argon2id" ||
		h.memory < ArgonMemoryKiB ||
		uint64(h.memory)*uint64(h.time) < ArgonMemoryKiB*ArgonTime ||
		len(h.key) < ArgonKeyLen ||
		len(h.salt) < ArgonSaltLen
}

// parseArgon2 splits "argon2$<variant>$v=19$m=..,t=..,p=..$<salt>$<hash>" and
// checks every field against the accepted ranges before any work is done.
func parseArgon2(encoded string) (argon2Hash, error) {
	var h argon2Hash
	fields := strings.Split(encoded, "$")
	if len(fields) == 5 && strings.HasPrefix(fields[2], "m=") {
		// argon2-cffi omits "v=" for version 0x10 hashes.
		return h, fmt.Errorf("parse version: %w: argon2 version 0x10", ErrUnsupportedHash)
	}
	if len(fields) != 6 {
		return h, fmt.Errorf("split fields: %w: want 6 fields, got %d", ErrMalformedHash, len(fields))
	}
	switch fields[1] {
	case "argon2id", "argon2i":
		h.variant = fields[1]
	case "argon2d":
		return h, fmt.Errorf("parse variant: %w: argon2d", ErrUnsupportedHash)
	default:
		return h, fmt.Errorf("parse variant: %w", ErrMalformedHash)
	}
	if fields[2] != argonVersionField {
		if strings.HasPrefix(fields[2], "v=") {
			return h, fmt.Errorf("parse version: %w: argon2 version other than 19", ErrUnsupportedHash)
		}
		return h, fmt.Errorf("parse version: %w", ErrMalformedHash)
	}
	if err := h.parseParams(fields[3]); err != nil {
		return h, fmt.Errorf("parse parameters: %w", err)
	}
	var err error
	if h.salt, err = b64Raw.DecodeString(fields[4]); err != nil || len(h.salt) < minArgonSaltLen {
		return h, fmt.Errorf("decode salt: %w", ErrMalformedHash)
	}
	// Check the length before decoding so that a huge field costs nothing.
	if len(fields[5]) > b64Raw.EncodedLen(maxArgonKeyLen) {
		return h, fmt.Errorf("decode hash: %w: too long", ErrMalformedHash)
	}
	if h.key, err = b64Raw.DecodeString(fields[5]); err != nil || len(h.key) < minArgonKeyLen {
		return h, fmt.Errorf("decode hash: %w", ErrMalformedHash)
	}
	return h, nil
}

// parseParams reads "m=<KiB>,t=<passes>,p=<lanes>" in the order argon2's
// reference encoder writes it, refusing values outside the accepted ranges.
func (h *argon2Hash) parseParams(s string) error {
	parts := strings.Split(s, ",")
	if len(parts) != 3 {
		return fmt.Errorf("%w: want m, t and p", ErrMalformedHash)
	}
	m, err := parseParam(parts[0], "m=", 1, maxArgonMemoryKiB)
	if err != nil {
		return err
	}
	t, err := parseParam(parts[1], "t=", 1, maxArgonTime)
	if err != nil {
		return err
	}
	p, err := parseParam(parts[2], "p=", 1, maxArgonThreads)
	if err != nil {
		return err
	}
	if m < 8*p { // RFC 9106: at least 8 KiB per lane
		return fmt.Errorf("%w: m below 8*p", ErrMalformedHash)
	}
	h.memory, h.time, h.threads = uint32(m), uint32(t), uint8(p)
	return nil
}

// parseParam parses "<prefix><decimal>" and checks min <= value <= max.
func parseParam(s, prefix string, minimum, maximum uint64) (uint64, error) {
	digits, found := strings.CutPrefix(s, prefix)
	if !found {
		return 0, fmt.Errorf("%w: want %q", ErrMalformedHash, prefix)
	}
	v, err := parseDecimal(digits, maximum)
	if err != nil || v < minimum {
		return 0, fmt.Errorf("%w: %s out of range", ErrMalformedHash, strings.TrimSuffix(prefix, "="))
	}
	return v, nil
}

// parseDecimal accepts ASCII digits only (no sign, no spaces, no "_" as
// strconv would with base 0) and refuses values above maximum.
func parseDecimal(s string, maximum uint64) (uint64, error) {
	if s == "" || len(s) > 20 || strings.Trim(s, "0123456789") != "" {
		return 0, ErrMalformedHash
	}
	v, err := strconv.ParseUint(s, 10, 64)
	if err != nil || v > maximum {
		return 0, ErrMalformedHash
	}
	return v, nil
}

// verifyPBKDF2 checks plain against a hash of Django's PBKDF2PasswordHasher,
// "pbkdf2_sha256$<iterations>$<salt>$<base64 hash>".
func verifyPBKDF2(plain, encoded string) (bool, bool, error) {
	// Django splits at most three times, so the hash field is the rest.
	fields := strings.SplitN(encoded, "$", 4)
	if len(fields) != 4 {
		return false, false, fmt.Errorf("password: verify pbkdf2: split fields: %w", ErrMalformedHash)
	}
	iterations, err := parseDecimal(fields[1], maxPBKDF2Iterations)
	if err != nil || iterations < 1 {
		return false, false, fmt.Errorf("password: verify pbkdf2: parse iterations: %w", ErrMalformedHash)
	}
	salt := fields[2]
	if salt == "" {
		return false, false, fmt.Errorf("password: verify pbkdf2: parse salt: %w: empty", ErrMalformedHash)
	}
	if len(fields[3]) != b64Std.EncodedLen(pbkdf2SHA256KeyLen) {
		return false, false, fmt.Errorf("password: verify pbkdf2: decode hash: %w: wrong length", ErrMalformedHash)
	}
	want, err := b64Std.DecodeString(fields[3])
	if err != nil || len(want) != pbkdf2SHA256KeyLen {
		return false, false, fmt.Errorf("password: verify pbkdf2: decode hash: %w", ErrMalformedHash)
	}
	got, err := pbkdf2.Key(sha256.New, plain, []byte(salt), int(iterations), pbkdf2SHA256KeyLen)
	if err != nil {
		return false, false, fmt.Errorf("password: verify pbkdf2: derive key: %w", err)
	}
	if subtle.ConstantTimeCompare(got, want) != 1 {
		return false, false, nil
	}
	// Every pbkdf2 hash is upgraded to argon2id on the next login.
	return true, true, nil
}

// DummyHash is an argon2id hash with the current parameters that
// VerifyDummy checks against, as login does wherever it has no usable hash
// to check: the empty password under the salt "reportingplatfrm". It
// protects nothing, it only has to cost the same as a
// real hash. It is a constant rather than computed on first use, which made a
// process's first unknown-email login hash twice, and so answer slower than a
// wrong password would. TestVerifyDummy fails when the parameters move on.
const DummyHash = "argon2$argon2id$v=19$m=7168,t=5,p=1$cmVwb3J0aW5ncGxhdGZybQ$" +
	"x14u+zmnlmdvwdHN6Qr0P6NW+CKkZFQ21RBBETqU8fQ"

// VerifyDummy does the work of Verify against a current argon2id hash and
// throws the result away. Call it when a login names an unknown account, so
// that the response takes as long as for a wrong password and response times
// do not reveal which accounts exist.
func VerifyDummy(plain string) {
	_, _, _ = Verify(plain, DummyHash)
}
