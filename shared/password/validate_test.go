package password

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"flag"
	"os"
	"slices"
	"strings"
	"testing"
)

// ada is a user in Django's default attribute order (first name, last name,
// email; there is no username in this API).
var ada = []Attribute{
	{"first name", "Ada"},
	{"last name", "Lovelace"},
	{"email", "ada@example.com"},
}

// TestValidate compares Validate with Django 4.2.28's validate_password run
// with the four default validators, the user attributes in the order given
// and these verbose names. Every expected result was printed by Django
// itself, so the rows pin Django's behaviour, including the quirks: an
// anagram of an attribute is "too similar" ("evolacel") because Django only
// compares quick_ratio, and an empty password is "too similar" to an email
// that splits into an empty word ("@").
func TestValidate(t *testing.T) {
	tests := []struct {
		plain string
		attrs []Attribute
		want  []string
	}{
		{"ada", ada,
			[]string{"The password is too similar to the first name.",
				"This password is too short. It must contain at least 8 characters.", "This password is too common."}},
		{"ada", []Attribute{{"email", "ada@example.com"}},
			[]string{"The password is too similar to the email.",
				"This password is too short. It must contain at least 8 characters.", "This password is too common."}},
		{"12345678", nil, []string{"This password is too common.", "This password is entirely numeric."}},
		{"12345678", ada, []string{"This password is too common.", "This password is entirely numeric."}},
		{"lovelace1", ada, []string{"The password is too similar to the last name."}},
		{"Lovelace", ada, []string{"The password is too similar to the last name."}},
		{"adalovelace", ada, []string{"The password is too similar to the last name."}},
		{"adalovelace", []Attribute{{"email", "ada@example.com"}}, nil},
		{"evolacel", ada, []string{"The password is too similar to the last name."}},
		{"correct horse battery staple", ada, nil},
		{"x9Lk2#qPz!", nil, nil},
		{"", nil, []string{"This password is too short. It must contain at least 8 characters."}},
		{"", []Attribute{{"email", "@"}},
			[]string{"The password is too similar to the email.",
				"This password is too short. It must contain at least 8 characters."}},
		{"   PassWord   ", nil, []string{"This password is too common."}},
		{"PASSWORD", nil, []string{"This password is too common."}},
		{"12345", nil,
			[]string{"This password is too short. It must contain at least 8 characters.",
				"This password is too common.", "This password is entirely numeric."}},
		{"١٢٣٤٥٦٧٨٩", nil, []string{"This password is entirely numeric."}},
		{"pässwörd", nil, nil},
		{"短い", nil, []string{"This password is too short. It must contain at least 8 characters."}},
		{"josé.garcía99",
			[]Attribute{{"first name", "José"}, {"last name", "García"}, {"email", "jose.garcia@example.es"}}, nil},
		{"garcía2024", []Attribute{{"first name", "José"}, {"last name", "García"}},
			[]string{"The password is too similar to the last name."}},
		{"GARCÍA-2024", []Attribute{{"last name", "García"}}, []string{"The password is too similar to the last name."}},
		{"example.com", ada, []string{"The password is too similar to the email."}},
		{"zqwwwwwwwwwwwwwwwwwwwwwwwwwwwwada", ada, nil},
		{"zqwertyuiopasdfghjklzxcvbnmada", []Attribute{{"first name", "Ada"}}, nil},
		{"ada@example.com", []Attribute{{"first name", ""}, {"last name", ""}, {"email", "ada@example.com"}},
			[]string{"The password is too similar to the email."}},
		{"lovelace", []Attribute{{"first name", "Ada"}, {"last name", "Lovelace"}},
			[]string{"The password is too similar to the last name."}},
		{"adaada12", []Attribute{{"first name", "Ada"}, {"last name", "Ada"}}, nil},
		{"Tr0ub4dor&3", ada, nil},
	}
	for _, tt := range tests {
		t.Run(tt.plain, func(t *testing.T) {
			got := Validate(tt.plain, tt.attrs)
			if !slices.Equal(got, tt.want) {
				t.Errorf("Validate(%q) = %q, want %q", tt.plain, got, tt.want)
			}
			if tt.want == nil && got != nil {
				t.Errorf("Validate(%q) = %#v, want nil", tt.plain, got)
			}
		})
	}
}

// TestNonWordSplit checks that nonWord.Split behaves like Python's
// re.split(r"\W+", value), leading and trailing empty strings included.
// Expected values printed by python3.
func TestNonWordSplit(t *testing.T) {
	tests := []struct {
		value string
		want  []string
	}{
		{"ada@example.com", []string{"ada", "example", "com"}},
		{"@ada", []string{"", "ada"}},
		{"ada!", []string{"ada", ""}},
		{"@@", []string{"", ""}},
		{"", []string{""}},
		{"a_b-c d", []string{"a_b", "c", "d"}},
		{"josé.garcía@exämple.com", []string{"josé", "garcía", "exämple", "com"}},
		{"x²y", []string{"x²y"}},
		{"a\u0301b", []string{"a", "b"}}, // combining marks are \W in Python
		{"o'brien-smith", []string{"o", "brien", "smith"}},
		{"日本 語", []string{"日本", "語"}},
	}
	for _, tt := range tests {
		t.Run(tt.value, func(t *testing.T) {
			if got := nonWord().Split(tt.value, -1); !slices.Equal(got, tt.want) {
				t.Errorf("split(%q) = %q, want %q", tt.value, got, tt.want)
			}
		})
	}
}

