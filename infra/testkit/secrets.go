package testkit

import (
	"encoding/json"
	"fmt"
	"net/url"
	"reflect"
	"sort"
	"strings"
	"sync"

	"github.com/aws/smithy-go/middleware"
	"github.com/reportingplatform/api/shared/domain"
)

// SPEC §9: no password, password hash or token, nor a piece of one, appears in any log line. Every
// secret that passes through testkit is registered here (users' passwords and hashes, tokens, the
// passwords of request bodies, the tokens of responses, the hashes the store writes and reads); Main
// looks for each of them, and for each piece of it, in every line the test binary logged.
//
// What counts, so that a hit is a leak and never a coincidence:
//
//   - A token is "<user id in hex>.<43 random base64url characters>". The user id is not secret (ids are
//     logged and returned), so the pieces are those of the random part; the whole token counts too.
//     Its SHA-256 (how the store keeps it) counts whole and by pieces.
//   - A Django hash is "argon2$argon2id$v=19$m=…,t=…,p=…$<salt>$<hash>" or
//     "pbkdf2_sha256$<iterations>$<salt>$<hash>". The algorithm and parameters are public, so the pieces
//     are those of "<salt>$<hash>"; the whole hash counts too.
//   - The pieces of these random secrets carry randomBits each: 16 base64 characters, 24 hex digits
//     (randomPieceLen). The logs are full of random ids (request ids, resource ids, hex keys): a binary
//     registers some hundred thousand pieces and logs some million characters, and a piece of 8 hex
//     digits (32 bits) meets an id by chance in about every run. At 96 bits no run ever will, and a
//     leaked prefix of that length still shows. Pieces made only of decimal digits are not looked
//     for: every line's timestamp has nine digits of nanoseconds. The whole secret still is.
//   - Passwords (and credentials that are not shaped like a token) are text a test chose, often words.
//     Text of fewer than 6 characters ("x", "wrong") never counts: it cannot be told from ordinary log
//     text, and the API gives no account such a password (Django's validators ask for 8). Text made
//     only of lowercase ASCII letters and spaces counts only from 16 characters on: "password" or
//     "wrong password" are words log messages may contain ("stored password hash unreadable"), while a
//     passphrase such as DefaultPassword is not. The same rules pick the 8-character pieces of a
//     password: "Vq8#mLp2" counts, "correct " does not. A piece of a password that lies inside a random
//     id (a UUID, a run of 32 or more hex digits) is the id's: a test sends random ids as passwords.
//   - A password that a test also sent in a URL (the hostile-value tests send the same junk, an unknown
//     UUID say, as a password and as a path id) is public: the router logs paths by design. A hit of a
//     password, or of a piece of one, that also occurs in a path or query some request carried is not a
//     leak.
type secretSet struct {
	mu     sync.Mutex
	values map[string]secretKind
	public map[string]struct{} // paths and query values tests sent
}

type secretKind string

const (
	kindPassword        secretKind = "password"
	kindHash            secretKind = "password hash"
	kindToken           secretKind = "token"
	kindTokenHash       secretKind = "token hash"
	kindCredential      secretKind = "credential" // an Authorization value not shaped like a token
	kindInvitationToken secretKind = "invitation token"
)

// human is true of secrets a test chose as text, to which the word and public-text rules apply.
func (k secretKind) human() bool { return k == kindPassword || k == kindCredential }

// The length of the pieces of text a test chose; the shortest such text that counts; the shortest that
// counts when it is only lowercase letters and spaces.
const (
	pieceLen   = 8
	shortHuman = 6
	longWords  = 16
)

// randomBits is what a piece of a random secret carries, too much for any id to match by chance.
const randomBits = 96

// randomPieceLen is the length of the pieces of a random secret whose part is part: randomBits of hex
// digits (4 bits each) or of base64 (6 bits each).
func randomPieceLen(part string) int {
	if isHex(part) {
		return randomBits / 4
	}
	return randomBits / 6
}

