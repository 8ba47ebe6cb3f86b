package mail

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"mime"
	"mime/quotedprintable"
	"net/http"
	"net/http/httptest"
	"net/mail"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/sesv2"
	"github.com/aws/smithy-go/middleware"
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
	if m.To != "zoë@example.com" || m.ToName != "Zoë Ångström" ||
		m.Subject != "Grace Hopper invites you to Acme Analytics" || m.Text != want {
		t.Fatalf("to %q %q subject %q text\n%s", m.ToName, m.To, m.Subject, m.Text)
	}
	anon := invitation()
	anon.FirstName, anon.LastName, anon.InviterName, anon.Role = nil, nil, "", domain.RoleMember
	m = Compose(anon, link)
	if !strings.HasPrefix(m.Text,
		"Hello,\n\ngrace@example.com invites you to join Acme Analytics on the Reporting Platform as a member.") ||
		m.Subject != "grace@example.com invites you to Acme Analytics" || m.ToName != "" {
		t.Fatalf("to %q subject %q text\n%s", m.ToName, m.Subject, m.Text)
	}
	anon.Role = domain.RoleCollaborator
	if m = Compose(anon, link); !strings.Contains(m.Text, " as a collaborator.") {
		t.Fatalf("collaborator: %s", m.Text)
	}
	// The link takes the token query-escaped wherever {token} stands.
	if m = Compose(anon, "http://localhost:5173/accept/{token}#x"); !strings.Contains(m.Text,
		"\nhttp://localhost:5173/accept/6f1c1c1e-5b1a-4d4e-9d41-2f0c2b9c7a10#x\n") {
		t.Fatalf("link: %s", m.Text)
	}
}

// TestComposeKeepsClientTextOnItsLine: names, addresses and the organization's name holding line
// breaks and other control or format characters (SPEC §9) leave the e-mail's lines as they are, each
// such character a space, in the text Compose writes and in the message the outbox renders of it; the
// invitation handed in keeps what was sent.
func TestComposeKeepsClientTextOnItsLine(t *testing.T) {
	hostile := invitation()
	hostile.FirstName = domain.Ptr("Zoë\r\nYour account is locked: https://evil.example/login\r\n")
	hostile.LastName = domain.Ptr("Å\tB\vC\fD\x00E\x1bF\u0085G\u2028H\u2029I\u202eJ\u200bK\u00adL\ufeffM\u200dN")
	hostile.OrganizationName = "Acme\nPay the invoice at https://evil.example\n\n"
	hostile.InviterName = "Grace\rHopper\u2028(IT)"
	first := *hostile.FirstName
	m := Compose(hostile, link)

	clean := strings.Split(Compose(invitation(), link).Text, "\n")
	lines := strings.Split(m.Text, "\n")
	if len(lines) != len(clean) {
		t.Fatalf("%d lines, want %d:\n%s", len(lines), len(clean), m.Text)
	}
	wantName := "Zoë  Your account is locked: https://evil.example/login   Å B C D E F G H I J K L M\u200dN"
	want := map[int]string{
		0: "Hello " + wantName + ",",
		2: "Grace Hopper (IT) (grace@example.com) invites you to join Acme Pay the invoice at " +
			"https://evil.example   on the Reporting Platform as an administrator.",
	}
	for i, line := range lines {
		if w, ok := want[i]; ok && line != w {
			t.Errorf("line %d %q\nwant      %q", i, line, w)
		}
		if _, ok := want[i]; !ok && line != clean[i] {
			t.Errorf("line %d %q, want %q as without the names", i, line, clean[i])
		}
	}
	for _, text := range []string{m.Text, m.Subject, m.ToName} {
		if i := strings.IndexFunc(text, func(r rune) bool { return r != '\n' && oneLine(string(r)) != string(r) }); i >= 0 {
			t.Errorf("%q keeps a line break or control character at %d", text, i)
		}
	}
	if m.Subject != "Grace Hopper (IT) invites you to Acme Pay the invoice at https://evil.example  " ||
		m.ToName != wantName {
		t.Errorf("subject %q, to %q", m.Subject, m.ToName)
	}
	if *hostile.FirstName != first {
		t.Errorf("the invitation's first name became %q", *hostile.FirstName)
	}

	// As a mail program reads the rendered message: the same lines, and the headers one line each.
	dir := t.TempDir()
	o := &Outbox{Dir: dir, From: "invitations@example.com", Link: link, Log: slog.New(slog.DiscardHandler), Now: time.Now}
	if err := o.SendInvitation(context.Background(), hostile); err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Fatalf("outbox holds %v", entries)
	}
	msg, body := readEML(t, filepath.Join(dir, entries[0].Name()))
	if got := strings.Split(body, "\r\n"); !slices.Equal(got, lines) {
		t.Fatalf("rendered body lines\n%q\nwant\n%q", got, lines)
	}
	subject, err := new(mime.WordDecoder).DecodeHeader(msg.Header.Get("Subject"))
	to, errTo := mail.ParseAddress(msg.Header.Get("To"))
	// (A header's trailing white space is not part of its value.)
	if err != nil || errTo != nil || subject != strings.TrimSpace(m.Subject) || to.Name != wantName ||
		len(msg.Header) != 8 {
		t.Fatalf("subject %q (%v), to %+v (%v), headers %v", subject, err, to, errTo, msg.Header)
	}
}

