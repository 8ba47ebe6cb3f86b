package consistency_test

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestNoFunctionLinksEagerSchemas holds the SDK pin of go.mod (docs/DEPENDENCIES.md): from dynamodb
// v1.69.0 and sesv2 v1.75.0 on, the SDK's schema-based serialization builds every operation's schema in
// a package init, used or not, which every cold start pays for in time and memory and every bootstrap in
// size (docs/PERFORMANCE.md). The
// size check in CI would catch an upgrade of InvitationsFunction only; this catches it for every
// function. Lift the pin, and this test, when the SDK builds its schemas lazily (make coldstart
// -inittrace shows a package's init time).
func TestNoFunctionLinksEagerSchemas(t *testing.T) {
	t.Parallel()
	_, root := loadTemplate(t)
	mains, err := filepath.Glob(filepath.Join(root, "functions", "*", "lambda"))
	if err != nil || len(mains) != 7 {
		t.Fatalf("functions/*/lambda: %v %v, want the 7 functions' mains", mains, err)
	}
	args := []string{"list", "-deps", "-tags", "lambda.norpc"}
	for _, m := range mains {
		rel, _ := filepath.Rel(root, m)
		args = append(args, "./"+filepath.ToSlash(rel))
	}
	cmd := exec.Command("go", args...)
	cmd.Dir = root
	cmd.Env = append(cmd.Environ(), "GOOS=linux", "GOARCH=arm64", "CGO_ENABLED=0")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	linked := 0
	for pkg := range strings.Lines(string(out)) {
		pkg = strings.TrimSpace(pkg)
		if strings.HasPrefix(pkg, "github.com/aws/aws-sdk-go-v2/service/") {
			linked++
			if strings.HasSuffix(pkg, "/schemas") {
				t.Errorf("a function links %s: the SDK was upgraded past the pin of go.mod (docs/DEPENDENCIES.md)", pkg)
			}
		}
	}
	if linked == 0 {
		t.Fatal("no SDK service package among the functions' dependencies: the test looks in the wrong place")
	}
}
