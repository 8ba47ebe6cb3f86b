package httpapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/reportingplatform/api/shared/domain"
)

// The fuzz targets of the body decoder and its field readers. Beyond "never panics", each holds its
// decoder to SPEC §1: a refusal is always the client's (never EINTERNAL), in DRF's words, and what is
// accepted survives being encoded and decoded again unchanged, so that nothing a client sends is
// understood one way now and another way on the next save.

// hostileValues are JSON values no field expects (as infra/consistency's hostile list): every JSON
// type, numbers Python and Go read differently, escapes of NUL and lone surrogates, and text longer
// than any limit (300 characters: longer seeds only slow the minimizing of every input found from them).
var hostileValues = []string{
	`""`, `" "`, `"\t\n"`, `null`, `true`, `false`, `0`, `-1`, `1.5`, `1.50`, `1e2`, `1e16`, `0.000015`,
	`1e400`, `-1e400`, `99999999999999999999999999`, `-0`, `[]`, `[null]`, `[1, "a", {"b": null}]`, `{}`,
	`{"a": [1]}`, `"\u0000"`, `"a\u0000b"`, `"\ud800"`, `"\udc00x\ud800"`, `"\u2028"`, `"x\u00a0"`,
	`"6F9619FF-8B86-D011-B42D-00CF4FC964FF"`, `"{6f9619ff-8b86-d011-b42d-00cf4fc964ff}"`,
	`"urn:uuid:6f9619ff8b86d011b42d00cf4fc964ff"`, `"not-a-uuid"`, `"a@example.com"`, `" A@Example.COM "`,
	`"` + strings.Repeat("x", 300) + `"`, `"` + strings.Repeat("😀", 60) + `"`, `"it's"`, `"1"`, `"01"`,
	`[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]`,
}

// nonFieldPrefix is DecodeObject's message for a JSON value that is not an object.
const nonFieldPrefix = "Invalid data. Expected a dictionary, but got "

// FuzzDecodeObject sends any Content-Type and body to DecodeObject. edge > 0 pads the body with white
// space to MaxBodyBytes-128+edge bytes, so that inputs cross the 1 MiB limit without a megabyte in the
// corpus.
func FuzzDecodeObject(f *testing.F) {
	for _, ct := range []string{"application/json", "application/json; charset=utf-8", "APPLICATION/JSON", "",
		"text/plain", "application/json;;", "application/jsonx"} {
		f.Add(ct, []byte(`{"a": 1}`), uint8(0))
	}
	for _, v := range append(hostileValues, ``, ` `, `{`, `{"a": 1} x`, `{"a": 1,}`, `{a: 1}`,
		"{\"a\": \"\xff\"}", "\xef\xbb\xbf{}") {
		f.Add("application/json", []byte(v), uint8(0))
		f.Add("application/json", []byte(`{"f": `+v+`, "f": 2}`), uint8(0))
	}
	f.Add("application/json", []byte(`{"a": 1}`), uint8(128))
	f.Add("application/json", []byte(`{"a": 1}`), uint8(129))
	f.Add("text/plain", []byte(`{}`), uint8(200))
	f.Fuzz(func(t *testing.T, contentType string, body []byte, edge uint8) {
		raw := body
		if n := MaxBodyBytes - 128 + int(edge); edge > 0 && len(body) < n {
			raw = append(bytes.Clone(body), bytes.Repeat([]byte(" "), n-len(body))...)
		}
		r := httptest.NewRequest(http.MethodPost, "/x", bytes.NewReader(raw))
		r.Header.Set("Content-Type", contentType)
		b, err := DecodeObject(r)
		if err != nil {
			checkDecodeRefusal(t, contentType, raw, err)
			return
		}
		if len(raw) > 0 && !(utf8.Valid(raw) && json.Valid(raw) && firstByte(raw) == '{') {
			t.Fatalf("accepted a body that is not a UTF-8 JSON object: %.200q", raw)
		}
		if len(raw) > MaxBodyBytes || (len(raw) == 0 && len(b.fields) != 0) {
			t.Fatalf("a body of %d bytes gave %d fields", len(raw), len(b.fields))
		}
		checkReencoded(t, b)
	})
}

