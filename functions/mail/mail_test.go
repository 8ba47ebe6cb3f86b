package mail_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/reportingplatform/api/functions/mail"
	"github.com/reportingplatform/api/infra/gateway"
	"github.com/reportingplatform/api/infra/testkit"
	"github.com/reportingplatform/api/shared/domain"
	"github.com/reportingplatform/api/shared/metrics"
)

// newcomer is the demo's pending invitation whose e-mail was never sent, which the sample event of
// events/ names.
const newcomer = "b011416f-c25d-5625-9215-5885fc06430c"

// mailbox is a domain.Mailer that keeps what it is handed, or refuses while failing: SES's side of the
// boundary (shared/mail's SES and outbox have their own tests).
type mailbox struct {
	mu      sync.Mutex
	sent    []domain.InvitationMail
	failing bool
}

func (m *mailbox) SendInvitation(_ context.Context, im domain.InvitationMail) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.failing {
		return errors.New("mailbox: refusing as asked")
	}
	m.sent = append(m.sent, im)
	return nil
}

func (m *mailbox) all() []domain.InvitationMail {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]domain.InvitationMail(nil), m.sent...)
}

// fixture is the demo data in a fresh table and the handler over it, at a clock the test sets.
type fixture struct {
	db      *testkit.DB
	box     *mailbox
	metrics bytes.Buffer
	h       *mail.Handler
	now     time.Time
	slept   []time.Duration
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	f := &fixture{db: testkit.NewDB(t), box: &mailbox{}, now: time.Now().UTC().Truncate(time.Microsecond)}
	f.db.LoadDemo(t, f.now, 7*24*time.Hour)
	f.h = mail.New(f.db.Store, f.box, testkit.Log(t), metrics.New(&f.metrics, "MailFunction"),
		func() time.Time { return f.now })
	f.h.SetSleep(func(_ context.Context, d time.Duration) error {
		f.slept = append(f.slept, d)
		f.now = f.now.Add(d) // the test's clock moves as far as the handler waited
		return nil
	})
	return f
}

// sampleEvent is events/MailFunction-stream.json, what `sam local invoke MailFunction` sends.
func sampleEvent(t *testing.T) events.DynamoDBEvent {
	t.Helper()
	tpl, err := gateway.FindTemplate()
	if err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(filepath.Join(filepath.Dir(tpl), "events", "MailFunction-stream.json"))
	if err != nil {
		t.Fatal(err)
	}
	var ev events.DynamoDBEvent
	if err := json.Unmarshal(raw, &ev); err != nil {
		t.Fatal(err)
	}
	return ev
}

// saveRecord is the sample record made the stream record of inv's current save, at updated.
func saveRecord(t *testing.T, inv domain.Invitation, updated time.Time, seq string) events.DynamoDBEventRecord {
	t.Helper()
	rec := sampleEvent(t).Records[0]
	img := rec.Change.NewImage
	img["PK"], img["id"] = events.NewStringAttribute("INVITATION#"+inv.ID), events.NewStringAttribute(inv.ID)
	img["email"] = events.NewStringAttribute(inv.Email)
	img["version"] = events.NewNumberAttribute(strconv.FormatInt(inv.Version, 10))
	img["updated_at"] = events.NewStringAttribute(domain.FormatTime(updated))
	rec.Change.SequenceNumber = seq
	return rec
}

