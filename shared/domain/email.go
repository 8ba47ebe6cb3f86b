package domain

import (
	"net"
	"regexp"
	"strings"
	"sync"
)

// NormalizeEmail is Django's BaseUserManager.normalize_email: the domain part is lower-cased as Python's
// str.lower does it, the local part kept as given.
func NormalizeEmail(email string) string {
	email = strings.TrimSpace(email)
	at := strings.LastIndex(email, "@")
	if at < 0 {
		return email
	}
	return email[:at] + "@" + pythonLower(email[at+1:])
}

// pythonLower is Python's str.lower where Go's strings.ToLower differs from it in a way that matters:
// Python lower-cases the dotted capital I (U+0130) to "i" followed by a combining dot above, as
// Unicode's full case mapping says, where Go maps it to a plain "i", which would turn a domain into
// its ASCII look-alike. (Python's final-sigma rule is not reproduced: σ and ς fold together in IDNA.)
func pythonLower(s string) string {
	return strings.ToLower(strings.ReplaceAll(s, "\u0130", "i\u0307"))
}

// MaxEmailLength is the seed's limit on emails (and Django's EmailField's).
const MaxEmailLength = 255

// EmailKey is the form under which emails are unique, compared and looked up (SPEC §2, §4): ASCII letters
// folded to lower case and nothing else. Unicode case mapping would fold look-alikes onto other
// addresses (the Kelvin sign onto "k", the dotted capital I onto "i"), so one person's address could
// log into, block or be invited as another's.
func EmailKey(email string) string { return asciiLower(strings.TrimSpace(email)) }

// asciiLower maps A–Z to a–z and leaves every other byte as it is, so multi-byte characters pass
// through untouched.
func asciiLower(s string) string {
	i := strings.IndexFunc(s, func(r rune) bool { return 'A' <= r && r <= 'Z' })
	if i < 0 {
		return s
	}
	b := []byte(s)
	for j := i; j < len(b); j++ {
		if 'A' <= b[j] && b[j] <= 'Z' {
			b[j] += 'a' - 'A'
		}
	}
	return string(b)
}

// letters is what Django's [A-Z] matches under Python's re.IGNORECASE: the ASCII letters and four beyond
// them, the Kelvin sign and the long s (which RE2's case folding matches too) and the dotted capital I
// and the dotless i (which it does not, so they are named).
const letters = `A-Z\x{130}\x{131}`

// Django's EmailValidator, translated to RE2 (which has no look-behind: the "label does not end with a
// hyphen" rule is checked by hand). Compiled at first use, not at start-up: every function imports this
// package, most never validate an email, and compiling the three would lengthen every cold start.
var (
	emailUser = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)^(?:[-!#$%&'*+/=?^_` + "`" + `{}|~0-9` + letters +
			`]+(?:\.[-!#$%&'*+/=?^_` + "`" + `{}|~0-9` + letters + `]+)*|` +
			`"(?:[\x01-\x08\x0b\x0c\x0e-\x1f!#-\[\]-\x7f\x{130}\x{131}]|\\[\x01-\x09\x0b\x0c\x0e-\x7f])*")$`)
	})
	emailDomain = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)^(?:[` + letters + `0-9](?:[` + letters + `0-9-]{0,61}[` + letters + `0-9])?\.)+[` +
			letters + `0-9-]{2,63}$`)
	})
	emailLiteral = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\[([0-9a-fA-F:.]+)\]$`) })
)

// ValidEmail reports whether Django's EmailValidator would accept email.
func ValidEmail(email string) bool {
	if email == "" || len(email) > 320 || strings.ContainsAny(email, "\n\r") {
		return false
	}
	at := strings.LastIndex(email, "@")
	if at <= 0 || at == len(email)-1 {
		return false
	}
	user, domainPart := email[:at], email[at+1:]
	if !emailUser().MatchString(user) {
		return false
	}
	if domainPart == "localhost" || validDomain(domainPart) {
		return true
	}
	// Django tries an internationalised domain again in its punycode (ASCII) form.
	ascii, ok := punycodeASCII(domainPart)
	return ok && ascii != domainPart && validDomain(ascii)
}

// validDomain is Django's validate_domain_part: a host name, or an IP address in brackets.
func validDomain(d string) bool {
	if m := emailLiteral().FindStringSubmatch(d); m != nil {
		return net.ParseIP(m[1]) != nil
	}
	return emailDomain().MatchString(d) && !strings.HasSuffix(d, "-")
}
