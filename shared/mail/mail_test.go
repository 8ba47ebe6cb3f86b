package mail

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"mime"
	"mime/quotedprintable"
	"net/http"
	"net/http/httptest"
	"net/mail"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/reportingplatform/api/shared/config"
	"github.com/reportingplatform/api/shared/domain"
)

var when = time.Date(2026, 11, 30, 9, 5, 0, 0, time.UTC)

func invitation() domain.InvitationMail {
	return domain.InvitationMail{
		To: "zoë@example.com", FirstName: domain.Ptr("Zoë"), LastName: domain.Ptr("Ångström"),
		OrganizationName: "Acme Analytics", InviterName: "Grace Hopper", InviterEmail: "grace@example.com",
		Role: domain.RoleAdministrator, Token: "6f1c1c1e-5b1a-4d4e-9d41-2f0c2b9c7a10", ExpiresAt: when,
	}
}

const link = "https://app.example.com/invitations/accept?token={token}"

func TestCompose(t *testing.T) {
	m := Compose(invitation(), link)
	want := `Hello Zoë Ångström,

Grace Hopper (grace@example.com) invites you to join Acme Analytics on the Reporting Platform as an administrator.

Accept the invitation here:
https://app.example.com/invitations/accept?token=6f1c1c1e-5b1a-4d4e-9d41-2f0c2b9c7a10

Your invitation token is 6f1c1c1e-5b1a-4d4e-9d41-2f0c2b9c7a10. The invitation is valid until 30 November 2026, 09:05 UTC.
`
	if m.To != "zoë@example.com" || m.Subject != "Grace Hopper invites you to Acme Analytics" || m.Text != want {
		t.Fatalf("to %q subject %q text\n%s", m.To, m.Subject, m.Text)
	}
	anon := invitation()
	anon.FirstName, anon.LastName, anon.InviterName, anon.Role = nil, nil, "", domain.RoleMember
	m = Compose(anon, link)
	if !strings.HasPrefix(m.Text, "Hello,\n\ngrace@example.com invites you to join Acme Analytics on the Reporting Platform as a member.") ||
		m.Subject != "grace@example.com invites you to Acme Analytics" {
		t.Fatalf("subject %q text\n%s", m.Subject, m.Text)
	}
}

func TestOutboxWritesAParseableMessage(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "outbox")
	var logs bytes.Buffer
	o := &Outbox{Dir: dir, From: "invitations@example.com", Link: link,
		Log: slog.New(slog.NewJSONHandler(&logs, nil)), Now: func() time.Time { return when }}
	if err := o.SendInvitation(context.Background(), invitation()); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(dir)
	if err != nil || len(entries) != 1 || !strings.HasSuffix(entries[0].Name(), ".eml") {
		t.Fatalf("outbox holds %v (%v); want one .eml and nothing half-written", entries, err)
	}
	path := filepath.Join(dir, entries[0].Name())
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	msg, err := mail.ReadMessage(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	to, err := mail.ParseAddress(msg.Header.Get("To"))
	if err != nil || to.Address != "zoë@example.com" {
		t.Fatalf("To %q: %v", msg.Header.Get("To"), err)
	}
	subject, err := new(mime.WordDecoder).DecodeHeader(msg.Header.Get("Subject"))
	if err != nil || subject != "Grace Hopper invites you to Acme Analytics" {
		t.Fatalf("Subject %q: %v", subject, err)
	}
	if date, err := msg.Header.Date(); err != nil || !date.Equal(when) {
		t.Fatalf("Date %v: %v", date, err)
	}
	if msg.Header.Get("From") != "<invitations@example.com>" || msg.Header.Get("Message-Id") == "" ||
		msg.Header.Get("Content-Type") != "text/plain; charset=utf-8" {
		t.Fatalf("headers %v", msg.Header)
	}
	body, err := io.ReadAll(quotedprintable.NewReader(msg.Body))
	if err != nil {
		t.Fatal(err)
	}
	want := strings.ReplaceAll(Compose(invitation(), link).Text, "\n", "\r\n")
	if string(body) != want {
		t.Fatalf("body\n%q\nwant\n%q", body, want)
	}
	// One log line names the file and the recipient; never the token (it is the invitation's secret).
	line := logs.String()
	if !strings.Contains(line, path) || !strings.Contains(line, "zoë@example.com") || strings.Contains(line, invitation().Token) {
		t.Fatalf("log %s", line)
	}
}