// readEML parses one outbox file back as a mail program would: its headers (RFC 2047 words decoded)
// and its body (quoted-printable decoded).
func readEML(t *testing.T, path string) (*mail.Message, string) {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	msg, err := mail.ReadMessage(bytes.NewReader(raw))
	if err != nil {
		t.Fatalf("%s: %v\n%s", path, err, raw)
	}
	body, err := io.ReadAll(quotedprintable.NewReader(msg.Body))
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return msg, string(body)
}

func TestOutboxWritesAParseableMessage(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "outbox")
	var logs bytes.Buffer
	o := &Outbox{Dir: dir, From: "invitations@example.com", Link: link,
		Log: slog.New(slog.NewJSONHandler(&logs, nil)), Now: func() time.Time { return when }}
	inv := invitation()
	inv.OrganizationName = "Société Générale"
	if err := o.SendInvitation(context.Background(), inv); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(dir)
	if err != nil || len(entries) != 1 || !strings.HasSuffix(entries[0].Name(), ".eml") {
		t.Fatalf("outbox holds %v (%v); want one .eml and nothing half-written", entries, err)
	}
	path := filepath.Join(dir, entries[0].Name())
	msg, body := readEML(t, path)
	// Non-ASCII names travel as RFC 2047 encoded words and come back as they were.
	if raw := msg.Header.Get("To"); !strings.Contains(raw, "=?utf-8?q?") {
		t.Errorf("To %q: the name is not encoded", raw)
	}
	to, err := mail.ParseAddress(msg.Header.Get("To"))
	if err != nil || to.Name != "Zoë Ångström" || to.Address != "zoë@example.com" {
		t.Fatalf("To %q: %+v %v", msg.Header.Get("To"), to, err)
	}
	subject, err := new(mime.WordDecoder).DecodeHeader(msg.Header.Get("Subject"))
	if err != nil || subject != "Grace Hopper invites you to Société Générale" {
		t.Fatalf("Subject %q: %v", subject, err)
	}
	if date, err := msg.Header.Date(); err != nil || !date.Equal(when) {
		t.Fatalf("Date %v: %v", date, err)
	}
	if msg.Header.Get("From") != "<invitations@example.com>" || msg.Header.Get("Message-Id") == "" ||
		msg.Header.Get("Mime-Version") != "1.0" || msg.Header.Get("Content-Type") != "text/plain; charset=utf-8" ||
		msg.Header.Get("Content-Transfer-Encoding") != "quoted-printable" {
		t.Fatalf("headers %v", msg.Header)
	}
	if want := strings.ReplaceAll(Compose(inv, link).Text, "\n", "\r\n"); body != want {
		t.Fatalf("body\n%q\nwant\n%q", body, want)
	}
	// One log line names the file and the recipient; never the token (it is the invitation's secret).
	line := logs.String()
	if strings.Count(line, "\n") != 1 || !strings.Contains(line, path) ||
		!strings.Contains(line, "zoë@example.com") || strings.Contains(line, inv.Token) {
		t.Fatalf("log %s", line)
	}
}

// A line break in a name or an organization (both chosen by users) is encoded, never a header of its own.
func TestOutboxHeadersCannotBeInjected(t *testing.T) {
	dir := t.TempDir()
	o := &Outbox{Dir: dir, From: "invitations@example.com", Link: link, Log: slog.New(slog.DiscardHandler), Now: time.Now}
	inv := invitation()
	inv.OrganizationName = "Acme\r\nBcc: eve@example.com"
	inv.FirstName = domain.Ptr("Zoë\r\nCc: eve@example.com")
	if err := o.SendInvitation(context.Background(), inv); err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Fatalf("outbox holds %v", entries)
	}
	msg, _ := readEML(t, filepath.Join(dir, entries[0].Name()))
	if msg.Header.Get("Bcc") != "" || msg.Header.Get("Cc") != "" || len(msg.Header) != 8 {
		t.Fatalf("headers %v", msg.Header)
	}
	subject, err := new(mime.WordDecoder).DecodeHeader(msg.Header.Get("Subject"))
	if err != nil || subject != "Grace Hopper invites you to Acme  Bcc: eve@example.com" {
		t.Fatalf("Subject %q: %v", subject, err)
	}
}

