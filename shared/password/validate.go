package password

import (
	_ "embed"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// Attribute is a piece of the user's personal information that the password
// must not resemble. Name is the word used in the error message ("email",
// "first name", "last name"), like the verbose_name of Django's user field.
// Pass attributes in Django's order (username, first name, last name, email)
// so that the one similarity message names the same field Django would.
type Attribute struct {
	Name, Value string
}

// Settings of Django's default validators.
const (
	// maxSimilarity is UserAttributeSimilarityValidator's default
	// max_similarity.
	maxSimilarity = 0.7
	// minLength is MinimumLengthValidator's default min_length, counted in
	// Unicode code points as Python's len(str) does.
	minLength = 8
)

// Django's English messages, kept byte for byte so that clients written for
// the Django service keep working.
const (
	msgTooSimilar = "The password is too similar to the %s."
	msgTooShort   = "This password is too short. It must contain at least 8 characters." // 8 = minLength
	msgTooCommon  = "This password is too common."
	msgNumeric    = "This password is entirely numeric."
)

// Validate runs Django's default AUTH_PASSWORD_VALIDATORS in Django's order
// (UserAttributeSimilarityValidator, MinimumLengthValidator,
// CommonPasswordValidator, NumericPasswordValidator) and returns the message
// of every failing one, in that order, or nil when plain is acceptable. Like
// Django, at most one similarity message is returned, for the first
// attribute that matches; attributes with an empty Value are skipped.
func Validate(plain string, attrs []Attribute) []string {
	var msgs []string
	if name, similar := tooSimilar(plain, attrs); similar {
		msgs = append(msgs, fmt.Sprintf(msgTooSimilar, name))
	}
	if utf8.RuneCountInString(plain) < minLength {
		msgs = append(msgs, msgTooShort)
	}
	if isCommon(plain) {
		msgs = append(msgs, msgTooCommon)
	}
	if isNumeric(plain) {
		msgs = append(msgs, msgNumeric)
	}
	return msgs
}

// nonWord is Python's re r"\W+" on str patterns: \w is a letter, a number
// (str.isalnum) or "_". Go's regexp \w is ASCII-only, hence the classes.
// Compiled on first use: compiling the Unicode classes at package init would
// cost every function that links this package (GODEBUG=inittrace shows it),
// and only user creation validates.
var nonWord = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`[^\p{L}\p{N}_]+`) })

// tooSimilar is UserAttributeSimilarityValidator.validate: it compares the
// lower-cased password with each attribute and with each of its "words"
// (so both "ada@example.com" and "ada" are tried) and returns the name of
// the first attribute that is too similar.
//
// Django compares SequenceMatcher.quick_ratio() only, not ratio(): quick_ratio
// ignores order, so an anagram of an attribute is "too similar" as well.
// This port keeps Django's rule so that the same passwords are refused.
// (strings.ToLower maps rune by rune where Python's str.lower applies a few
// multi-rune special cases such as "İ"; that is the only known difference.)
func tooSimilar(plain string, attrs []Attribute) (string, bool) {
	password := strings.ToLower(plain)
	for _, attr := range attrs {
		if attr.Value == "" {
			continue
		}
		valueLower := strings.ToLower(attr.Value)
		parts := append(nonWord().Split(valueLower, -1), valueLower)
		for _, part := range parts {
			if exceedsMaximumLengthRatio(password, maxSimilarity, part) {
				continue
			}
			if quickRatio(password, part) >= maxSimilarity {
				return attr.Name, true
			}
		}
	}
	return "", false
}

// exceedsMaximumLengthRatio is Django's exceeds_maximum_length_ratio: when
// the password is at least ten times longer than value, quick_ratio cannot
// reach max_similarity, so the comparison (and its cost on a long password)
// is skipped. Lengths are in code points, like Python's len.
func exceedsMaximumLengthRatio(password string, maxSim float64, value string) bool {
	pwdLen := utf8.RuneCountInString(password)
	lengthBoundSimilarity := maxSim / 2 * float64(pwdLen)
	valueLen := utf8.RuneCountInString(value)
	return pwdLen >= 10*valueLen && float64(valueLen) < lengthBoundSimilarity
}

// isNumeric is NumericPasswordValidator: Python's str.isdigit, true for a
// non-empty string of digits only. (unicode.IsDigit is category Nd; Python
// also counts a few other digits such as "²", a negligible difference.)
func isNumeric(plain string) bool {
	if plain == "" {
		return false
	}
	for _, r := range plain {
		if !unicode.IsDigit(r) {
			return false
		}
	}
	return true
}

// commonPasswords is Django 4.2.28's common password list, as
// CommonPasswordValidator holds it ({x.strip() for x in f}): every distinct
// stripped line of common-passwords.txt.gz, sorted by byte order, one per
// line. 19,729 entries.
//
// common-passwords.txt.gz is Django's django/contrib/auth/common-passwords.txt.gz,
// copied byte for byte from the Debian package python3-django
// 3:4.2.28-0+deb13u2: 20,000 lines, created by Royce Williams
// (https://gist.github.com/roycewilliams/226886fd01572964e1431ac8afc999ce).
// It is Django's file, under Django's BSD-3-Clause license; see
// common-passwords.LICENSE. Embedding Django's own list means exactly the
// passwords Django refused are refused. TestCommonPasswordsAreDjangos derives
// common-passwords.txt from it and fails when the two differ.
//
// The list is embedded sorted, not gzipped, so that a lookup is a binary
// search of the text as the binary holds it: nothing to decompress, no set
// to build. Building a set would cost a function instance's first user
// creation CPU time and fresh heap, which a cold start pays for, to save a
// little binary size.
//
//go:embed common-passwords.txt
var commonPasswords string

// isCommon is CommonPasswordValidator: password.lower().strip() is in the
// list.
func isCommon(plain string) bool {
	return hasLine(commonPasswords, pyStrip(strings.ToLower(plain)))
}

// hasLine reports whether w is one of the lines of list, whose lines are
// sorted by byte order and each end with a newline. It bisects the text
// itself: each step takes the line around the middle byte of what is left.
func hasLine(list, w string) bool {
	lo, hi := 0, len(list) // the lines that start in [lo, hi) are left; lo starts a line
	for lo < hi {
		mid := lo + (hi-lo)/2
		start := lo + strings.LastIndexByte(list[lo:mid], '\n') + 1
		end := start + strings.IndexByte(list[start:], '\n')
		if end < start { // no newline after the last line
			end = len(list)
		}
		switch line := list[start:end]; {
		case line == w:
			return true
		case line < w:
			lo = end + 1
		default:
			hi = start
		}
	}
	return false
}

// pyStrip is Python's str.strip(): it trims what str.isspace() calls space,
// which is Unicode White_Space plus the separators U+001C..U+001F.
func pyStrip(s string) string {
	return strings.TrimFunc(s, func(r rune) bool {
		return unicode.IsSpace(r) || (r >= 0x1c && r <= 0x1f)
	})
}
