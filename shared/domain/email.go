package domain

import (
	"net"
	"regexp"
	"strings"
	"sync"
)

// NormalizeEmail is Django's BaseUserManager.normalize_email: the domain part is lower-cased, the local
// part kept as given.
func NormalizeEmail(email string) string {
	email = strings.TrimSpace(email)
	at := strings.LastIndex(email, "@")
	if at < 0 {
		return email
	}
	return email[:at] + "@" + strings.ToLower(email[at+1:])
}

// MaxEmailLength is the seed's limit on emails (and Django's EmailField's).
const MaxEmailLength = 255

// EmailKey is the form under which emails are unique and looked up: case-insensitive, as SPEC requires.
func EmailKey(email string) string { return strings.ToLower(strings.TrimSpace(email)) }

// Django's EmailValidator, translated to RE2 (which has no look-behind: the "label does not end with a
// hyphen" rule is checked by hand). Compiled at first use, not at start-up: every function imports this
// package, most never validate an email, and compiling the three would lengthen every cold start.
var (
	emailUser = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)^(?:[-!#$%&'*+/=?^_` + "`" + `{}|~0-9A-Z]+(?:\.[-!#$%&'*+/=?^_` + "`" +
			`{}|~0-9A-Z]+)*|"(?:[\x01-\x08\x0b\x0c\x0e-\x1f!#-\[\]-\x7f]|\\[\x01-\x09\x0b\x0c\x0e-\x7f])*")$`)
	})
	emailDomain = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)^(?:[A-Z0-9](?:[A-Z0-9-]{0,61}[A-Z0-9])?\.)+[A-Z0-9-]{2,63}$`)
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