// checkDecodeRefusal holds a refusal to SPEC §1's order (size, media type, syntax, shape) and words.
func checkDecodeRefusal(t *testing.T, contentType string, raw []byte, err error) {
	t.Helper()
	var e *domain.Error
	if !errors.As(err, &e) {
		t.Fatalf("not a domain error: %v", err)
	}
	switch {
	case len(raw) > MaxBodyBytes:
		if e.Code != domain.ETOOLARGE || e.Detail != "Request body too large." {
			t.Fatalf("%d bytes: %v, want 413", len(raw), err)
		}
	case e.Code == domain.EMEDIATYPE:
		if want := fmt.Sprintf("Unsupported media type \"%s\" in request.", contentType); e.Detail != want || len(raw) == 0 {
			t.Fatalf("415 %q for a body of %d bytes, want %q", e.Detail, len(raw), want)
		}
		if contentType == "application/json" || contentType == "application/json; charset=utf-8" {
			t.Fatalf("refused Content-Type %q", contentType)
		}
	case e.Code == domain.EINVALID && strings.HasPrefix(e.Detail, "JSON parse error - "):
		if utf8.Valid(raw) && json.Valid(raw) {
			t.Fatalf("%q: a parse error for valid JSON: %v", raw, err)
		}
	case e.Code == domain.EINVALID && e.Detail == "" && len(e.Fields) == 1 && len(e.Fields[domain.NonFieldErrors]) == 1:
		msg := e.Fields[domain.NonFieldErrors][0]
		kind := strings.TrimSuffix(strings.TrimPrefix(msg, nonFieldPrefix), ".")
		if !json.Valid(raw) || firstByte(raw) == '{' || kind != jsonKind(t, raw) || msg != nonFieldPrefix+kind+"." {
			t.Fatalf("%.200q: %q", raw, msg)
		}
	default:
		t.Fatalf("%.200q with Content-Type %q: unexpected refusal %v (code %s)", raw, contentType, err, e.Code)
	}
}

// checkReencoded encodes the decoded fields again (as a client echoing a response would) and decodes
// that: the fields must come back with the same values.
func checkReencoded(t *testing.T, b *Body) {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(b.fields); err != nil {
		t.Fatalf("encode %v: %v", b.fields, err)
	}
	if buf.Len() > MaxBodyBytes {
		return // escapes of U+2028 and such can grow a body just under the limit past it
	}
	again := mustDecode(t, buf.String())
	if len(again.fields) != len(b.fields) {
		t.Fatalf("fields %d, then %d after a round trip", len(b.fields), len(again.fields))
	}
	for k, v := range b.fields {
		if a, b := jsonValue(t, v), jsonValue(t, again.fields[k]); !reflect.DeepEqual(a, b) {
			t.Fatalf("field %q: %#v, then %#v after a round trip", k, a, b)
		}
	}
}

// FuzzTextField reads one value with any combination of Text's rules.
func FuzzTextField(f *testing.F) {
	for _, v := range hostileValues {
		for _, flags := range []uint8{0, textRequired | textAllowNull | textAllowBlank, textEmail, textNoTrim | textChoice} {
			f.Add(v, flags, uint8(25))
		}
	}
	f.Fuzz(func(t *testing.T, value string, flags, maxLength uint8) {
		rule := Text{
			Required: flags&textRequired != 0, AllowNull: flags&textAllowNull != 0, AllowBlank: flags&textAllowBlank != 0,
			Email: flags&textEmail != 0, NoTrim: flags&textNoTrim != 0, Choice: flags&textChoice != 0, MaxLength: int(maxLength),
		}
		b, ok := decodeField(value)
		if !ok {
			return
		}
		got, ok := b.String("f", rule)
		msgs := onlyFieldErrors(t, b)
		if ok != (len(msgs) == 0) {
			t.Fatalf("%.100s: ok %v with errors %q", value, ok, msgs)
		}
		allowed := map[string]bool{
			domain.MsgNull: !rule.AllowNull, domain.MsgNotString: !rule.Choice, domain.MsgBlank: !rule.AllowBlank,
			domain.MsgMaxLength(rule.MaxLength): rule.MaxLength > 0, "Null characters are not allowed.": true,
			domain.MsgEmail: rule.Email, domain.MsgChoice(pythonStr(b.fields["f"])): rule.Choice,
		}
		checkMessages(t, value, msgs, allowed)
		if !ok || got == nil {
			if ok && !(rule.AllowNull && isNull(b.fields["f"])) {
				t.Fatalf("%.100s: nil without an allowed null", value)
			}
			return
		}
		s := *got // a blank value allowed is returned before any validator runs, as in DRF
		switch {
		case !rule.NoTrim && s != strings.TrimSpace(s):
			t.Fatalf("%q not trimmed", s)
		case s == "" && !rule.AllowBlank, rule.MaxLength > 0 && utf8.RuneCountInString(s) > rule.MaxLength,
			strings.ContainsRune(s, 0), s != "" && rule.Email && !domain.ValidEmail(s):
			t.Fatalf("%q accepted against %+v", s, rule)
		}
		again, _ := decodeField(quote(t, s))
		if s2, ok := again.String("f", rule); !ok || s2 == nil || *s2 != s {
			t.Fatalf("%q read back as %v, %v", s, s2, ok)
		}
	})
}

