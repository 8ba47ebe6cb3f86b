package password

import (
	"strings"
	"testing"
)

// TestQuickRatio compares quickRatio with CPython 3.11's difflib: every expected value was printed by
// python3 with difflib.SequenceMatcher(None, a, b).quick_ratio().
func TestQuickRatio(t *testing.T) {
	tests := []struct {
		a, b string
		want float64
	}{
		{"abcd", "bcde", 0.75},
		{"password", "passw0rd", 0.875},
		{"ada@example.com", "adalovelace", 0.6923076923076923},
		{"adalovelace", "ada@example.com", 0.6923076923076923},
		{"", "", 1.0},
		{"", "abc", 0.0},
		{"abc", "", 0.0},
		{"qabxcd", "abycdf", 0.6666666666666666},
		{"private Thread currentThread;", "private volatile Thread currentThread;", 0.8656716417910447},
		{" abcd", "abcd abcd", 0.7142857142857143},
		{"josé garcía", "jose garcia", 0.8181818181818182},
		{"日本語テキスト", "日本テキスト語", 1.0},
		{"lovelace1", "lovelace", 0.9411764705882353},
		{"evolacel", "lovelace", 1.0},
		{"hello xxxx world", strings.Repeat("x", 250) + "hello world", 0.10830324909747292},
		{"xxxxxxxxxx", "y" + strings.Repeat("x", 250), 0.07662835249042145},
		{"xxxxxxxxxx", "y" + strings.Repeat("x", 199), 0.09523809523809523},
		{"hello xxxx world", strings.Repeat("x", 198) + "hello world", 0.13333333333333333},
		{"abababababababababababababababababababab", strings.Repeat("ab", 110), 0.3076923076923077},
	}
	for _, tt := range tests {
		if got := quickRatio(tt.a, tt.b); got != tt.want {
			t.Errorf("quickRatio(%.20q, %.20q) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
	}
}