func TestOutboxRefusesABadRecipientAndWritesNothing(t *testing.T) {
	dir := t.TempDir()
	o := &Outbox{Dir: dir, From: "invitations@example.com", Link: link, Log: slog.New(slog.DiscardHandler), Now: time.Now}
	bad := invitation()
	bad.To = "not an address"
	if err := o.SendInvitation(context.Background(), bad); err == nil {
		t.Fatal("sent to a bad address")
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Fatalf("left %v", entries)
	}
}

// sesStandIn answers SES v2's SendEmail as AWS does, or with status, or not at all while hang is set.
func sesStandIn(t *testing.T, status int, hang time.Duration, got *map[string]any, path *string) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		*path = r.Method + " " + r.URL.Path
		if err := json.NewDecoder(r.Body).Decode(got); err != nil {
			t.Errorf("request body: %v", err)
		}
		if hang > 0 {
			select {
			case <-time.After(hang):
			case <-r.Context().Done():
			}
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		if status == 200 {
			_, _ = io.WriteString(w, `{"MessageId": "0100018c-example"}`)
		} else {
			_, _ = io.WriteString(w, `{"message": "internal failure"}`)
		}
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

func TestSESSendsTheMessage(t *testing.T) {
	var got map[string]any
	var path string
	client, err := NewSESClient(sesStandIn(t, 200, 0, &got, &path))
	if err != nil {
		t.Fatal(err)
	}
	s := &SES{Client: client, From: "invitations@example.com", Link: link}
	if err := s.SendInvitation(context.Background(), invitation()); err != nil {
		t.Fatal(err)
	}
	msg := Compose(invitation(), link)
	want := map[string]any{
		"FromEmailAddress": "invitations@example.com",
		"Destination":      map[string]any{"ToAddresses": []any{"zoë@example.com"}},
		"Content": map[string]any{"Simple": map[string]any{
			"Subject": map[string]any{"Data": msg.Subject, "Charset": "UTF-8"},
			"Body":    map[string]any{"Text": map[string]any{"Data": msg.Text, "Charset": "UTF-8"}},
		}},
	}
	gotJSON, _ := json.Marshal(got)
	wantJSON, _ := json.Marshal(want)
	if path != "POST /v2/email/outbound-emails" || !bytes.Equal(gotJSON, wantJSON) {
		t.Fatalf("%s %s\nwant %s", path, gotJSON, wantJSON)
	}
}

func TestSESFailuresAreErrorsWithinTheBound(t *testing.T) {
	for _, tc := range []struct {
		name   string
		status int
		hang   time.Duration
	}{{"500", 500, 0}, {"hung", 0, time.Minute}} {
		t.Run(tc.name, func(t *testing.T) {
			var got map[string]any
			var path string
			client, err := NewSESClient(sesStandIn(t, tc.status, tc.hang, &got, &path))
			if err != nil {
				t.Fatal(err)
			}
			s := &SES{Client: client, From: "invitations@example.com", Link: link}
			start := time.Now()
			if err := s.SendInvitation(context.Background(), invitation()); err == nil {
				t.Fatal("a failed send reported success")
			}
			if d := time.Since(start); d > SendTimeout+500*time.Millisecond {
				t.Fatalf("took %v, bound %v", d, SendTimeout)
			}
		})
	}
}

func TestFromConfig(t *testing.T) {
	log := slog.New(slog.DiscardHandler)
	m, err := FromConfig(config.Config{OutboxDir: t.TempDir(), SenderEmail: "a@example.com", InvitationURL: link}, log, time.Now)
	if o, ok := m.(*Outbox); err != nil || !ok || o.From != "a@example.com" {
		t.Fatalf("outbox wanted first: %T %v", m, err)
	}
	t.Setenv("AWS_REGION", "eu-west-1")
	t.Setenv("AWS_ACCESS_KEY_ID", "AKIDEXAMPLE")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "secret")
	m, err = FromConfig(config.Config{SenderEmail: "a@example.com", InvitationURL: link}, log, time.Now)
	if s, ok := m.(*SES); err != nil || !ok || s.From != "a@example.com" || s.Link != link {
		t.Fatalf("SES wanted: %T %v", m, err)
	}
	m, err = FromConfig(config.Config{}, log, time.Now)
	if err != nil || m.SendInvitation(context.Background(), invitation()) == nil {
		t.Fatalf("with nothing configured nothing is sent: %T %v", m, err)
	}
}
