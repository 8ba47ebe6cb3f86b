package httpapi

import (
	"encoding/json"
	"math"
	"testing"
)

func TestPythonInt(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int
		ok   bool
	}{
		{"1", 1, true}, {" 7 ", 7, true}, {"+3", 3, true}, {"-2", -2, true}, {"0", 0, true},
		{"1_000", 1000, true}, {"\u0661\u0662", 12, true}, {"\u00a05\u2003", 5, true}, {"\x1c4\x1f", 4, true},
		{"\U0001D7D0", 2, true}, // MATHEMATICAL BOLD DIGIT TWO: a merged range of Go's table
		{"99999999999999999999999", math.MaxInt, true},
		{"", 0, false}, {" ", 0, false}, {"+", 0, false}, {"1.0", 0, false}, {"1e3", 0, false}, {"abc", 0, false},
		{"_1", 0, false}, {"1_", 0, false}, {"1__0", 0, false}, {"0x10", 0, false}, {"1 2", 0, false}, {"++1", 0, false},
	} {
		got, ok := PythonInt(tc.in)
		if got != tc.want || ok != tc.ok {
			t.Errorf("PythonInt(%q) = %d, %v; want %d, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

func TestPythonStr(t *testing.T) {
	for raw, want := range map[string]string{
		`"ada"`: "ada", `1`: "1", `1.50`: "1.5", `1e2`: "100.0", `1e16`: "1e+16", `0.0001`: "0.0001",
		`0.00001`: "1e-05", `1e400`: "inf", `true`: "True", `-0`: "0", `-0.0`: "-0.0", `[-0]`: "[0]",
		`{"a": [1, true, null, 2.0], "it's": "x"}`: `{'a': [1, True, None, 2.0], "it's": 'x'}`,
	} {
		if got := pythonStr(json.RawMessage(raw)); got != want {
			t.Errorf("pythonStr(%s) = %s, want %s", raw, got, want)
		}
	}
}

func TestPythonType(t *testing.T) {
	for raw, want := range map[string]string{
		`{}`: "dict", ` [1]`: "list", `"1"`: "str", `1`: "int", `-1.0`: "float", `1E3`: "float", `false`: "bool",
		`null`: "NoneType",
	} {
		if got := pythonType(json.RawMessage(raw)); got != want {
			t.Errorf("pythonType(%s) = %s, want %s", raw, got, want)
		}
	}
}
