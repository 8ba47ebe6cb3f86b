// Package mail sends the invitation e-mail of SPEC §10: its text (Compose), and the two ways to hand it
// over: Amazon SES v2 in AWS (SES) and an outbox directory of .eml files under `make run` (Outbox).
// FromConfig picks one; only the invitations function imports this package.
package mail

import (
	"fmt"
	"net/url"
	"strings"
	"unicode"

	"github.com/reportingplatform/api/shared/domain"
)

// TokenPlaceholder is where the invitation link (INVITATION_URL) takes the token.
const TokenPlaceholder = "{token}"

// Message is one plain-text e-mail.
type Message struct {
	To      string // the address
	ToName  string // the invitee's name for the To header, "" when the invitation has none
	Subject string
	Text    string
}

// Compose writes the invitation e-mail: who invites to which organization with which role, until when,
// and the link that carries the token (link with TokenPlaceholder replaced, the token query-escaped).
// What clients wrote (names, addresses, the organization's name) stays on its line (SPEC §9): see
// oneLine.
func Compose(m domain.InvitationMail, link string) Message {
	m = clientTextOnOneLine(m)
	name := domain.FullName(m.FirstName, m.LastName)
	greeting := "Hello,"
	if name != "" {
		greeting = "Hello " + name + ","
	}
	inviter := m.InviterEmail
	if m.InviterName != "" {
		inviter = m.InviterName + " (" + m.InviterEmail + ")"
	}
	role := m.Role.Name()
	if role == "" {
		role = fmt.Sprint("role ", int(m.Role))
	}
	text := fmt.Sprintf(`%s

%s invites you to join %s on the Reporting Platform as %s %s.

Accept the invitation here:
%s

Your invitation token is %s. The invitation is valid until %s.
`, greeting, inviter, m.OrganizationName, article(role), role,
		strings.ReplaceAll(link, TokenPlaceholder, url.QueryEscape(m.Token)), m.Token,
		m.ExpiresAt.UTC().Format("2 January 2006, 15:04 UTC"))
	return Message{
		To:      m.To,
		ToName:  name,
		Subject: fmt.Sprintf("%s invites you to %s", firstNonEmpty(m.InviterName, m.InviterEmail), m.OrganizationName),
		Text:    text,
	}
}

// clientTextOnOneLine is m with every text a client chose made one line (oneLine). The invitation
// itself keeps what was sent: only the e-mail is written this way.
func clientTextOnOneLine(m domain.InvitationMail) domain.InvitationMail {
	for _, s := range []*string{&m.To, &m.OrganizationName, &m.InviterName, &m.InviterEmail} {
		*s = oneLine(*s)
	}
	for _, s := range []**string{&m.FirstName, &m.LastName} {
		if *s != nil { // a copy: the pointer is the caller's
			*s = domain.Ptr(oneLine(**s))
		}
	}
	return m
}

// oneLine replaces with a space every character that could end a line or reorder what a reader sees:
// control characters (CR, LF, tab, NEL U+0085, …), the line and paragraph separators U+2028 and
// U+2029, and format characters (bidirectional overrides, zero-width spaces, soft hyphens, …). Without
// it, a name holding a line break would put the sender's own lines into a mail from the platform's
// address. Kept: the zero-width joiner and non-joiner, format characters that scripts (Persian,
// Indic) and emoji need inside a name and that break nothing.
func oneLine(s string) string {
	breaks := func(r rune) bool {
		if r == '\u200c' || r == '\u200d' {
			return false
		}
		return unicode.IsControl(r) || unicode.In(r, unicode.Cf, unicode.Zl, unicode.Zp)
	}
	if strings.IndexFunc(s, breaks) < 0 {
		return s
	}
	return strings.Map(func(r rune) rune {
		if breaks(r) {
			return ' '
		}
		return r
	}, s)
}

func article(word string) string {
	if strings.ContainsRune("aeiou", rune(word[0])) {
		return "an"
	}
	return "a"
}

func firstNonEmpty(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}
