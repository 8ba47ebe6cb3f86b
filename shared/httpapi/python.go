package httpapi

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"
	"strings"
	"unicode"
)

// Python and Django compatibility: what the service must print and accept exactly as the Django REST
// Framework service it replaces did, where Go's own rules differ. A JSON value here is what Python's
// json.loads makes of it (dict, list, str, int, float, bool, None); each function names the Python
// behaviour it reproduces.

// pythonType is type(json.loads(v)).__name__, which DRF prints in 'Expected a dictionary of items but
// got type "list".' and 'Expected a list of items but got type "str".'
func pythonType(v json.RawMessage) string {
	s := bytes.TrimSpace(v)
	if len(s) == 0 {
		return "NoneType"
	}
	switch s[0] {
	case '{':
		return "dict"
	case '[':
		return "list"
	case '"':
		return "str"
	case 't', 'f':
		return "bool"
	case 'n':
		return "NoneType"
	}
	if bytes.ContainsAny(s, ".eE") {
		return "float"
	}
	return "int"
}

// pythonStr is str(json.loads(raw)): how DRF prints a sent value in '"X" is not a valid choice.' and
// how its CharField turns a number into text. Callers handle null first (DRF's allow_null).
func pythonStr(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		return s
	}
	if len(raw) > 0 && (raw[0] == '[' || raw[0] == '{') {
		return pythonRepr(raw)
	}
	switch string(raw) {
	case "true":
		return "True"
	case "false":
		return "False"
	case "null":
		return "None"
	}
	if pythonType(raw) == "float" {
		return pythonFloat(string(raw))
	}
	if string(raw) == "-0" {
		return "0" // an int has no negative zero: str(json.loads("-0")) is "0"
	}
	return string(raw)
}

// pythonFloat is str(float(s)): the shortest repr, fixed notation from 1e-4 to 1e16, scientific
// outside, "inf" past the range.
func pythonFloat(s string) string {
	f, _ := strconv.ParseFloat(s, 64) // out of range gives ±Inf, as Python's json does
	switch {
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	}
	if abs := math.Abs(f); f != 0 && (abs < 1e-4 || abs >= 1e16) {
		return strconv.FormatFloat(f, 'e', -1, 64)
	}
	t := strconv.FormatFloat(f, 'f', -1, 64)
	if !strings.Contains(t, ".") {
		t += ".0"
	}
	return t
}

// pythonRepr is str() of the list or dict json.loads makes of a JSON container ({'a': [1, True, None]}),
// for DRF messages that quote what was sent. Scalars go to pythonStr.
func pythonRepr(raw json.RawMessage) string {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var b strings.Builder
	if err := reprValue(dec, &b); err != nil {
		return string(bytes.TrimSpace(raw))
	}
	return b.String()
}

// reprValue writes the next JSON value of dec as Python's repr() of what json.loads makes of it.
func reprValue(dec *json.Decoder, b *strings.Builder) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	switch t := tok.(type) {
	case json.Delim:
		closing, open := "]", "["
		if t == '{' {
			closing, open = "}", "{"
		}
		b.WriteString(open)
		for i := 0; dec.More(); i++ {
			if i > 0 {
				b.WriteString(", ")
			}
			if t == '{' {
				key, err := dec.Token()
				if err != nil {
					return err
				}
				b.WriteString(reprString(key.(string)) + ": ")
			}
			if err := reprValue(dec, b); err != nil {
				return err
			}
		}
		if _, err := dec.Token(); err != nil {
			return err
		}
		b.WriteString(closing)
	case string:
		b.WriteString(reprString(t))
	case json.Number:
		b.WriteString(pythonStr(json.RawMessage(t)))
	case bool:
		b.WriteString(map[bool]string{true: "True", false: "False"}[t])
	case nil:
		b.WriteString("None")
	}
	return nil
}

// reprString is Python's repr() of a str: single quotes, unless the text has single quotes and no double.
func reprString(s string) string {
	quote := "'"
	if strings.Contains(s, "'") && !strings.Contains(s, `"`) {
		quote = `"`
	}
	r := strings.NewReplacer(`\`, `\\`, quote, `\`+quote, "\n", `\n`, "\r", `\r`, "\t", `\t`)
	return quote + r.Replace(s) + quote
}

// PythonInt is Python's int() of a str, which DRF's pagination applies to page and page_size:
// surrounding white space, a sign, any Unicode decimal digits, single underscores between digits. A
// value too large for an int saturates (Python's ints do not overflow; any such page is past the end).
func PythonInt(s string) (int, bool) {
	s = strings.TrimFunc(s, pythonSpace)
	neg := false
	if s != "" && (s[0] == '+' || s[0] == '-') {
		neg, s = s[0] == '-', s[1:]
	}
	if s == "" {
		return 0, false
	}
	n, prevDigit := 0, false
	for _, r := range s {
		if r == '_' {
			if !prevDigit {
				return 0, false
			}
			prevDigit = false
			continue
		}
		d, ok := digitValue(r)
		if !ok {
			return 0, false
		}
		prevDigit = true
		if n > (math.MaxInt-d)/10 {
			n = math.MaxInt
		} else {
			n = n*10 + d
		}
	}
	if !prevDigit {
		return 0, false // a trailing underscore
	}
	if neg {
		return -n, true
	}
	return n, true
}

// pythonSpace is Python's str.isspace(): Unicode white space and the ASCII separators \x1c-\x1f.
func pythonSpace(r rune) bool { return unicode.IsSpace(r) || (r >= 0x1c && r <= 0x1f) }

// digitValue is Python's unicodedata.decimal(): the value of a Unicode decimal digit (category Nd). Nd
// characters come in runs of ten, zero first, and the runs Go's table merges stay aligned, so the value
// is the distance from the start of the range modulo ten.
func digitValue(r rune) (int, bool) {
	if r >= '0' && r <= '9' {
		return int(r - '0'), true
	}
	if !unicode.Is(unicode.Nd, r) {
		return 0, false
	}
	for _, rg := range unicode.Nd.R16 {
		if r >= rune(rg.Lo) && r <= rune(rg.Hi) {
			return int(r-rune(rg.Lo)) % 10, true
		}
	}
	for _, rg := range unicode.Nd.R32 {
		if r >= rune(rg.Lo) && r <= rune(rg.Hi) {
			return int(r-rune(rg.Lo)) % 10, true
		}
	}
	return 0, false
}
