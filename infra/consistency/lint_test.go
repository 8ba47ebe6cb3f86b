package consistency_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestCfnLintFindsNothing runs cfn-lint, as a user's pipeline would, on template.yaml and on the
// template SAM translates it into, and fails on any finding: errors, warnings and informational ones
// alike (--include-checks I), so that what cfn-lint merely suggests is either done or ignored here with
// its reason. The two runs see different things: on template.yaml cfn-lint checks the SAM resources
// through its own bundled translator, and on the translation it checks the IAM actions SAM writes
// into each role (W3037 found dynamodb:TransactWriteItems there, which is no IAM action).
//
// Ignored on the translation only, I3042 ("hardcoded partition"): SAM itself writes arn:aws: into the
// API's integration URIs and the functions' invoke permissions, from the region it translates in;
// CloudFormation runs the transform in the stack's own partition, so those ARNs are right there.
// template.yaml's own ARNs are all !GetAtt and !Sub, and I3042 stays on for it.
// skipUnlessCI skips a check whose tool this machine lacks, saying why, except under CI=true: CI
// machines have cfn-lint and samtranslator, so a missing tool there is a broken pipeline, and a check
// that skipped would pass without having run.
func skipUnlessCI(t *testing.T, why string) {
	t.Helper()
	if os.Getenv("CI") == "true" {
		t.Fatalf("%s; CI=true requires it", why)
	}
	t.Skip(why)
}

func TestCfnLintFindsNothing(t *testing.T) {
	lint, err := exec.LookPath("cfn-lint")
	if err != nil {
		skipUnlessCI(t, "cfn-lint is not on PATH, so template.yaml is not linted here (pip install cfn-lint)")
	}
	t.Parallel()
	_, root := loadTemplate(t)
	lintClean := func(t *testing.T, args ...string) {
		t.Helper()
		cmd := exec.Command(lint, append([]string{"--format", "parseable", "--include-checks", "I"}, args...)...)
		cmd.Dir = root
		out, err := cmd.CombinedOutput()
		if findings := strings.TrimSpace(string(out)); err != nil || findings != "" {
			t.Errorf("cfn-lint %s: %v\n%s", strings.Join(args, " "), err, findings)
		}
	}
	t.Run("template.yaml", func(t *testing.T) {
		lintClean(t, "--", filepath.Join(root, "template.yaml"))
	})
	t.Run("SAM's translation", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "translated.json")
		if err := os.WriteFile(path, translatedJSON(t), 0o600); err != nil {
			t.Fatal(err)
		}
		lintClean(t, "--ignore-checks", "I3042", "--", path)
	})
}
