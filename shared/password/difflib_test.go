package password

import (
	"slices"
	"strings"
	"testing"
)

// spaceJunk is Python's isjunk=lambda c: c == " ".
func spaceJunk(r rune) bool { return r == ' ' }

// TestSequenceMatcher compares the port with CPython 3.11's difflib. Every
// expected value was printed by python3 with
//
//	m = difflib.SequenceMatcher(isjunk, a, b, autojunk=autojunk)
//	m.ratio(), m.quick_ratio(), m.real_quick_ratio(),
//	m.find_longest_match(0, len(a), 0, len(b)), m.get_matching_blocks()
//
// The "y" + "x"*n rows pin the autojunk threshold: from len(b) >= 200 on,
// "x" is "popular" and is never matched on its own.
func TestSequenceMatcher(t *testing.T) {
	tests := []struct {
		a, b           string
		isJunk         func(rune) bool
		autoJunk       bool
		ratio          float64
		quickRatio     float64
		realQuickRatio float64
		longest        match
		blocks         []match
	}{
		{"abcd", "bcde", nil, true, 0.75, 0.75, 1.0, match{1, 0, 3}, []match{{1, 0, 3}, {4, 4, 0}}},
		{"password", "passw0rd", nil, true, 0.875, 0.875, 1.0, match{0, 0, 5}, []match{{0, 0, 5}, {6, 6, 2}, {8, 8, 0}}},
		{"ada@example.com", "adalovelace", nil, true, 0.46153846153846156, 0.6923076923076923, 0.8461538461538461, match{0, 0, 3}, []match{{0, 0, 3}, {4, 6, 1}, {6, 8, 1}, {10, 10, 1}, {15, 11, 0}}},
		{"adalovelace", "ada@example.com", nil, true, 0.38461538461538464, 0.6923076923076923, 0.8461538461538461, match{0, 0, 3}, []match{{0, 0, 3}, {3, 9, 1}, {4, 13, 1}, {11, 15, 0}}},
		{"", "", nil, true, 1.0, 1.0, 1.0, match{0, 0, 0}, []match{{0, 0, 0}}},
		{"", "abc", nil, true, 0.0, 0.0, 0.0, match{0, 0, 0}, []match{{0, 3, 0}}},
		{"abc", "", nil, true, 0.0, 0.0, 0.0, match{0, 0, 0}, []match{{3, 0, 0}}},
		{"qabxcd", "abycdf", nil, true, 0.6666666666666666, 0.6666666666666666, 1.0, match{1, 0, 2}, []match{{1, 0, 2}, {4, 3, 2}, {6, 6, 0}}},
		{"private Thread currentThread;", "private volatile Thread currentThread;", spaceJunk, true, 0.8656716417910447, 0.8656716417910447, 0.8656716417910447, match{14, 23, 15}, []match{{0, 0, 8}, {8, 17, 21}, {29, 38, 0}}},
		{" abcd", "abcd abcd", spaceJunk, true, 0.5714285714285714, 0.7142857142857143, 0.7142857142857143, match{1, 0, 4}, []match{{1, 0, 4}, {5, 9, 0}}},
		{"josé garcía", "jose garcia", nil, true, 0.8181818181818182, 0.8181818181818182, 1.0, match{4, 4, 5}, []match{{0, 0, 3}, {4, 4, 5}, {10, 10, 1}, {11, 11, 0}}},
		{"日本語テキスト", "日本テキスト語", nil, true, 0.8571428571428571, 1.0, 1.0, match{3, 2, 4}, []match{{0, 0, 2}, {3, 2, 4}, {7, 7, 0}}},
		{"lovelace1", "lovelace", nil, true, 0.9411764705882353, 0.9411764705882353, 0.9411764705882353, match{0, 0, 8}, []match{{0, 0, 8}, {9, 8, 0}}},
		{"evolacel", "lovelace", nil, true, 0.625, 1.0, 1.0, match{3, 4, 4}, []match{{0, 3, 1}, {3, 4, 4}, {8, 8, 0}}},
		{"hello xxxx world", strings.Repeat("x", 250) + "hello world", nil, true, 0.07942238267148015, 0.10830324909747292, 0.11552346570397112, match{0, 250, 6}, []match{{0, 250, 6}, {11, 256, 5}, {16, 261, 0}}},
		{"xxxxxxxxxx", "y" + strings.Repeat("x", 250), nil, true, 0.0, 0.07662835249042145, 0.07662835249042145, match{0, 0, 0}, []match{{10, 251, 0}}},
		{"xxxxxxxxxx", "y" + strings.Repeat("x", 250), nil, false, 0.07662835249042145, 0.07662835249042145, 0.07662835249042145, match{0, 1, 10}, []match{{0, 1, 10}, {10, 251, 0}}},
		{"xxxxxxxxxx", "y" + strings.Repeat("x", 198), nil, true, 0.09569377990430622, 0.09569377990430622, 0.09569377990430622, match{0, 1, 10}, []match{{0, 1, 10}, {10, 199, 0}}},
		{"xxxxxxxxxx", "y" + strings.Repeat("x", 199), nil, true, 0.0, 0.09523809523809523, 0.09523809523809523, match{0, 0, 0}, []match{{10, 200, 0}}},
		{"hello xxxx world", strings.Repeat("x", 198) + "hello world", nil, true, 0.09777777777777778, 0.13333333333333333, 0.14222222222222222, match{0, 198, 6}, []match{{0, 198, 6}, {11, 204, 5}, {16, 209, 0}}},
		{"abababababababababababababababababababab", strings.Repeat("ab", 110), nil, true, 0.3076923076923077, 0.3076923076923077, 0.3076923076923077, match{0, 0, 40}, []match{{0, 0, 40}, {40, 220, 0}}},
	}
	for _, tt := range tests {
		name := tt.a + "|" + tt.b
		if len(name) > 40 {
			name = name[:40]
		}
		t.Run(name, func(t *testing.T) {
			m := newSequenceMatcher(tt.isJunk, tt.a, tt.b, tt.autoJunk)
			if got := m.ratio(); got != tt.ratio {
				t.Errorf("ratio() = %v, want %v", got, tt.ratio)
			}
			if got := m.quickRatio(); got != tt.quickRatio {
				t.Errorf("quickRatio() = %v, want %v", got, tt.quickRatio)
			}
			if got := m.realQuickRatio(); got != tt.realQuickRatio {
				t.Errorf("realQuickRatio() = %v, want %v", got, tt.realQuickRatio)
			}
			la, lb := len([]rune(tt.a)), len([]rune(tt.b))
			if got := m.findLongestMatch(0, la, 0, lb); got != tt.longest {
				t.Errorf("findLongestMatch() = %v, want %v", got, tt.longest)
			}
			if got := m.getMatchingBlocks(); !slices.Equal(got, tt.blocks) {
				t.Errorf("getMatchingBlocks() = %v, want %v", got, tt.blocks)
			}
		})
	}
}

