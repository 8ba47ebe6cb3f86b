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

	"github.com/reportingplatform/api/infra/contract"
	"github.com/reportingplatform/api/infra/gateway"
	"github.com/reportingplatform/api/infra/testkit"
	"github.com/reportingplatform/api/shared/config"
	"github.com/reportingplatform/api/shared/service"
)

// TestMain searches every line the package's tests log for passwords, hashes and tokens (SPEC §9). Run
// with asMakeRun set, the test binary is the server make run starts (run_test.go).
func TestMain(m *testing.M) {
	if os.Getenv(asMakeRun) != "" {
		main()
		return
	}
	testkit.Main(m)
}

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
	srv, routes := serve(t, testkit.NewDB(t))
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
		t.Errorf("the page shows %d operations, openapi.yaml has %d: %v", len(shown), len(ops),
			slices.Sorted(maps.Keys(shown)))
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

// serve starts the server `make run` serves (the same api(), stage Prod) on a port of its own, over db.
func serve(t *testing.T, db *testkit.DB) (*httptest.Server, []gateway.Route) {
	t.Helper()
	env := service.Env{
		Config: config.Config{TableName: db.Table, TokenTTL: time.Hour, InvitationTTL: time.Hour, OutboxDir: t.TempDir(),
			InvitationURL: config.DefaultInvitationURL},
		Log: testkit.Log(t), Client: db.Client, Store: db.Store, Now: time.Now,
	}
	gw, routes, err := api(env, "Prod")
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(gw)
	t.Cleanup(srv.Close)
	return srv, routes
}

// operationBlock is one operation as Swagger UI renders it: its block's method class, then its path.
var operationBlock = regexp.MustCompile(`(?s)class="opblock ` +
	`opblock-(get|post|put|patch|delete|head|options)\b.*?data-path="([^"]*)"`)

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

// TestTryItOutCallsTheAPIThatServedIt drives the docs page in Chromium as a person would, from a server
// on a port other than 3000 and under the stage: Authorize with a token, "Try it out" on
// GET /api/v1/comments/{id}/, Execute. The schema names the server that served it (functions/docs), so
// the call goes to this server, under the stage, which the page's connect-src 'self' allows: 200.
func TestTryItOutCallsTheAPIThatServedIt(t *testing.T) {
	browser, err := exec.LookPath("chromium")
	if err != nil {
		t.Skip("chromium is not installed; make test installs it (apt-get install chromium)")
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed")
	}
	tpl, err := gateway.FindTemplate()
	if err != nil {
		t.Fatal(err)
	}
	root := filepath.Dir(tpl)
	modules := filepath.Join(root, ".local", "docs", "node_modules")
	if _, err := os.Stat(filepath.Join(modules, "puppeteer-core")); err != nil {
		t.Fatalf("puppeteer-core is not installed (infra/scripts/docs-assets.sh install, which make test runs): %v", err)
	}
	db := testkit.NewDB(t)
	db.LoadDemo(t, time.Now(), time.Hour)
	admin, err := db.UserByEmail(t, "admin@example.com")
	if err != nil {
		t.Fatal(err)
	}
	token := db.Token(t, admin, time.Hour)
	srv, _ := serve(t, db)
	const comment = "1dd33483-4850-52d3-b291-7668cb7a5a3a" // a comment of the demo fixture
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, filepath.Join(root, "infra", "local", "tryitout.cjs"),
		browser, srv.URL+"/Prod/api/docs/", token, comment)
	cmd.Env = append(os.Environ(), "NODE_PATH="+modules)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("Try it out: %v\n%s", err, stderr.Bytes())
	}
	if got := strings.TrimSpace(stdout.String()); got != "200" {
		t.Errorf("Try it out on GET /api/v1/comments/{id}/ from %s/Prod: the page shows %q, want 200", srv.URL, got)
	}
}
