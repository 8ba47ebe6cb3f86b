package mail

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/service/sesv2"
	"github.com/aws/aws-sdk-go-v2/service/sesv2/types"
	"github.com/reportingplatform/api/shared/awsenv"
	"github.com/reportingplatform/api/shared/config"
	"github.com/reportingplatform/api/shared/domain"
)

// SendTimeout bounds one hand-over to SES. The e-mail goes out after the invitation is written, within
// the request's budget (httpapi.RequestBudget): a slow SES leaves email_sent false rather than hold the
// 201 back. SES normally answers well within it.
const SendTimeout = time.Second

// Within SendTimeout: one attempt may take 600 ms (a hung connection is given up early enough that a
// second attempt, after a 5xx, a throttle or a dropped connection, still has time); more attempts
// would not fit.
const (
	sesAttemptTimeout = 600 * time.Millisecond
	sesMaxAttempts    = 2
)

// SES is the Mailer in AWS: Amazon SES v2 SendEmail from From (the template's SenderEmail, a verified
// identity the function's role may send as).
type SES struct {
	Client *sesv2.Client
	From   string
	Link   string // INVITATION_URL, with TokenPlaceholder
}

// NewSESClient builds the SES client once per process, with region and credentials from the
// environment (awsenv) and short timeouts. endpoint ("" for AWS) points it elsewhere, for tests.
func NewSESClient(endpoint string) (*sesv2.Client, error) {
	cfg, err := awsenv.Config(endpoint != "")
	if err != nil {
		return nil, fmt.Errorf("ses client: %w", err)
	}
	cfg.HTTPClient = awshttp.NewBuildableClient().
		WithTimeout(sesAttemptTimeout).
		WithDialerOptions(func(d *net.Dialer) { d.Timeout = 300 * time.Millisecond }).
		WithTransportOptions(func(t *http.Transport) { t.ResponseHeaderTimeout = sesAttemptTimeout })
	cfg.Retryer = func() aws.Retryer {
		return retry.NewStandard(func(o *retry.StandardOptions) {
			o.MaxAttempts = sesMaxAttempts
			o.MaxBackoff = 100 * time.Millisecond
		})
	}
	return sesv2.NewFromConfig(cfg, func(o *sesv2.Options) {
		if endpoint != "" {
			o.BaseEndpoint = aws.String(endpoint)
		}
	}), nil
}

// SendInvitation hands the e-mail to SES within SendTimeout.
func (s *SES) SendInvitation(ctx context.Context, m domain.InvitationMail) error {
	ctx, cancel := context.WithTimeout(ctx, SendTimeout)
	defer cancel()
	msg := Compose(m, s.Link)
	_, err := s.Client.SendEmail(ctx, &sesv2.SendEmailInput{
		FromEmailAddress: aws.String(s.From),
		Destination:      &types.Destination{ToAddresses: []string{msg.To}},
		Content: &types.EmailContent{Simple: &types.Message{
			Subject: &types.Content{Data: aws.String(msg.Subject), Charset: aws.String("UTF-8")},
			Body:    &types.Body{Text: &types.Content{Data: aws.String(msg.Text), Charset: aws.String("UTF-8")}},
		}},
	})
	if err != nil {
		return fmt.Errorf("ses: %w", err)
	}
	return nil
}

// unconfigured is the Mailer when neither an outbox nor a sender is set: nothing can be sent, so
// invitations are created with email_sent false (SPEC §10: a failed send leaves it false).
type unconfigured struct{}

func (unconfigured) SendInvitation(context.Context, domain.InvitationMail) error {
	return errors.New("no sender configured: set SENDER_EMAIL (SES) or OUTBOX_DIR")
}

// FromConfig is the Mailer of cfg: the outbox when OUTBOX_DIR is set (make run), else SES from
// SENDER_EMAIL, else one that sends nothing.
func FromConfig(cfg config.Config, log *slog.Logger, now func() time.Time) (domain.Mailer, error) {
	switch {
	case cfg.OutboxDir != "":
		return &Outbox{Dir: cfg.OutboxDir, From: firstNonEmpty(cfg.SenderEmail, "invitations@localhost"),
			Link: cfg.InvitationURL, Log: log, Now: now}, nil
	case cfg.SenderEmail != "":
		client, err := NewSESClient("")
		if err != nil {
			return nil, err
		}
		return &SES{Client: client, From: cfg.SenderEmail, Link: cfg.InvitationURL}, nil
	default:
		return unconfigured{}, nil
	}
}