func (f *fixture) invitation(t *testing.T, id string) domain.Invitation {
	t.Helper()
	inv, err := f.db.Store.Invitation(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	return inv
}

func (f *fixture) handle(t *testing.T, ev events.DynamoDBEvent) events.DynamoDBEventResponse {
	t.Helper()
	resp, err := f.h.Handle(t.Context(), ev)
	if err != nil {
		t.Fatalf("handle: %v", err)
	}
	return resp
}

func (f *fixture) counted(metric string) int {
	return strings.Count(f.metrics.String(), `"`+metric+`":1`)
}

// The sample event sends the newcomer's e-mail, composed as the create composes it, records it, and
// counts it as sent late; the same record delivered again (Lambda's retry) sends nothing.
func TestSampleEventSendsOnceAndItsSecondDeliveryNothing(t *testing.T) {
	f := newFixture(t)
	ev := sampleEvent(t)
	if resp := f.handle(t, ev); len(resp.BatchItemFailures) != 0 {
		t.Fatalf("failures %+v", resp.BatchItemFailures)
	}
	inv := f.invitation(t, newcomer)
	sent := f.box.all()
	want := domain.InvitationMail{To: "newcomer@example.com", OrganizationName: "Acme Analytics",
		InviterName: "Grace Hopper", InviterEmail: "grace@example.com", Role: domain.RoleMember, Token: inv.Token,
		ExpiresAt: inv.ExpiryDate}
	if len(sent) != 1 || sent[0].To != want.To || sent[0].OrganizationName != want.OrganizationName ||
		sent[0].InviterName != want.InviterName || sent[0].InviterEmail != want.InviterEmail ||
		sent[0].Role != want.Role || sent[0].Token != want.Token || !sent[0].ExpiresAt.Equal(want.ExpiresAt) ||
		sent[0].FirstName != nil || sent[0].LastName != nil {
		t.Fatalf("sent %+v, want one %+v", sent, want)
	}
	if !inv.EmailSent || f.counted(metrics.EmailSentLate) != 1 || len(f.slept) != 0 {
		t.Fatalf("email_sent %v, %d counted, slept %v; want recorded, 1, no wait for an old save", inv.EmailSent,
			f.counted(metrics.EmailSentLate), f.slept)
	}
	if resp := f.handle(t, ev); len(resp.BatchItemFailures) != 0 || len(f.box.all()) != 1 {
		t.Fatalf("second delivery: failures %+v, %d e-mails; want none and still 1", resp.BatchItemFailures,
			len(f.box.all()))
	}
}

// A save's record waits for the window in which the saving request may still send its e-mail: when
// the request's send is recorded meanwhile, the stream sends nothing; when it is not, the stream sends.
func TestWaitsForTheSavingRequest(t *testing.T) {
	for _, requestSent := range []bool{true, false} {
		t.Run("request sent "+strconv.FormatBool(requestSent), func(t *testing.T) {
			f := newFixture(t)
			inv := f.invitation(t, newcomer)
			rec := saveRecord(t, inv, f.now, "1")
			f.h.SetSleep(func(_ context.Context, d time.Duration) error {
				f.slept = append(f.slept, d)
				f.now = f.now.Add(d)
				if requestSent {
					if err := f.db.Store.MarkInvitationSent(t.Context(), inv); err != nil {
						t.Fatal(err)
					}
				}
				return nil
			})
			if resp := f.handle(t, events.DynamoDBEvent{Records: []events.DynamoDBEventRecord{rec}}); len(resp.BatchItemFailures) != 0 {
				t.Fatalf("failures %+v", resp.BatchItemFailures)
			}
			want := 1
			if requestSent {
				want = 0
			}
			if len(f.slept) != 1 || f.slept[0] != mail.Window || len(f.box.all()) != want {
				t.Fatalf("slept %v, %d e-mails; want one wait of %v and %d", f.slept, len(f.box.all()), mail.Window, want)
			}
			if !f.invitation(t, newcomer).EmailSent {
				t.Fatal("email_sent false after the window")
			}
		})
	}
}

// SES refusing: the record is reported as the batch's failure (Lambda retries from it), counted as
// EmailFailed, and the invitation keeps email_sent false; the retry, SES taking it, sends it once.
func TestSESFailureIsRetried(t *testing.T) {
	f := newFixture(t)
	ev := sampleEvent(t)
	f.box.failing = true
	resp := f.handle(t, ev)
	seq := ev.Records[0].Change.SequenceNumber
	if len(resp.BatchItemFailures) != 1 || resp.BatchItemFailures[0].ItemIdentifier != seq ||
		f.counted(metrics.EmailFailed) != 1 || f.invitation(t, newcomer).EmailSent {
		t.Fatalf("failures %+v, %d EmailFailed; want the record %s, 1, email_sent false", resp.BatchItemFailures,
			f.counted(metrics.EmailFailed), seq)
	}
	f.box.failing = false
	if resp := f.handle(t, ev); len(resp.BatchItemFailures) != 0 || len(f.box.all()) != 1 ||
		!f.invitation(t, newcomer).EmailSent {
		t.Fatalf("retry: failures %+v, %d e-mails", resp.BatchItemFailures, len(f.box.all()))
	}
}

// Records that need no e-mail are passed over without a read: another kind of item, an invitation
// already sent or no longer pending, a removal. A record superseded by a later save (another version)
// or of an address the invitation no longer has is read and sends nothing.
func TestRecordsThatNeedNoEmail(t *testing.T) {
	f := newFixture(t)
	inv := f.invitation(t, newcomer)
	old := f.now.Add(-time.Hour)
	edit := func(change func(img map[string]events.DynamoDBAttributeValue, rec *events.DynamoDBEventRecord)) events.DynamoDBEventRecord {
		rec := saveRecord(t, inv, old, "1")
		change(rec.Change.NewImage, &rec)
		return rec
	}
	records := []events.DynamoDBEventRecord{
		edit(func(img map[string]events.DynamoDBAttributeValue, _ *events.DynamoDBEventRecord) {
			img["SK"] = events.NewStringAttribute("COMMENT")
		}),
		edit(func(img map[string]events.DynamoDBAttributeValue, _ *events.DynamoDBEventRecord) {
			img["email_sent"] = events.NewBooleanAttribute(true)
		}),
		edit(func(img map[string]events.DynamoDBAttributeValue, _ *events.DynamoDBEventRecord) {
			img["status"] = events.NewNumberAttribute("1")
		}),
		edit(func(_ map[string]events.DynamoDBAttributeValue, rec *events.DynamoDBEventRecord) {
			rec.EventName = "REMOVE"
		}),
		edit(func(img map[string]events.DynamoDBAttributeValue, _ *events.DynamoDBEventRecord) {
			img["version"] = events.NewNumberAttribute(strconv.FormatInt(inv.Version-1, 10))
		}),
		edit(func(img map[string]events.DynamoDBAttributeValue, _ *events.DynamoDBEventRecord) {
			img["email"] = events.NewStringAttribute("before@example.com")
		}),
	}
	f.db.Calls.Reset()
	if resp := f.handle(t, events.DynamoDBEvent{Records: records}); len(resp.BatchItemFailures) != 0 {
		t.Fatalf("failures %+v", resp.BatchItemFailures)
	}
	if ops := f.db.Calls.Ops(); len(ops) != 2 || ops[0] != "GetItem" || ops[1] != "GetItem" {
		t.Fatalf("calls %v; want the two GetItems of the records that name a save", ops)
	}
	if n := len(f.box.all()); n != 0 || f.invitation(t, newcomer).EmailSent {
		t.Fatalf("%d e-mails sent; want none and email_sent still false", n)
	}
}
