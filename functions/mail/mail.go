// Package mail is MailFunction of template.yaml: the invitation e-mail's delivery outside the request
// (SPEC §9, "Invitation e-mail delivery"). The table's DynamoDB Stream hands it every save of a pending
// invitation whose e-mail is not recorded as sent; it sends what the saving request did not (a create
// answered 503 though written, SES failing at the time, an email changed by a PATCH, an invitation the
// fixture loader wrote) and records email_sent. Lambda retries a record it could not send.
package mail

import (
	"context"
	"errors"
	"log/slog"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-lambda-go/lambdacontext"
	"github.com/reportingplatform/api/shared/domain"
	"github.com/reportingplatform/api/shared/metrics"
)

// Window is how long after a save the request that made it may still hand its e-mail over and record
// it: the API functions' Lambda timeout (the request cannot outlive its invocation, which began before
// the save) and a margin for its record write still queued inside DynamoDB. A save's e-mail is sent
// from the stream only once the window has passed and the invitation, read then, still says it was not
// sent, so the request's own send and the stream's do not both happen for one save. TestMailStream
// holds it above the template's Timeout.
const Window = 15 * time.Second

// recordBudget is the time one record may take once due: a read, SES's SendTimeout and a write, each
// bounded on its own. A record that would not fit before the invocation's deadline is left to Lambda's
// retry rather than cut off half-way.
const recordBudget = 5 * time.Second

// Handler is the function's handler: one invocation per batch of stream records.
type Handler struct {
	store   domain.MailStore
	mailer  domain.Mailer
	log     *slog.Logger
	metrics *metrics.Recorder
	clock   domain.Clock
	window  time.Duration
	sleep   func(ctx context.Context, d time.Duration) error
}

// New returns the handler, sending through mailer (shared/mail: SES in AWS, the outbox under make run)
// and counting what it sends and fails to send on rec.
func New(store domain.MailStore, mailer domain.Mailer, log *slog.Logger, rec *metrics.Recorder,
	now func() time.Time) *Handler {
	return &Handler{store: store, mailer: mailer, log: log, metrics: rec, clock: domain.Clock(now), window: Window,
		sleep: sleep}
}

// SetWindow replaces Window for this handler (tests whose requests are over when the stream is read);
// a deployment keeps it.
func (h *Handler) SetWindow(d time.Duration) { h.window = d }

// SetSleep replaces the wait for a save's window to pass (a test's clock); a deployment keeps the timer.
func (h *Handler) SetSleep(f func(ctx context.Context, d time.Duration) error) { h.sleep = f }

// Handle delivers the e-mail of each record's save in stream order. The first record it cannot deliver
// (the store or SES failing) is reported as the batch's failure: Lambda retries the shard from it, so
// the later records wait their turn behind it (ReportBatchItemFailures), and a record already delivered
// is found sent when it comes again. A record that is not an invitation's save needing an e-mail is
// passed over: the event source mapping's filter already leaves those out in AWS, and make run hands
// every record over.
func (h *Handler) Handle(ctx context.Context, ev events.DynamoDBEvent) (events.DynamoDBEventResponse, error) {
	log := h.log.With("request_id", requestID(ctx))
	var resp events.DynamoDBEventResponse
	sent := 0
	for _, rec := range ev.Records {
		s, ok := saveOf(rec)
		if !ok {
			continue
		}
		ok, err := h.deliver(ctx, log, s)
		if err != nil {
			log.Warn("invitation e-mail not delivered; Lambda retries it", "invitation_id", s.id,
				"sequence_number", rec.Change.SequenceNumber, "error", err.Error())
			resp.BatchItemFailures = []events.DynamoDBBatchItemFailure{{ItemIdentifier: rec.Change.SequenceNumber}}
			break
		}
		if ok {
			sent++
		}
	}
	log.Info("invitation e-mails", "records", len(ev.Records), "sent", sent, "failed", len(resp.BatchItemFailures))
	return resp, nil
}

