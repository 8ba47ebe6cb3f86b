package main

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/reportingplatform/api/infra/testkit"
	"github.com/reportingplatform/api/shared/config"
	"github.com/reportingplatform/api/shared/service"
)

// make run reads DynamoDB Local's stream as Lambda reads the table's and hands it to MailFunction: the
// demo's invitation whose e-mail was never sent gets it in the outbox, once, and is recorded as sent.
func TestMakeRunSendsWhatTheStreamCarries(t *testing.T) {
	db := testkit.NewDBWithStream(t)
	// Saved a minute ago: the saving request's window (mail.Window) is over, nothing to wait for.
	db.LoadDemo(t, time.Now().Add(-time.Minute), 7*24*time.Hour)
	outbox := t.TempDir()
	runs := make(chan slog.Record, 64)
	env := service.Env{
		Config: config.Config{TableName: db.Table, DynamoDBEndpoint: os.Getenv("DYNAMODB_ENDPOINT"), OutboxDir: outbox,
			InvitationURL: config.DefaultInvitationURL},
		Log: slog.New(notify{testkit.Log(t).Handler(), runs}), Client: db.Client, Store: db.Store, Now: time.Now,
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	names, err := streams(ctx, env)
	if err != nil || !slices.Equal(names, []string{"MailFunction"}) {
		t.Fatalf("streams %v, %v; want MailFunction", names, err)
	}
	// Each batch the handler is given logs one "invitation e-mails" line; wait for the one that sent.
	bound := time.After(time.Minute) // a bound on a broken reader, not a measure of speed
	for sent := false; !sent; {
		select {
		case r := <-runs:
			r.Attrs(func(a slog.Attr) bool {
				sent = sent || (r.Message == "invitation e-mails" && a.Key == "sent" && a.Value.Int64() == 1)
				return true
			})
		case <-bound:
			t.Fatal("the stream's e-mail was not sent")
		}
	}
	files, _ := filepath.Glob(filepath.Join(outbox, "*.eml"))
	inv, err := db.Store.Invitation(ctx, "b011416f-c25d-5625-9215-5885fc06430c")
	if len(files) != 1 || err != nil || !inv.EmailSent {
		t.Fatalf("%d e-mails in the outbox, the invitation's email_sent %v (%v); want 1 and true", len(files),
			inv.EmailSent, err)
	}
}