func newSecretSet() *secretSet {
	return &secretSet{values: map[string]secretKind{}, public: map[string]struct{}{}}
}

// secrets holds everything the test binary registered.
var secrets = newSecretSet()

func (s *secretSet) add(kind secretKind, v string) {
	if v == "" {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.values[v]; !ok {
		s.values[v] = kind
	}
}

// password registers a password, or a Django hash sent where a password goes (fixtures accept both).
func (s *secretSet) password(p string) {
	if isDjangoHash(p) {
		s.add(kindHash, p)
		return
	}
	s.add(kindPassword, p)
}

func (s *secretSet) hash(h string) { s.add(kindHash, h) }

// credential registers what a client sent or got as a bearer token: one of ours with its stored hash,
// anything else as text a test chose.
func (s *secretSet) credential(t string) {
	t = strings.TrimSpace(t)
	if _, hash, ok := domain.ParseTokenString(t); ok {
		s.add(kindToken, t)
		s.add(kindTokenHash, hash)
		return
	}
	s.add(kindCredential, t)
}

// publicURL records the path and query values of a request (as sent and decoded) as public text.
func (s *secretSet) publicURL(raw string) {
	texts := []string{raw}
	if u, err := url.Parse(raw); err == nil {
		texts = append(texts, u.Path)
		for _, vs := range u.Query() {
			texts = append(texts, vs...)
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, t := range texts {
		s.public[t] = struct{}{}
	}
}

// requestBody registers every password and confirm_password string of a JSON body.
func (s *secretSet) requestBody(body string) {
	walkJSON([]byte(body), func(key, value string) {
		if key == "password" || key == "confirm_password" {
			s.password(value)
		}
	})
}

// responseBody registers every token of a JSON body: login tokens, and the tokens of invitations.
func (s *secretSet) responseBody(body []byte) {
	walkJSON(body, func(key, value string) {
		if key != "token" {
			return
		}
		if _, _, ok := domain.ParseTokenString(value); ok {
			s.credential(value)
			return
		}
		s.add(kindInvitationToken, value)
	})
}

// walkJSON calls f with every string value of a JSON document and the key it is under.
func walkJSON(doc []byte, f func(key, value string)) {
	var v any
	if json.Unmarshal(doc, &v) != nil {
		return
	}
	var walk func(key string, v any)
	walk = func(key string, v any) {
		switch v := v.(type) {
		case string:
			f(key, v)
		case []any:
			for _, e := range v {
				walk(key, e)
			}
		case map[string]any:
			for k, e := range v {
				walk(k, e)
			}
		}
	}
	walk("", v)
}

// isDjangoHash tells the hashes the service writes and accepts from other text.
func isDjangoHash(s string) bool {
	return strings.HasPrefix(s, "argon2$") || strings.HasPrefix(s, "pbkdf2_sha256$")
}

// metadataType is the SDK's result metadata, which holds no data of the table.
var metadataType = reflect.TypeOf(middleware.Metadata{})

// harvestHashes registers every Django hash in a DynamoDB call's input or output: the hashes of users
// created through the API, and upgraded at login, reach no other part of testkit.
func (s *secretSet) harvestHashes(v reflect.Value, depth int) {
	if depth > 20 || !v.IsValid() {
		return
	}
	switch v.Kind() {
	case reflect.String:
		if h := v.String(); isDjangoHash(h) {
			s.hash(h)
		}
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			s.harvestHashes(v.Elem(), depth+1)
		}
	case reflect.Struct:
		if v.Type() == metadataType {
			return
		}
		for i := 0; i < v.NumField(); i++ {
			if v.Type().Field(i).IsExported() {
				s.harvestHashes(v.Field(i), depth+1)
			}
		}
	case reflect.Slice, reflect.Array:
		if v.Type().Elem().Kind() == reflect.Uint8 {
			return // binary attributes
		}
		for i := 0; i < v.Len(); i++ {
			s.harvestHashes(v.Index(i), depth+1)
		}
	case reflect.Map:
		for it := v.MapRange(); it.Next(); {
			s.harvestHashes(it.Value(), depth+1)
		}
	}
}

// needle is a text whose presence in a log line is a leak of secret.
type needle struct {
	text   string
	secret string
	kind   secretKind
	piece  bool
}

// indexLen is how much of a needle findLeaks indexes it by: the shortest piece.
const indexLen = pieceLen

// counts applies the rules for text a test chose (see secretSet).
func counts(text string) bool {
	if len(text) < shortHuman {
		return false
	}
	return len(text) >= longWords || strings.Trim(text, "abcdefghijklmnopqrstuvwxyz ") != ""
}

// secretPart is the part of a secret whose pieces are looked for (see secretSet).
func secretPart(kind secretKind, v string) string {
	switch kind {
	case kindToken:
		_, random, _ := strings.Cut(v, ".")
		return random
	case kindHash:
		fields := strings.Split(v, "$")
		if strings.HasPrefix(v, "argon2$") && len(fields) >= 5 {
			return strings.Join(fields[4:], "$")
		}
		if len(fields) >= 3 {
			return strings.Join(fields[2:], "$")
		}
		return v
	case kindInvitationToken:
		return "" // whole only: a UUID, whose pieces are those of any UUID
	}
	return v
}

// summary counts the secrets of each kind: "12 secrets (3 password, 9 token)".
func (s *secretSet) summary() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	kinds := map[secretKind]int{}
	for _, kind := range s.values {
		kinds[kind]++
	}
	var parts []string
	for _, kind := range []secretKind{kindPassword, kindHash, kindToken, kindTokenHash, kindCredential,
		kindInvitationToken} {
		if kinds[kind] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", kinds[kind], kind))
		}
	}
	if len(parts) == 0 {
		return "0 secrets"
	}
	return fmt.Sprintf("%d secrets (%s)", len(s.values), strings.Join(parts, ", "))
}

