package mail

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"log/slog"
	"mime"
	"mime/quotedprintable"
	"net/mail"
	"os"
	"path/filepath"
	"time"

	"github.com/reportingplatform/api/shared/domain"
)

// Outbox is the Mailer of `make run`: each e-mail becomes an RFC 5322 .eml file in Dir (open it with any
// mail program), and a log line names the file and the recipient, never the token.
type Outbox struct {
	Dir  string
	From string
	Link string // INVITATION_URL, with TokenPlaceholder
	Log  *slog.Logger
	Now  func() time.Time
}

// SendInvitation writes the e-mail atomically: a temporary file renamed into place, so a reader of the
// directory never sees half a message.
func (o *Outbox) SendInvitation(_ context.Context, m domain.InvitationMail) error {
	msg := Compose(m, o.Link)
	id := make([]byte, 8)
	if _, err := rand.Read(id); err != nil {
		return err
	}
	now := o.Now().UTC()
	name := now.Format("20060102T150405.000000Z") + "-" + hex.EncodeToString(id) + ".eml"
	raw, err := renderEML(o.From, msg, now, hex.EncodeToString(id))
	if err != nil {
		return err
	}
	if err := os.MkdirAll(o.Dir, 0o755); err != nil {
		return fmt.Errorf("outbox: %w", err)
	}
	tmp, err := os.CreateTemp(o.Dir, ".writing-*")
	if err != nil {
		return fmt.Errorf("outbox: %w", err)
	}
	defer os.Remove(tmp.Name()) // gone after the rename; cleans up after a failure
	if _, err := tmp.Write(raw); err != nil {
		tmp.Close()
		return fmt.Errorf("outbox: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("outbox: %w", err)
	}
	path := filepath.Join(o.Dir, name)
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("outbox: %w", err)
	}
	o.Log.Info("invitation e-mail written to the outbox", "file", path, "to", msg.To)
	return nil
}

// renderEML is msg as a MIME message: headers with non-ASCII text or line breaks encoded (RFC 2047), so
// that a name or an organization can neither garble nor add a header; the body quoted-printable UTF-8.
func renderEML(from string, msg Message, date time.Time, id string) ([]byte, error) {
	to, err := mail.ParseAddress(msg.To)
	if err != nil {
		return nil, fmt.Errorf("outbox: recipient: %w", err)
	}
	to.Name = msg.ToName
	sender := &mail.Address{Address: from}
	var b bytes.Buffer
	fmt.Fprintf(&b, "From: %s\r\n", sender.String())
	fmt.Fprintf(&b, "To: %s\r\n", to.String())
	fmt.Fprintf(&b, "Subject: %s\r\n", mime.QEncoding.Encode("utf-8", msg.Subject))
	fmt.Fprintf(&b, "Date: %s\r\n", date.Format(time.RFC1123Z))
	fmt.Fprintf(&b, "Message-ID: <%s@outbox.local>\r\n", id)
	b.WriteString("MIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: " +
		"quoted-printable\r\n\r\n")
	qp := quotedprintable.NewWriter(&b)
	if _, err := qp.Write(bytes.ReplaceAll([]byte(msg.Text), []byte("\n"), []byte("\r\n"))); err != nil {
		return nil, err
	}
	if err := qp.Close(); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}