// The bits of FuzzTextField's flags.
const (
	textRequired uint8 = 1 << iota
	textAllowNull
	textAllowBlank
	textEmail
	textNoTrim
	textChoice
)

// FuzzChoiceField reads one value as an integer choice among 0..choices-1.
func FuzzChoiceField(f *testing.F) {
	for _, v := range append(hostileValues, `2`, `"2"`, `" 2"`, `2.0`, `"+2"`, `"٢"`, `4`) {
		f.Add(v, uint8(5))
	}
	f.Fuzz(func(t *testing.T, value string, choices uint8) {
		b, ok := decodeField(value)
		if !ok {
			return
		}
		valid := func(n int) bool { return n >= 0 && n < int(choices) }
		n, ok := b.Choice("f", valid, true)
		msgs := onlyFieldErrors(t, b)
		sent := pythonStr(b.fields["f"])
		checkMessages(t, value, msgs, map[string]bool{domain.MsgNull: true, domain.MsgChoice(sent): true})
		if ok != (len(msgs) == 0) || (ok && (!valid(n) || strconv.Itoa(n) != sent)) {
			t.Fatalf("%.100s: %d, %v with errors %q", value, n, ok, msgs)
		}
		if !ok {
			return
		}
		for _, echo := range []string{strconv.Itoa(n), strconv.Quote(strconv.Itoa(n))} {
			again, _ := decodeField(echo)
			if m, ok := again.Choice("f", valid, true); !ok || m != n {
				t.Fatalf("%d sent back as %s read as %d, %v", n, echo, m, ok)
			}
		}
	})
}

// FuzzUUIDFields reads one value as a UUID and as a list of UUIDs.
func FuzzUUIDFields(f *testing.F) {
	for _, v := range append(hostileValues,
		`["6f9619ff-8b86-d011-b42d-00cf4fc964ff", "6F9619FF8B86D011B42D00CF4FC964FF"]`,
		`[" {6f9619ff-8b86-d011-b42d-00cf4fc964ff} "]`) {
		f.Add(v, false)
		f.Add(v, true)
	}
	f.Fuzz(func(t *testing.T, value string, allowNull bool) {
		b, ok := decodeField(value)
		if !ok {
			return
		}
		id, ok := b.UUID("f", true, allowNull)
		msgs := onlyFieldErrors(t, b)
		checkMessages(t, value, msgs, map[string]bool{domain.MsgUUID: true, domain.MsgNull: !allowNull})
		if ok != (len(msgs) == 0) || (ok && id == nil && !allowNull) {
			t.Fatalf("%.100s: %v, %v with errors %q", value, id, ok, msgs)
		}
		if ok && id != nil {
			checkCanonicalUUID(t, *id)
			again, _ := decodeField(quote(t, *id))
			if id2, _ := again.UUID("f", true, allowNull); id2 == nil || *id2 != *id {
				t.Fatalf("%s read back as %v", *id, id2)
			}
		}

		b, _ = decodeField(value)
		ids, ok := b.UUIDList("f", 0)
		msgs = onlyFieldErrors(t, b)
		allowed := map[string]bool{domain.MsgUUID: true, domain.MsgNull: true}
		for _, kind := range []string{"str", "int", "float", "bool", "dict"} {
			allowed[fmt.Sprintf("Expected a list of items but got type \"%s\".", kind)] = true
		}
		checkMessages(t, value, msgs, allowed)
		if ok != (len(msgs) == 0) {
			t.Fatalf("%.100s: %v, %v with errors %q", value, ids, ok, msgs)
		}
		if !ok {
			return
		}
		seen := map[string]bool{}
		for _, id := range ids {
			checkCanonicalUUID(t, id)
			if seen[id] {
				t.Fatalf("%s twice in %v", id, ids)
			}
			seen[id] = true
		}
		again, _ := decodeField(string(mustJSON(t, ids)))
		if ids2, ok := again.UUIDList("f", 0); !ok || !slices.Equal(ids, ids2) {
			t.Fatalf("%v read back as %v, %v", ids, ids2, ok)
		}
	})
}

