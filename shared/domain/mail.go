package domain

import (
	"context"
	"time"
)

// InvitationMail is what the invitation e-mail says (SPEC §10): who invites whom to which organization
// with which role, and the token the link carries.
type InvitationMail struct {
	To                  string
	FirstName, LastName *string // the invitee's, as the invitation has them
	OrganizationName    string
	InviterName         string
	InviterEmail        string
	Role                Role
	Token               string
	ExpiresAt           time.Time
}

// Mailer hands an invitation e-mail over for delivery: Amazon SES in AWS, an outbox directory under
// `make run`. A nil error means handed over (email_sent becomes true); any error means not sent.
type Mailer interface {
	SendInvitation(ctx context.Context, m InvitationMail) error
}

// MailStore is what the invitation e-mail's delivery outside the request (MailFunction, SPEC §9) needs
// of storage: the invitation as it is now, and the record that its e-mail was handed over.
type MailStore interface {
	// Invitation reads the invitation, strongly consistent. Returns ENOTFOUND when it does not exist.
	Invitation(ctx context.Context, id string) (Invitation, error)
	// MarkInvitationSent records that the invitation's e-mail was handed over, unless its email changed
	// since (or it is gone): then ECONFLICT.
	MarkInvitationSent(ctx context.Context, inv Invitation) error
}

// Mail is the invitation's e-mail as the invitation says it: to its address, from its inviter to its
// organization, named as the invitation's copy of them (Shown) has them. The request that creates it and
// the delivery outside the request compose the same e-mail from it.
func (inv *Invitation) Mail() InvitationMail {
	m := InvitationMail{
		To: inv.Email, FirstName: inv.FirstName, LastName: inv.LastName, Role: inv.Role, Token: inv.Token,
		ExpiresAt: inv.ExpiryDate,
	}
	if inv.Shown != nil {
		m.OrganizationName = inv.Shown.OrganizationName
		m.InviterName = FullName(inv.Shown.Inviter.FirstName, inv.Shown.Inviter.LastName)
		m.InviterEmail = inv.Shown.Inviter.Email
	}
	return m
}

// NeedsMail reports whether inv, as read now, still wants the e-mail of the save that wrote version at
// address email: not yet sent, still that save (a later save has its own turn), still pending. An
// invitation accepted, cancelled, revoked or expired since gets none: its link could do nothing.
func (inv *Invitation) NeedsMail(email string, version int64, now time.Time) bool {
	return !inv.EmailSent && inv.Email == email && inv.Version == version &&
		inv.EffectiveStatus(now) == StatusPending
}