// Writers in parallel and a reader polling the directory: every .eml the reader finds is whole, and in
// the end the directory holds one file per message and no temporary file.
func TestOutboxWritesAtomically(t *testing.T) {
	const writers = 40
	dir := t.TempDir()
	o := &Outbox{Dir: dir, From: "invitations@example.com", Link: link, Log: slog.New(slog.DiscardHandler), Now: time.Now}
	want := strings.ReplaceAll(Compose(invitation(), link).Text, "\n", "\r\n")
	done := make(chan struct{})
	t.Cleanup(func() { <-done }) // a failure below must not leave writers running into the next test
	go func() {
		defer close(done)
		var wg sync.WaitGroup
		for range writers {
			wg.Go(func() {
				if err := o.SendInvitation(context.Background(), invitation()); err != nil {
					t.Error(err)
				}
			})
		}
		wg.Wait()
	}()
	checked := map[string]bool{}
	for finished := false; !finished; {
		select {
		case <-done:
			finished = true // one last look below
		default:
		}
		paths, _ := filepath.Glob(filepath.Join(dir, "*.eml"))
		for _, p := range paths {
			if checked[p] {
				continue
			}
			checked[p] = true
			if _, body := readEML(t, p); body != want {
				t.Fatalf("%s: a partial message:\n%q", p, body)
			}
		}
	}
	entries, _ := os.ReadDir(dir)
	if len(checked) != writers || len(entries) != writers {
		t.Fatalf("%d messages read, %d files in the outbox, want %d of each", len(checked), len(entries), writers)
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

// sesEndpoint stands in for the SES v2 endpoint: it answers SendEmail as AWS does, or with status,
// or never for hang (until its client leaves), and records what the SDK sent.
type sesEndpoint struct {
	URL      string
	mu       sync.Mutex
	requests []string       // method and path of each attempt
	body     map[string]any // the last request's JSON
	answered int            // attempts that got an answer, or whose hang ended before their client left
}

func sesStandIn(t *testing.T, status int, hang bool) *sesEndpoint {
	t.Helper()
	e := &sesEndpoint{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body map[string]any
		if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
			t.Errorf("request body: %v", err)
		}
		e.mu.Lock()
		e.requests = append(e.requests, r.Method+" "+r.URL.Path)
		e.body = body
		e.mu.Unlock()
		if hang {
			<-r.Context().Done() // only the client ends a hung attempt (or the server's Close)
			return
		}
		e.mu.Lock()
		e.answered++
		e.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		if status == 200 {
			_, _ = io.WriteString(w, `{"MessageId": "0100018c-example"}`)
		} else {
			_, _ = io.WriteString(w, `{"message": "internal failure"}`)
		}
	}))
	t.Cleanup(srv.Close)
	e.URL = srv.URL
	return e
}

func (e *sesEndpoint) seen() ([]string, map[string]any) {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]string(nil), e.requests...), e.body
}

func TestSESSendsTheMessage(t *testing.T) {
	e := sesStandIn(t, 200, false)
	client, err := NewSESClient(e.URL)
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
	requests, got := e.seen()
	gotJSON, _ := json.Marshal(got)
	wantJSON, _ := json.Marshal(want)
	if len(requests) != 1 || requests[0] != "POST /v2/email/outbound-emails" || !bytes.Equal(gotJSON, wantJSON) {
		t.Fatalf("%v %s\nwant POST /v2/email/outbound-emails %s", requests, gotJSON, wantJSON)
	}
}