// needles lists what to look for.
func (s *secretSet) needles() []needle {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []needle
	for v, kind := range s.values {
		if !kind.human() || counts(v) {
			out = append(out, needle{text: v, secret: v, kind: kind})
		}
		part := secretPart(kind, v)
		n := pieceLen
		if !kind.human() {
			n = randomPieceLen(part)
		}
		seen := map[string]bool{v: true}
		for i := 0; i+n <= len(part); i++ {
			p := part[i : i+n]
			if seen[p] || (kind.human() && !counts(p)) || (!kind.human() && strings.Trim(p, "0123456789") == "") {
				continue
			}
			seen[p] = true
			out = append(out, needle{text: p, secret: v, kind: kind, piece: true})
		}
	}
	return out
}

func (s *secretSet) isPublic(text string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for p := range s.public {
		if strings.Contains(p, text) {
			return true
		}
	}
	return false
}

// leak is a log line that carries a secret.
type leak struct {
	line   string // masked
	kind   secretKind
	piece  bool
	length int // of the piece found
	secret string
}

func (l leak) String() string {
	what := "a " + string(l.kind)
	if l.piece {
		what = fmt.Sprintf("a piece (%d characters) of a %s", l.length, l.kind)
	}
	return fmt.Sprintf("%s in: %s", what, l.line)
}

