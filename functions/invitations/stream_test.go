package invitations_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/google/uuid"
	"github.com/reportingplatform/api/functions/mail"
	"github.com/reportingplatform/api/infra/testkit"
	"github.com/reportingplatform/api/infra/wiring"
	"github.com/reportingplatform/api/shared/domain"
	"github.com/reportingplatform/api/shared/dynamo"
	"github.com/reportingplatform/api/shared/metrics"
)

// newStreamWorld is newWorld on a table with its stream on, as template.yaml declares it.
func newStreamWorld(t *testing.T) *world {
	t.Helper()
	return newWorldOn(t, testkit.NewDBWithStream(t), func(s *dynamo.Store) domain.InvitationStore { return s })
}

// mailStream is MailFunction over the world's table's stream, read as make run reads it (infra/wiring's
// StreamReader: DescribeStream, GetShardIterator, GetRecords, each batch handed over as the
// events.DynamoDBEvent Lambda sends), sending into the world's mailbox.
type mailStream struct {
	reader  *wiring.StreamReader
	metrics bytes.Buffer

	mu   sync.Mutex
	seen map[string]int // invitation id → records of it handed to the handler
}

// newMailStream reads the stream from its oldest record. The requests whose e-mail MailFunction might
// also send are over when a test polls, so the handler does not wait for them (SetWindow(0)); the
// handler's own tests hold the window.
func (w *world) newMailStream(t *testing.T) *mailStream {
	t.Helper()
	streams, err := wiring.NewStreamsClient(os.Getenv("DYNAMODB_ENDPOINT"))
	if err != nil {
		t.Fatal(err)
	}
	s := &mailStream{seen: map[string]int{}}
	h := mail.New(w.db.Store, w.mail, testkit.Log(t), metrics.New(&s.metrics, "MailFunction"),
		func() time.Time { return w.now })
	h.SetWindow(0)
	handle := func(ctx context.Context, ev events.DynamoDBEvent) (events.DynamoDBEventResponse, error) {
		s.mu.Lock()
		for _, rec := range ev.Records {
			if id, ok := rec.Change.NewImage["id"]; ok && id.DataType() == events.DataTypeString {
				s.seen[id.String()]++
			}
		}
		s.mu.Unlock()
		return h.Handle(ctx, ev)
	}
	s.reader, err = wiring.NewStreamReader(t.Context(), w.db.Client, streams, w.db.Table, handle, testkit.Log(t))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// maxPolls bounds the wait for a write's stream record: DynamoDB Local has it when the write is
// answered, so the first poll normally finds it.
const maxPolls = 50

// until polls the stream until the handler has been handed a record of invitation id, then until the
// stream has nothing new (every change made so far delivered).
func (s *mailStream) until(t *testing.T, id string) {
	t.Helper()
	for i := 0; ; i++ {
		if _, err := s.reader.Poll(t.Context()); err != nil {
			t.Fatalf("poll: %v", err)
		}
		s.mu.Lock()
		seen := s.seen[id]
		s.mu.Unlock()
		if seen > 0 {
			break
		}
		if i == maxPolls {
			t.Fatalf("no stream record of invitation %s after %d polls", id, maxPolls)
		}
	}
	s.drain(t)
}

// drain polls until a poll hands nothing new over (a failed record's retry included).
func (s *mailStream) drain(t *testing.T) {
	t.Helper()
	for i := 0; ; i++ {
		n, err := s.reader.Poll(t.Context())
		if err != nil {
			t.Fatalf("poll: %v", err)
		}
		if n == 0 {
			return
		}
		if i == maxPolls {
			t.Fatalf("the stream still has new records after %d polls", maxPolls)
		}
	}
}

// counted is how many EMF lines of metric the handler wrote.
func (s *mailStream) counted(metric string) int {
	return strings.Count(s.metrics.String(), `"`+metric+`":1`)
}

// mailsTo is how many e-mails the mailbox took for address.
func (w *world) mailsTo(address string) int {
	n := 0
	for _, m := range w.mail.all() {
		if m.To == address {
			n++
		}
	}
	return n
}

// createdShape is the 201 of a create of email by the world's administrator, from its id and token.
func (w *world) createdShape(t *testing.T, resp testkit.Response, email string, sent bool) shape {
	t.Helper()
	obj := resp.Object(t)
	id, _ := obj["id"].(string)
	token, _ := obj["token"].(string)
	s := shape{
		ID: id, Token: token, ExpiryDate: domain.FormatTime(w.now.Add(ttl)),
		Organization: orgShape{w.acme.ID, w.acme.Name}, Inviter: inviterShape{w.adminMember, "Ada", "Admin", w.admin.Email},
		Email: email, EmailSent: sent,
	}
	s.withPortfolios()
	return s
}

// expectSentByStream reads the invitation through the API: email_sent true, recorded by the stream.
func (w *world) expectSentByStream(t *testing.T, want shape) {
	t.Helper()
	want.EmailSent = true
	w.get(t, w.token(t, w.admin), want.ID).Expect(t, 200, want.JSON(t))
}

// SPEC §9: SES refusing the create's e-mail leaves email_sent false and the 201 standing; the stream
// retries the e-mail while SES still refuses it, sends it once SES takes it, and records it.
func TestStreamSendsWhatSESRefused(t *testing.T) {
	w := newStreamWorld(t)
	stream := w.newMailStream(t)
	email := "refused-" + uuid.NewString()[:8] + "@example.com"
	w.mail.fail(true)
	resp := w.post(t, w.token(t, w.admin), fmt.Sprintf(`{"organization_id": %q, "email": %q}`, w.acme.ID, email))
	want := w.createdShape(t, resp, email, false)
	resp.Expect(t, 201, want.JSON(t))

	stream.until(t, want.ID) // SES still refuses: the record stays to be retried
	if n := w.mailsTo(email); n != 0 || stream.counted(metrics.EmailFailed) == 0 {
		t.Fatalf("%d e-mails, %d EmailFailed counted while SES refuses; want 0 and at least 1", n,
			stream.counted(metrics.EmailFailed))
	}
	w.mail.fail(false)
	stream.drain(t)
	if n := w.mailsTo(email); n != 1 || stream.counted(metrics.EmailSentLate) != 1 {
		t.Fatalf("%d e-mails, %d EmailSentLate counted; want 1 of each", n, stream.counted(metrics.EmailSentLate))
	}
	w.expectSentByStream(t, want)
}

// lostCreate is a store whose create lands but whose answer is lost beyond settling: the request
// answers 503 though the invitation is written, and sends nothing.
type lostCreate struct{ *dynamo.Store }

func (s lostCreate) CreateInvitation(ctx context.Context, inv domain.Invitation, claimedBy, emailUserID string,
	quota domain.InvitationQuota, done *domain.IdempotencyDone) error {
	if err := s.Store.CreateInvitation(ctx, inv, claimedBy, emailUserID, quota, done); err != nil {
		return err
	}
	return &domain.Error{Code: domain.EUNAVAILABLE, Err: errors.New("the create's answer was lost")}
}

// SPEC §9: a create answered 503 whose invitation exists gets its e-mail from the stream, once.
func TestStreamSendsTheEmailOfACreateAnswered503(t *testing.T) {
	w := newWorldOn(t, testkit.NewDBWithStream(t), func(s *dynamo.Store) domain.InvitationStore { return lostCreate{s} })
	stream := w.newMailStream(t)
	email := "lost-" + uuid.NewString()[:8] + "@example.com"
	resp := w.post(t, w.token(t, w.admin), fmt.Sprintf(`{"organization_id": %q, "email": %q}`, w.acme.ID, email))
	resp.Expect(t, 503, `{"detail": "Service temporarily unavailable, try again soon."}`)
	items := w.db.Items(t, "INVITATION#")
	if len(items) != 1 || w.mailsTo(email) != 0 {
		t.Fatalf("%d invitations written, %d e-mails sent by the request; want 1 and 0", len(items), w.mailsTo(email))
	}
	var id string
	for _, item := range items {
		id, _ = item["id"].(string)
	}
	stream.until(t, id)
	if n := w.mailsTo(email); n != 1 {
		t.Fatalf("%d e-mails after the stream, want 1", n)
	}
	inv, err := w.db.Store.Invitation(t.Context(), id)
	if err != nil || !inv.EmailSent {
		t.Fatalf("the invitation after the stream: email_sent %v (%v), want true", inv.EmailSent, err)
	}
}

// SPEC §9: the retry of a create with its Idempotency-Key sends nothing itself; the e-mail the first
// request could not send comes from the stream, once, and a later retry shows it sent.
func TestStreamSendsTheEmailAKeyedReplayDoesNot(t *testing.T) {
	w := newStreamWorld(t)
	stream := w.newMailStream(t)
	admin := w.token(t, w.admin)
	email := "replayed-" + uuid.NewString()[:8] + "@example.com"
	body := fmt.Sprintf(`{"organization_id": %q, "email": %q}`, w.acme.ID, email)
	w.mail.fail(true)
	first := w.postWithKey(t, admin, "replayed", body)
	w.mail.fail(false)
	want := w.createdShape(t, first, email, false)
	first.Expect(t, 201, want.JSON(t))
	w.postWithKey(t, admin, "replayed", body).Expect(t, 201, want.JSON(t))
	if n := w.mailsTo(email); n != 0 {
		t.Fatalf("the replay sent %d e-mails", n)
	}

	stream.until(t, want.ID)
	if n := w.mailsTo(email); n != 1 {
		t.Fatalf("%d e-mails after the stream, want 1", n)
	}
	want.EmailSent = true
	w.postWithKey(t, admin, "replayed", body).Expect(t, 201, want.JSON(t))
	stream.drain(t)
	if n := w.mailsTo(email); n != 1 {
		t.Fatalf("%d e-mails after a second replay, want 1", n)
	}
}

// A create that sent its e-mail gets no second one from the stream, and neither does any invitation
// when the whole stream is delivered again (a second reader from the oldest record: Lambda's retry of
// records already handled).
func TestStreamSendsNothingTwice(t *testing.T) {
	w := newStreamWorld(t)
	stream := w.newMailStream(t)
	email := "sent-" + uuid.NewString()[:8] + "@example.com"
	resp := w.post(t, w.token(t, w.admin), fmt.Sprintf(`{"organization_id": %q, "email": %q}`, w.acme.ID, email))
	want := w.createdShape(t, resp, email, true)
	resp.Expect(t, 201, want.JSON(t))
	stream.until(t, want.ID)
	if n := w.mailsTo(email); n != 1 || stream.counted(metrics.EmailSentLate) != 0 {
		t.Fatalf("%d e-mails, %d sent late; want the request's 1 and none late", n, stream.counted(metrics.EmailSentLate))
	}

	// A PATCH to another address needs its own e-mail (email_sent false); the stream sends it once.
	other := "moved-" + uuid.NewString()[:8] + "@example.com"
	if r := w.patch(t, w.token(t, w.admin), want.ID, fmt.Sprintf(`{"email": %q}`, other)); r.Status != 200 {
		t.Fatalf("patch: %d %s", r.Status, r.Body)
	}
	stream.drain(t)
	if n := w.mailsTo(other); n != 1 {
		t.Fatalf("%d e-mails to the new address, want 1", n)
	}

	again := w.newMailStream(t)
	again.drain(t)
	if n, m := w.mailsTo(email), w.mailsTo(other); n != 1 || m != 1 {
		t.Fatalf("after the stream was delivered again: %d and %d e-mails, want 1 and 1", n, m)
	}
}