// An SES that fails or does not answer costs the request at most SendTimeout and gives an error (so
// email_sent stays false): a 5xx is tried sesMaxAttempts times, a hang is cut off. Proved without a
// stopwatch, which a busy machine breaks: the call carries a deadline at most SendTimeout away, and
// a hung SES is left by the client (the stand-in never answers it).
func TestSESFailuresAreErrorsWithinTheBound(t *testing.T) {
	for _, tc := range []struct {
		name   string
		status int
		hang   bool
	}{{"500", 500, false}, {"hung", 0, true}} {
		t.Run(tc.name, func(t *testing.T) {
			e := sesStandIn(t, tc.status, tc.hang)
			client, err := NewSESClient(e.URL)
			if err != nil {
				t.Fatal(err)
			}
			var deadlines deadlineRecorder
			client = sesv2.New(client.Options(), deadlines.register)
			s := &SES{Client: client, From: "invitations@example.com", Link: link}
			err = s.SendInvitation(context.Background(), invitation())
			if err == nil {
				t.Fatal("a failed send reported success")
			}
			if d, ok := deadlines.first(); !ok || d > SendTimeout {
				t.Fatalf("the call's deadline was %v away (set: %t), want at most SendTimeout (%v)", d, ok, SendTimeout)
			}
			if strings.Contains(err.Error(), invitation().Token) {
				t.Fatalf("the error, which the handler logs, carries the token: %v", err)
			}
			requests, _ := e.seen()
			// Every attempt fits in SendTimeout unless the machine was too busy to make the second
			// before the deadline; one that ended by the deadline may have made fewer.
			want := sesMaxAttempts
			if errors.Is(err, context.DeadlineExceeded) && len(requests) >= 1 {
				want = len(requests)
			}
			if len(requests) != want || len(requests) > sesMaxAttempts {
				t.Fatalf("%d attempts %v (error %v), want %d", len(requests), requests, err, sesMaxAttempts)
			}
			e.mu.Lock()
			answered := e.answered
			e.mu.Unlock()
			if tc.hang && answered != 0 {
				t.Fatalf("%d hung attempts ended before the client left them", answered)
			}
		})
	}
}

// deadlineRecorder records how far off the deadline of each SES call's context was when it began.
type deadlineRecorder struct {
	mu        sync.Mutex
	deadlines []time.Duration
	unset     bool
}

func (r *deadlineRecorder) register(o *sesv2.Options) {
	o.APIOptions = append(o.APIOptions, func(stack *middleware.Stack) error {
		return stack.Initialize.Add(middleware.InitializeMiddlewareFunc("test.deadline",
			func(ctx context.Context, in middleware.InitializeInput,
				next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
				deadline, ok := ctx.Deadline()
				r.mu.Lock()
				if ok {
					r.deadlines = append(r.deadlines, time.Until(deadline))
				} else {
					r.unset = true
				}
				r.mu.Unlock()
				return next.HandleInitialize(ctx, in)
			}), middleware.Before)
	})
}

// first is the first call's time to its deadline, false when it had none.
func (r *deadlineRecorder) first() (time.Duration, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.unset || len(r.deadlines) == 0 {
		return 0, false
	}
	return r.deadlines[0], true
}

// TestMailerFromTheEnvironment: the process's settings choose the Mailer (config.FromEnv, then
// FromConfig, as the invitations function's main does): the outbox when OUTBOX_DIR is set, whatever
// else is; SES from SENDER_EMAIL; with neither, a Mailer whose every send fails, so email_sent stays false.
func TestMailerFromTheEnvironment(t *testing.T) {
	log := slog.New(slog.DiscardHandler)
	outbox := t.TempDir()
	t.Setenv("AWS_REGION", "eu-west-1")
	t.Setenv("AWS_ACCESS_KEY_ID", "AKIDEXAMPLE")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "secret")
	for _, tc := range []struct {
		name, outbox, sender string
		check                func(domain.Mailer) bool
	}{
		{"outbox wins", outbox, "invitations@example.com", func(m domain.Mailer) bool {
			o, ok := m.(*Outbox)
			return ok && o.Dir == outbox && o.From == "invitations@example.com" && o.Link == link
		}},
		{"outbox without a sender", outbox, "", func(m domain.Mailer) bool {
			o, ok := m.(*Outbox)
			return ok && o.From == "invitations@localhost"
		}},
		{"SES", "", "invitations@example.com", func(m domain.Mailer) bool {
			s, ok := m.(*SES)
			return ok && s.Client != nil && s.From == "invitations@example.com" && s.Link == link
		}},
		{"nothing", "", "", func(m domain.Mailer) bool {
			err := m.SendInvitation(context.Background(), invitation())
			return err != nil && strings.Contains(err.Error(), "no sender configured")
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("OUTBOX_DIR", tc.outbox)
			t.Setenv("SENDER_EMAIL", tc.sender)
			t.Setenv("INVITATION_URL", link)
			cfg, err := config.FromEnv()
			if err != nil {
				t.Fatal(err)
			}
			m, err := FromConfig(cfg, log, time.Now)
			if err != nil || !tc.check(m) {
				t.Fatalf("%T %+v, %v", m, m, err)
			}
		})
	}
	// In AWS the SES client needs the function role's credentials from the environment; without them
	// the function stops at start rather than fail every send.
	t.Setenv("AWS_ACCESS_KEY_ID", "")
	if _, err := FromConfig(config.Config{SenderEmail: "invitations@example.com", InvitationURL: link}, log,
		time.Now); err == nil {
		t.Fatal("SES without credentials")
	}
}