// decodeField decodes {"f": value}; ok is false when that is not a JSON object (DecodeObject's
// business, fuzzed above).
func decodeField(value string) (*Body, bool) {
	r := httptest.NewRequest(http.MethodPatch, "/x", strings.NewReader(`{"f": `+value+`}`))
	r.Header.Set("Content-Type", "application/json")
	b, err := DecodeObject(r)
	return b, err == nil && b.Has("f")
}

func mustDecode(t *testing.T, body string) *Body {
	t.Helper()
	r := httptest.NewRequest(http.MethodPatch, "/x", strings.NewReader(body))
	r.Header.Set("Content-Type", "application/json")
	b, err := DecodeObject(r)
	if err != nil {
		t.Fatalf("decode %.200q: %v", body, err)
	}
	return b
}

// onlyFieldErrors returns the messages recorded under "f", failing on any other kind of error.
func onlyFieldErrors(t *testing.T, b *Body) []string {
	t.Helper()
	err := b.Err()
	if err == nil {
		return nil
	}
	var e *domain.Error
	if !errors.As(err, &e) || e.Code != domain.EINVALID || e.Detail != "" || len(e.Fields) != 1 ||
		len(e.Fields["f"]) == 0 {
		t.Fatalf("not a field error under f: %v", err)
	}
	return e.Fields["f"]
}

// checkMessages fails on a message not allowed for the rule (SPEC §1's table) or reported twice.
func checkMessages(t *testing.T, value string, msgs []string, allowed map[string]bool) {
	t.Helper()
	seen := map[string]bool{}
	for _, m := range msgs {
		if !allowed[m] || seen[m] {
			t.Fatalf("%.100s: message %q (all: %q)", value, m, msgs)
		}
		seen[m] = true
	}
}

func checkCanonicalUUID(t *testing.T, id string) {
	t.Helper()
	if got, ok := ParseUUID(id); !ok || got != id || len(id) != 36 || strings.ToLower(id) != id {
		t.Fatalf("%q is not a canonical UUID", id)
	}
}

func jsonValue(t *testing.T, raw json.RawMessage) any {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("decode %.200q: %v", raw, err)
	}
	return v
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func quote(t *testing.T, s string) string { t.Helper(); return string(mustJSON(t, s)) }

func firstByte(raw []byte) byte {
	if s := bytes.TrimSpace(raw); len(s) > 0 {
		return s[0]
	}
	return 0
}

// jsonKind is Python's name of the type of a valid JSON value, as json.loads makes it. It names the type
// of the decoded value rather than reading the first byte as pythonType does, so that the two can disagree.
func jsonKind(t *testing.T, raw []byte) string {
	t.Helper()
	v := jsonValue(t, raw)
	switch n := v.(type) {
	case map[string]any:
		return "dict"
	case []any:
		return "list"
	case string:
		return "str"
	case bool:
		return "bool"
	case nil:
		return "NoneType"
	case json.Number:
		if strings.ContainsAny(n.String(), ".eE") {
			return "float"
		}
		return "int"
	}
	t.Fatalf("decoded %.200q to an unexpected %T", raw, v)
	return ""
}
