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
