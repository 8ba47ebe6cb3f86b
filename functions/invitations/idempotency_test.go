package invitations_test

import (
	"fmt"
	"testing"

	"github.com/google/uuid"
	"github.com/reportingplatform/api/infra/testkit"
	"github.com/reportingplatform/api/shared/domain"
)

// postWithKey sends a create with an Idempotency-Key header (SPEC §9).
func (w *world) postWithKey(t *testing.T, token, key, body string) testkit.Response {
	t.Helper()
	return testkit.Do(t, w.gw, testkit.Request{Method: "POST", Path: listPath, Token: token, Body: body,
		Header: map[string]string{"Idempotency-Key": key}})
}

// TestIdempotencyKeyReplaysTheInvitationWithoutASecondEmail: the retry of a create with its key gets the
// first 201 and the invitation as it is now (renamed since), one invitation in the table and one
// e-mail; another body with the key gets 422.
func TestIdempotencyKeyReplaysTheInvitationWithoutASecondEmail(t *testing.T) {
	w := newWorld(t)
	admin := w.token(t, w.admin)
	email := "keyed-" + uuid.NewString()[:8] + "@example.com"
	body := fmt.Sprintf(`{"organization_id": %q, "email": %q, "first_name": "Nina", `+
		`"accessible_portfolio_ids": [%q]}`, w.acme.ID, email, w.zeta.ID)
	first := w.postWithKey(t, admin, "invite-key", body)
	if first.Status != 201 {
		t.Fatalf("first: %d %s", first.Status, first.Body)
	}
	id, token := first.Object(t)["id"].(string), first.Object(t)["token"].(string)
	want := shape{
		ID: id, Token: token, ExpiryDate: domain.FormatTime(w.now.Add(ttl)),
		Organization: orgShape{w.acme.ID, w.acme.Name}, Inviter: inviterShape{w.adminMember, "Ada", "Admin", w.admin.Email},
		Email: email, EmailSent: true, FirstName: domain.Ptr("Nina"),
	}
	want.withPortfolios(w.zeta)
	first.Expect(t, 201, want.JSON(t))

	if r := w.patch(t, admin, id, `{"first_name": "Nora"}`); r.Status != 200 {
		t.Fatalf("patch: %d %s", r.Status, r.Body)
	}
	want.FirstName = domain.Ptr("Nora")
	again := fmt.Sprintf(`{"accessible_portfolio_ids": [%q], "first_name": "Nina",
		"email": %q, "organization_id": %q}`, w.zeta.ID, email, w.acme.ID)
	w.postWithKey(t, admin, "invite-key", again).Expect(t, 201, want.JSON(t))
	if n := len(w.mail.all()); n != 1 {
		t.Fatalf("%d e-mails handed over, want 1", n)
	}
	if n := len(w.db.Items(t, "INVITATION#")); n != 1 {
		t.Fatalf("%d invitations in the table, want 1", n)
	}

	w.postWithKey(t, admin, "invite-key", fmt.Sprintf(`{"organization_id": %q, "email": "other-%s"}`, w.acme.ID, email)).
		Expect(t, 422, `{"detail": "This Idempotency-Key was already used with a different request."}`)
	if n := len(w.db.Items(t, "INVITATION#")); n != 1 || len(w.mail.all()) != 1 {
		t.Fatalf("%d invitations and %d e-mails after a reused key, want 1 and 1", n, len(w.mail.all()))
	}
}

// TestIdempotencyKeyReplayNeverSends: an invitation whose e-mail could not be handed over shows
// email_sent false to the retry of its create, which sends nothing either: the e-mail is at most the
// first request's.
func TestIdempotencyKeyReplayNeverSends(t *testing.T) {
	w := newWorld(t)
	admin := w.token(t, w.admin)
	body := fmt.Sprintf(`{"organization_id": %q, "email": "unsent-%s@example.com"}`, w.acme.ID, uuid.NewString()[:8])
	w.mail.fail(true)
	first := w.postWithKey(t, admin, "unsent", body)
	w.mail.fail(false)
	if first.Status != 201 || first.Object(t)["email_sent"] != false {
		t.Fatalf("first: %d %s", first.Status, first.Body)
	}
	w.postWithKey(t, admin, "unsent", body).Expect(t, 201, string(first.Body))
	if n := len(w.mail.all()); n != 0 {
		t.Fatalf("the replay handed over %d e-mails", n)
	}
}
