package config_test

import (
	"strings"
	"testing"

	"github.com/reportingplatform/api/shared/config"
)

// TestInvitationMailSettings: the three variables of the invitation e-mail, their defaults, and the
// links refused at start because the e-mail could not carry the token in them.
func TestInvitationMailSettings(t *testing.T) {
	for _, name := range []string{"SENDER_EMAIL", "OUTBOX_DIR", "INVITATION_URL"} {
		t.Setenv(name, "")
	}
	c, err := config.FromEnv()
	if err != nil {
		t.Fatal(err)
	}
	if c.SenderEmail != "" || c.OutboxDir != "" || c.InvitationURL != config.DefaultInvitationURL {
		t.Fatalf("defaults: sender %q, outbox %q, link %q", c.SenderEmail, c.OutboxDir, c.InvitationURL)
	}

	t.Setenv("SENDER_EMAIL", "invitations@example.com")
	t.Setenv("OUTBOX_DIR", "/tmp/outbox")
	t.Setenv("INVITATION_URL", "http://localhost:5173/accept/{token}")
	if c, err = config.FromEnv(); err != nil {
		t.Fatal(err)
	}
	if c.SenderEmail != "invitations@example.com" || c.OutboxDir != "/tmp/outbox" ||
		c.InvitationURL != "http://localhost:5173/accept/{token}" {
		t.Fatalf("set: %+v", c)
	}

	for link, why := range map[string]string{
		"https://app.example.com/invitations/accept?token=": "no {token}",
		"app.example.com/accept?token={token}":              "not http(s)",
		"ftp://app.example.com/{token}":                     "not http(s)",
		"https:///accept?token={token}":                     "not http(s)",
		"https://app.example.com/a b?token={token}":         "not http(s)",
	} {
		t.Setenv("INVITATION_URL", link)
		if _, err := config.FromEnv(); err == nil || !strings.Contains(err.Error(), "INVITATION_URL") {
			t.Errorf("INVITATION_URL=%q (%s): %v, want a start-up error naming the variable", link, why, err)
		}
	}
}