// TestSequenceMatcherSubrange checks find_longest_match on a sub-range, the
// example of Python's documentation:
// SequenceMatcher(None, " abcd", "abcd abcd").find_longest_match(0, 5, 0, 9)
// is Match(a=0, b=4, size=5), and with isjunk=" " it is Match(a=1, b=0, size=4).
func TestSequenceMatcherSubrange(t *testing.T) {
	tests := []struct {
		name   string
		isJunk func(rune) bool
		alo    int
		ahi    int
		blo    int
		bhi    int
		want   match
	}{
		{"no junk", nil, 0, 5, 0, 9, match{0, 4, 5}},
		{"space junk", spaceJunk, 0, 5, 0, 9, match{1, 0, 4}},
		{"inner range", nil, 1, 5, 5, 9, match{1, 5, 4}},
		{"empty range", nil, 2, 2, 0, 9, match{2, 0, 0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := newSequenceMatcher(tt.isJunk, " abcd", "abcd abcd", true)
			if got := m.findLongestMatch(tt.alo, tt.ahi, tt.blo, tt.bhi); got != tt.want {
				t.Errorf("findLongestMatch(%d, %d, %d, %d) = %v, want %v",
					tt.alo, tt.ahi, tt.blo, tt.bhi, got, tt.want)
			}
		})
	}
}