// TestPyStrip checks pyStrip against Python's str.strip() (values printed by
// python3).
func TestPyStrip(t *testing.T) {
	tests := []struct{ in, want string }{
		{" a ", "a"},
		{"\x1c\x1da\x1e\x1f", "a"},
		{"\u00a0a\u3000", "a"},
		{"\u200ba", "\u200ba"}, // zero width space is not space
		{"\u0085a\t\n\r\v\f", "a"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			if got := pyStrip(tt.in); got != tt.want {
				t.Errorf("pyStrip(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

var updateCommon = flag.Bool("update-common-passwords", false,
	"rewrite common-passwords.txt from common-passwords.txt.gz")

// TestCommonPasswordsAreDjangos derives the embedded list from Django's file
// as CommonPasswordValidator reads it ({x.strip() for x in f}) and checks that
// common-passwords.txt is exactly that set, sorted: Django's file has 20,000
// lines, 19,729 distinct once stripped (counted with python3:
// len({x.strip() for x in gzip.open(path, "rt")})). With
// -update-common-passwords it rewrites the file instead.
func TestCommonPasswordsAreDjangos(t *testing.T) {
	gz, err := os.ReadFile("common-passwords.txt.gz")
	if err != nil {
		t.Fatal(err)
	}
	zr, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	sc := bufio.NewScanner(zr)
	for sc.Scan() {
		lines = append(lines, pyStrip(sc.Text()))
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(lines) != 20000 {
		t.Fatalf("Django's file has %d lines, want 20000", len(lines))
	}
	slices.Sort(lines)
	lines = slices.Compact(lines)
	if len(lines) != 19729 {
		t.Fatalf("%d distinct entries, want 19729", len(lines))
	}
	want := strings.Join(lines, "\n") + "\n"
	if *updateCommon {
		if err := os.WriteFile("common-passwords.txt", []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if commonPasswords != want {
		t.Fatal("common-passwords.txt is not Django's list sorted; run go test ./shared/password -run " +
			"TestCommonPasswordsAreDjangos -update-common-passwords")
	}
	for _, pw := range lines {
		if !hasLine(commonPasswords, pw) {
			t.Fatalf("hasLine misses %q", pw)
		}
	}
}

// TestHasLine bisects small lists for every entry, and for words that sort
// before, between and after them.
func TestHasLine(t *testing.T) {
	for _, list := range []string{"", "b\n", "b\nd\n", "b\nd\nf\n", "b\ndd\nf\nhhhh\nj\n", "b\nd"} {
		entries := strings.Split(strings.TrimSuffix(list, "\n"), "\n")
		for _, w := range []string{"", "a", "b", "c", "d", "dd", "e", "f", "g", "hhhh", "hh", "j", "k", "b\nd"} {
			want := list != "" && slices.Contains(entries, w)
			if got := hasLine(list, w); got != want {
				t.Errorf("hasLine(%q, %q) = %v, want %v", list, w, got, want)
			}
		}
	}
}

// FuzzHasLine holds the bisection of the embedded list to a set lookup: for
// any word, hasLine answers what membership in Django's set answers.
func FuzzHasLine(f *testing.F) {
	set := map[string]bool{}
	for _, w := range strings.Split(strings.TrimSuffix(commonPasswords, "\n"), "\n") {
		set[w] = true
	}
	for _, w := range []string{"", "!", "password", "passwor", "password1", "zzzzzz", "~", "\n", "a\nb",
		"fallen_angel", "\xff"} {
		f.Add(w)
	}
	f.Fuzz(func(t *testing.T, w string) {
		if got := hasLine(commonPasswords, w); got != set[w] {
			t.Fatalf("hasLine(%q) = %v, the set says %v", w, got, set[w])
		}
	})
}

// TestExceedsMaximumLengthRatio pins Django's shortcut at its boundaries.
func TestExceedsMaximumLengthRatio(t *testing.T) {
	tests := []struct {
		password, value string
		want            bool
	}{
		{"", "", false},            // 0 >= 0 but 0 < 0 is false
		{"a", "", true},            // an empty word is always skipped
		{"aaaaaaaaaa", "a", true},  // 10 >= 10 and 1 < 3.5
		{"aaaaaaaaa", "a", false},  // 9 < 10
		{"ééééééééééé", "é", true}, // counted in code points, not bytes
		{"aaaaaaaaaaaaaaaaaaaa", "ab", true},
		{"aaaaaaaaaaaaaaaaaaa", "ab", false},
	}
	for _, tt := range tests {
		t.Run(tt.password+"|"+tt.value, func(t *testing.T) {
			if got := exceedsMaximumLengthRatio(tt.password, maxSimilarity, tt.value); got != tt.want {
				t.Errorf("exceedsMaximumLengthRatio(%q, %q) = %v, want %v", tt.password, tt.value, got, tt.want)
			}
		})
	}
}