// save is what a stream record says of an invitation's save.
type save struct {
	id, email string
	version   int64
	updatedAt time.Time
}

// saveOf reads an invitation's save from rec when its new image is a pending invitation whose e-mail is
// not recorded as sent: what the event source mapping's FilterCriteria lets through.
func saveOf(rec events.DynamoDBEventRecord) (save, bool) {
	img := rec.Change.NewImage
	if rec.EventName != string(events.DynamoDBOperationTypeInsert) &&
		rec.EventName != string(events.DynamoDBOperationTypeModify) {
		return save{}, false
	}
	str := func(name string) string {
		if v, ok := img[name]; ok && v.DataType() == events.DataTypeString {
			return v.String()
		}
		return ""
	}
	num := func(name string) (int64, bool) {
		if v, ok := img[name]; ok && v.DataType() == events.DataTypeNumber {
			n, err := strconv.ParseInt(v.Number(), 10, 64)
			return n, err == nil
		}
		return 0, false
	}
	sentAttr, ok := img["email_sent"]
	if !ok || sentAttr.DataType() != events.DataTypeBoolean || sentAttr.Boolean() {
		return save{}, false
	}
	status, okStatus := num("status")
	version, okVersion := num("version")
	s := save{id: str("id"), email: str("email"), version: version}
	if str("SK") != "INVITATION" || !strings.HasPrefix(str("PK"), "INVITATION#") || s.id == "" || s.email == "" ||
		!okStatus || status != int64(domain.StatusPending) || !okVersion {
		return save{}, false
	}
	// A save without a readable time is treated as old: nothing of the request that made it is waited for.
	s.updatedAt, _ = domain.ParseTime(str("updated_at"))
	return s, true
}

// deliver sends the e-mail of s once its window has passed, if the invitation read then still needs
// it, and records it: sent reports whether an e-mail went out. An invitation deleted or changed since
// needs nothing from this record (a later save that needs an e-mail has its own record).
func (h *Handler) deliver(ctx context.Context, log *slog.Logger, s save) (sent bool, err error) {
	due := s.updatedAt.Add(h.window)
	if wait := due.Sub(h.clock.Now()); wait > 0 {
		if err := h.sleep(ctx, wait); err != nil {
			return false, err
		}
	}
	if deadline, ok := ctx.Deadline(); ok && time.Until(deadline) < recordBudget {
		return false, errors.New("too close to the invocation's deadline to send")
	}
	inv, err := h.store.Invitation(ctx, s.id)
	if domain.ErrorCode(err) == domain.ENOTFOUND {
		return false, nil
	} else if err != nil {
		return false, err
	}
	if !inv.NeedsMail(s.email, s.version, h.clock.Now()) {
		return false, nil
	}
	if err := h.mailer.SendInvitation(ctx, inv.Mail()); err != nil {
		h.metrics.Count(metrics.EmailFailed, "")
		return false, err
	}
	h.metrics.Count(metrics.EmailSentLate, "")
	log.Info("invitation e-mail sent late", "invitation_id", inv.ID)
	// Recorded on the condition that the address is still the one it went to, as the request records
	// its own: a save of other fields meanwhile does not undo it, and a new address gets its own e-mail.
	if err := h.store.MarkInvitationSent(ctx, inv); domain.ErrorCode(err) == domain.ECONFLICT {
		return true, nil
	} else if err != nil {
		// Sent but not recorded: the retry finds email_sent false and sends again (at least once).
		return true, err
	}
	return true, nil
}

// sleep waits d, or until ctx ends.
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// requestID is the Lambda invocation's id, as the other functions log theirs; empty where there is no
// invocation (make run's stream reader).
func requestID(ctx context.Context) string {
	if lc, ok := lambdacontext.FromContext(ctx); ok {
		return lc.AwsRequestID
	}
	return ""
}
