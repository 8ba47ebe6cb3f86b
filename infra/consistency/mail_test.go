package consistency_test

import (
	"regexp"
	"testing"

	"github.com/reportingplatform/api/shared/config"
	"gopkg.in/yaml.v3"
)

// senders are the functions that send the invitation e-mail: the create, right after its write, and
// MailFunction, from the table's stream, what the create could not (SPEC §9).
var senders = map[string]bool{"InvitationsFunction": true, "MailFunction": true}

// TestInvitationMailTemplate holds template.yaml's side of the invitation e-mail (SPEC §10) to the
// code's: the SenderEmail and InvitationUrl parameters, whose patterns let through exactly what the
// functions accept (a value CloudFormation passes must not stop InvitationsFunction at cold start), and
// their variables, set on InvitationsFunction alone (the only function that sends). The SES statement
// is TestSESPolicy's; SAM's translation of all three, TestSAMTranslation's.
func TestInvitationMailTemplate(t *testing.T) {
	var tpl struct {
		Parameters map[string]struct {
			Type           string  `yaml:"Type"`
			Default        *string `yaml:"Default"`
			AllowedPattern string  `yaml:"AllowedPattern"`
		} `yaml:"Parameters"`
		Conditions map[string]yaml.Node `yaml:"Conditions"`
		Globals    struct {
			Function struct {
				Environment struct {
					Variables map[string]yaml.Node `yaml:"Variables"`
				} `yaml:"Environment"`
			} `yaml:"Function"`
		} `yaml:"Globals"`
		Resources map[string]struct {
			Type       string `yaml:"Type"`
			Properties struct {
				Environment struct {
					Variables map[string]yaml.Node `yaml:"Variables"`
				} `yaml:"Environment"`
			} `yaml:"Properties"`
		} `yaml:"Resources"`
	}
	decodeTemplate(t, &tpl)

	// SenderEmail: empty by default (a deployment without SES still works, with email_sent false), else
	// one address; the SES policy's condition compares it with the From address as it is.
	sender := tpl.Parameters["SenderEmail"]
	if sender.Type != "String" || sender.Default == nil || *sender.Default != "" {
		t.Errorf("SenderEmail: type %q, default %v; want a String defaulting to empty", sender.Type, sender.Default)
	}
	senderPattern := regexp.MustCompile(sender.AllowedPattern)
	for value, ok := range map[string]bool{
		"": true, "invitations@example.com": true, "no-reply@mail.example.co.uk": true,
		"Reporting <invitations@example.com>": false, "invitations": false, "a@b@example.com": false,
		"invitations@example.com ": false, "invitations@exa mple.com": false,
	} {
		if senderPattern.MatchString(value) != ok {
			t.Errorf("SenderEmail %q: pattern match %v, want %v", value, !ok, ok)
		}
	}
	if hasSender := tpl.Conditions["HasSender"]; canonical(&hasSender) != "!Not [!Equals [!Ref SenderEmail, ]]" {
		t.Errorf("condition HasSender %s, want SenderEmail not empty", canonical(&hasSender))
	}

	// InvitationUrl: its default is the code's, and its pattern agrees with config.FromEnv.
	link := tpl.Parameters["InvitationUrl"]
	if link.Type != "String" || link.Default == nil || *link.Default != config.DefaultInvitationURL {
		t.Errorf("InvitationUrl: type %q, default %v; want a String defaulting to %q", link.Type, link.Default,
			config.DefaultInvitationURL)
	}
	linkPattern := regexp.MustCompile(link.AllowedPattern)
	for value, ok := range map[string]bool{
		config.DefaultInvitationURL:                                 true,
		"http://localhost:5173/accept/{token}":                      true,
		"https://app.example.com/#/invitations/{token}":             true,
		"https://app.example.com?invitation={token}&lang=en":        true,
		"https://app.example.com/invitations/accept?token=":         false,
		"https://app.example.com/invitations/accept?token={TOKEN}":  false,
		"https://{token}.example.com/accept":                        false,
		"https://app.example.com{token}":                            false,
		"https:///accept?token={token}":                             false,
		"app.example.com/invitations/accept?token={token}":          false,
		"ftp://app.example.com/{token}":                             false,
		"https://app.example.com/accept me?token={token}":           false,
		"https://app.example.com/accept?token={token}\n":            false,
		"HTTPS://app.example.com/accept?token={token}":              false,
		"https://app.example.com:8443/invitations/accept/{token}/":  true,
		"https://app.example.com/invitations/accept?token={token}}": true,
	} {
		t.Setenv("INVITATION_URL", value)
		_, err := config.FromEnv()
		if (err == nil) != ok {
			t.Errorf("INVITATION_URL=%q: %v; want accepted %v", value, err, ok)
		}
		if linkPattern.MatchString(value) != (err == nil) {
			t.Errorf("InvitationUrl %q: the template's pattern says %v, the functions %v", value,
				linkPattern.MatchString(value), err == nil)
		}
	}

	// The variables: on InvitationsFunction only, from the parameters.
	for _, name := range []string{"SENDER_EMAIL", "INVITATION_URL", "OUTBOX_DIR"} {
		if _, ok := tpl.Globals.Function.Environment.Variables[name]; ok {
			t.Errorf("Globals.Function.Environment sets %s: only %v send e-mail", name, senders)
		}
	}
	wantVars := map[string]string{"SENDER_EMAIL": "!Ref SenderEmail", "INVITATION_URL": "!Ref InvitationUrl"}
	for id, res := range tpl.Resources {
		if res.Type != "AWS::Serverless::Function" {
			continue
		}
		vars := res.Properties.Environment.Variables
		// Declared empty, so that sam local's --env-vars may set it (env.local.json); never a value.
		if v, ok := vars["OUTBOX_DIR"]; ok && (v.Kind != yaml.ScalarNode || v.Value != "") {
			t.Errorf("%s sets OUTBOX_DIR: the outbox is make run's; in AWS the e-mail goes through SES", id)
		}
		for name, want := range wantVars {
			v, ok := vars[name]
			switch {
			case senders[id] && (!ok || canonical(&v) != want):
				t.Errorf("%s: %s is %q, want %s", id, name, canonical(&v), want)
			case !senders[id] && ok:
				t.Errorf("%s sets %s: only %v send e-mail", id, name, senders)
			}
		}
	}
	if _, ok := tpl.Resources["InvitationsFunction"]; !ok {
		t.Error("template.yaml has no InvitationsFunction")
	}
}
