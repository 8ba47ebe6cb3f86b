package main

import (
	"bytes"
	"context"
	"maps"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/reportingplatform/api/infra/gateway"
	"github.com/reportingplatform/api/infra/testkit"
	"github.com/reportingplatform/api/shared/config"
	"github.com/reportingplatform/api/shared/contract"
	"github.com/reportingplatform/api/shared/service"
)

// TestMain searches every line the package's tests log for passwords, hashes and tokens (SPEC §9).
func TestMain(m *testing.M) { testkit.Main(m) }

// TestDocsPageInABrowser opens /api/docs/ from the server `make run` serves (the same api(), against
// DynamoDB Local) in headless Chromium, lets Swagger UI fetch /api/schema/ and render, and holds the
// page to the API: every operation of openapi.yaml is shown, and every path of template.yaml. The page
// loads nothing from outside (the machine has no internet: a CDN link would render nothing). It saves
// a screenshot as .local/docs-page.png (the README's picture is a copy).
func TestDocsPageInABrowser(t *testing.T) {
	browser, err := exec.LookPath("chromium")
	if err != nil {
		t.Skip("chromium is not installed; make test installs it (apt-get install chromium)")
	}
	db := testkit.NewDB(t)
	env := service.Env{
		Config: config.Config{TableName: db.Table, TokenTTL: time.Hour, InvitationTTL: time.Hour, OutboxDir: t.TempDir(), InvitationURL: config.DefaultInvitationURL},
		Log:    testkit.Log(t), Client: db.Client, Store: db.Store, Now: time.Now,
	}
	gw, routes, err := api(env, "Prod")
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(gw)
	defer srv.Close()
	url := srv.URL + "/api/docs/"

	dom := chromium(t, browser, "--dump-dom", url)
	shown := map[string]bool{} // "METHOD /path" as Swagger UI renders each operation
	paths := map[string]bool{}
	for _, m := range operationBlock.FindAllSubmatch(dom, -1) {
		shown[strings.ToUpper(string(m[1]))+" "+string(m[2])] = true
		paths[strings.TrimSuffix(string(m[2]), "/")] = true
	}
	ops, err := contract.Operations()
	if err != nil {
		t.Fatal(err)
	}
	for _, op := range ops {
		if !shown[op.Method+" "+op.Path] {
			t.Errorf("the page does not show %s %s", op.Method, op.Path)
		}
	}
	if len(shown) != len(ops) {
		t.Errorf("the page shows %d operations, openapi.yaml has %d: %v", len(shown), len(ops), slices.Sorted(maps.Keys(shown)))
	}
	for _, r := range routes {
		if !paths[strings.TrimSuffix(r.Path, "/")] {
			t.Errorf("template.yaml's %s (%s) is not on the page", r.Path, r.Function)
		}
	}
	if t.Failed() {
		t.Logf("page as rendered:\n%.3000s", dom)
	}

	tpl, err := gateway.FindTemplate()
	if err != nil {
		t.Fatal(err)
	}
	shot := filepath.Join(filepath.Dir(tpl), ".local", "docs-page.png")
	if err := os.MkdirAll(filepath.Dir(shot), 0o755); err != nil {
		t.Fatal(err)
	}
	_ = os.Remove(shot)
	chromium(t, browser, "--screenshot="+shot, "--window-size=1280,1600", "--hide-scrollbars", url)
	png, err := os.ReadFile(shot)
	if err != nil || !bytes.HasPrefix(png, []byte("\x89PNG\r\n\x1a\n")) || len(png) < 20_000 {
		t.Fatalf("screenshot %s: %d bytes, %v", shot, len(png), err)
	}
	t.Logf("%d operations on the page; screenshot %s (%d bytes)", len(shown), shot, len(png))
}

// operationBlock is one operation as Swagger UI renders it: its block's method class, then its path.
var operationBlock = regexp.MustCompile(`(?s)class="opblock opblock-(get|post|put|patch|delete|head|options)\b.*?data-path="([^"]*)"`)

// chromium runs headless Chromium once with the flags that work on a machine without internet (as
// root, no sandbox; no background connections, which this network refuses) and returns its stdout.
// Virtual time lets the page's scripts and its fetch of the schema finish before the DOM is taken.
func chromium(t *testing.T, browser string, args ...string) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	base := []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--disable-dev-shm-usage", "--user-data-dir=" + t.TempDir(), "--virtual-time-budget=15000"}
	cmd := exec.CommandContext(ctx, browser, append(base, args...)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("chromium %v: %v\n%s", args, err, stderr.Bytes())
	}
	return stdout.Bytes()
}