// findLeaks looks for every secret of s in every line. A line that is JSON is also searched decoded,
// so that an escape in the JSON cannot hide a secret.
func findLeaks(lines []string, s *secretSet) []leak {
	needles := s.needles()
	byPrefix := map[int]map[string][]int{} // needle length (up to indexLen) → its text (up to indexLen) → needles
	for i, n := range needles {
		k := min(len(n.text), indexLen)
		if byPrefix[k] == nil {
			byPrefix[k] = map[string][]int{}
		}
		byPrefix[k][n.text[:k]] = append(byPrefix[k][n.text[:k]], i)
	}
	lengths := make([]int, 0, len(byPrefix))
	for k := range byPrefix {
		lengths = append(lengths, k)
	}
	sort.Ints(lengths)
	var leaks []leak
	for _, line := range lines {
		texts := []string{line}
		if strings.Contains(line, `\`) {
			if d := decodedJSON(line); d != "" {
				texts = append(texts, d)
			}
		}
		reported := map[string]bool{}
		for _, text := range texts {
			for _, k := range lengths {
				index := byPrefix[k]
				for i := 0; i+k <= len(text); i++ {
					for _, ni := range index[text[i:i+k]] {
						n := needles[ni]
						if reported[n.secret] || !strings.HasPrefix(text[i:], n.text) || excused(n, text, i, s) {
							continue
						}
						reported[n.secret] = true
						leaks = append(leaks, leak{line: mask(text, i, n), kind: n.kind, piece: n.piece, length: len(n.text),
							secret: n.secret})
					}
				}
			}
		}
	}
	return leaks
}

// excused tells a coincidence from a leak (see secretSet): only text a test chose may meet a random id
// or a path by chance; a piece of a random secret is too long to.
func excused(n needle, text string, at int, s *secretSet) bool {
	if !n.kind.human() {
		return false
	}
	return (n.piece && insideRandomID(text, at, len(n.text))) || s.isPublic(n.text)
}

// insideRandomID tells whether text[at:at+n] lies within a UUID or a run of 32 or more hex digits.
func insideRandomID(text string, at, n int) bool {
	if insideUUID(text, at, n) {
		return true
	}
	if !isHex(text[at : at+n]) {
		return false
	}
	start, end := at, at+n
	for start > 0 && isHex(text[start-1:start]) {
		start--
	}
	for end < len(text) && isHex(text[end:end+1]) {
		end++
	}
	return end-start >= 32
}

func isHex(s string) bool {
	return s != "" && strings.Trim(s, "0123456789abcdef") == ""
}

// insideUUID tells whether text[at:at+n] lies within a UUID (8-4-4-4-12 hex digits).
func insideUUID(text string, at, n int) bool {
	if n > 36 {
		return false
	}
	isUUIDChar := func(c byte) bool { return c == '-' || ('0' <= c && c <= '9') || ('a' <= c && c <= 'f') }
	start, end := at, at+n
	for start > 0 && isUUIDChar(text[start-1]) {
		start--
	}
	for end < len(text) && isUUIDChar(text[end]) {
		end++
	}
	// The run may hold more than one UUID, or dashes around one: look for a UUID that covers the hit.
	for i := max(start, at+n-36); i <= at && i+36 <= end; i++ {
		if isUUID(text[i : i+36]) {
			return true
		}
	}
	return false
}

func isUUID(s string) bool {
	if len(s) != 36 {
		return false
	}
	for i := 0; i < len(s); i++ {
		dash := i == 8 || i == 13 || i == 18 || i == 23
		if dash != (s[i] == '-') || (!dash && !isHex(s[i:i+1])) {
			return false
		}
	}
	return true
}

// decodedJSON returns every key and string of a JSON line, one a line; "" when it is not JSON.
func decodedJSON(line string) string {
	var b strings.Builder
	var v any
	if json.Unmarshal([]byte(line), &v) != nil {
		return ""
	}
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case string:
			b.WriteString(v + "\n")
		case []any:
			for _, e := range v {
				walk(e)
			}
		case map[string]any:
			for k, e := range v {
				b.WriteString(k + "\n")
				walk(e)
			}
		}
	}
	walk(v)
	return b.String()
}

// mask hides what the line shows of the secret around the hit at text[at:], so that the report
// leaks nothing itself.
func mask(text string, at int, n needle) string {
	start, end := at, at+len(n.text)
	for start > 0 && strings.Contains(n.secret, text[start-1:end]) {
		start--
	}
	for end < len(text) && strings.Contains(n.secret, text[start:end+1]) {
		end++
	}
	what := "[" + string(n.kind) + "]"
	if n.piece {
		what = "[part of a " + string(n.kind) + "]"
	}
	return strings.ReplaceAll(text, text[start:end], what)
}
