package docs_test

import (
	"bytes"
	"context"
	"encoding/json"
	"mime"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/awslabs/aws-lambda-go-api-proxy/httpadapter"
	"github.com/getkin/kin-openapi/openapi3"
	"github.com/reportingplatform/api/functions/docs"
	"github.com/reportingplatform/api/infra/gateway"
	"github.com/reportingplatform/api/infra/testkit"
	"github.com/reportingplatform/api/shared/httpapi"
	"gopkg.in/yaml.v3"
)

// root is the checkout's folder.
func root(t *testing.T) string {
	t.Helper()
	tpl, err := gateway.FindTemplate()
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Dir(tpl)
}

// repoFiles are the files make run serves; Swagger UI must have been installed (make test does).
func repoFiles(t *testing.T) docs.Files {
	t.Helper()
	files := docs.InRepo(root(t))
	if _, err := os.Stat(filepath.Join(files.UI, "swagger-ui-bundle.js")); err != nil {
		t.Fatalf("Swagger UI is not installed (%v): run infra/scripts/docs-assets.sh install, as make test and "+
			"make run do", err)
	}
	return files
}

// api is DocsFunction behind template.yaml's routes, each request going through the API Gateway event
// it would be in AWS.
func api(t *testing.T, files docs.Files) *gateway.Gateway {
	t.Helper()
	return testkit.Gateway(t, map[string]http.Handler{"DocsFunction": docs.New(testkit.Log(t), files)})
}

// get sends a GET through h. Not testkit.Do: the schema, the page and its files are not JSON, which
// infra/contract holds every response to. Instead the answer's media type must be one openapi.yaml
// declares for the operation (its path template) and status.
func get(t *testing.T, h http.Handler, path, operation string) *httptest.ResponseRecorder {
	t.Helper()
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "http://127.0.0.1:3000"+path, nil))
	if w.Header().Get("X-Request-Id") == "" {
		t.Errorf("GET %s: no X-Request-Id", path)
	}
	media, _, err := mime.ParseMediaType(w.Header().Get("Content-Type"))
	if err != nil {
		t.Fatalf("GET %s: %d, Content-Type %q: %v", path, w.Code, w.Header().Get("Content-Type"), err)
	}
	resp := openAPI(t).Paths.Value(operation).Get.Responses.Status(w.Code)
	if resp == nil || resp.Value.Content.Get(media) == nil {
		t.Fatalf("GET %s: %d %s, which openapi.yaml does not declare for GET %s", path, w.Code, media, operation)
	}
	return w
}

func openAPI(t *testing.T) *openapi3.T {
	t.Helper()
	doc, err := openapi3.NewLoader().LoadFromFile(filepath.Join(root(t), "openapi.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

func TestSchemaIsOpenAPIYAMLOrJSON(t *testing.T) {
	files := repoFiles(t)
	gw := api(t, files)
	want, err := os.ReadFile(files.Schema)
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{"/api/schema/", "/api/schema", "/api/schema/?format=yaml"} {
		w := get(t, gw, path, "/api/schema/")
		if w.Code != http.StatusOK || w.Header().Get("Content-Type") != docs.SchemaYAML ||
			!bytes.Equal(w.Body.Bytes(), want) {
			t.Errorf("GET %s: %d %q, %d bytes; want 200 %s with openapi.yaml as it is", path, w.Code,
				w.Header().Get("Content-Type"), w.Body.Len(), docs.SchemaYAML)
		}
	}

	w := get(t, gw, "/api/schema/?format=json", "/api/schema/")
	if w.Code != http.StatusOK || w.Header().Get("Content-Type") != docs.SchemaJSON {
		t.Fatalf("format=json: %d %q", w.Code, w.Header().Get("Content-Type"))
	}
	var fromYAML, fromJSON any
	if err := yaml.Unmarshal(want, &fromYAML); err != nil {
		t.Fatal(err)
	}
	// Through JSON, so that YAML's ints and JSON's float64s compare as the same numbers.
	fromYAML = roundTrip(t, fromYAML)
	if err := json.Unmarshal(w.Body.Bytes(), &fromJSON); err != nil {
		t.Fatalf("format=json: not JSON: %v", err)
	}
	if !equalJSON(fromYAML, fromJSON) {
		t.Errorf("format=json is not openapi.yaml's document: %.300s", w.Body.String())
	}
	// The JSON is a document openapi tools load (what Swagger UI or a code generator would do with it).
	if _, err := openapi3.NewLoader().LoadFromData(w.Body.Bytes()); err != nil {
		t.Errorf("format=json does not load as OpenAPI: %v", err)
	}

	// Another format is DRF's 404, as when no renderer matches.
	testkit.Do(t, gw, testkit.Request{Method: "GET", Path: "/api/schema/?format=xml"}).Expect(t, 404,
		`{"detail": "Not found."}`)
}

func roundTrip(t *testing.T, v any) any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

func equalJSON(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return bytes.Equal(x, y)
}

// links are the src and href attributes of a page.
var links = regexp.MustCompile(`(?:src|href|data-schema-url)="([^"]*)"`)

// TestDocsPageLoadsEverythingFromTheAPI holds the page to SPEC §10: every script and style it loads is
// served by the API itself, under the stage the page was called with, and is exactly the file the
// build installed; nothing comes from another host.
func TestDocsPageLoadsEverythingFromTheAPI(t *testing.T) {
	files := repoFiles(t)
	gw := api(t, files)
	var assetEnum []string
	for _, p := range openAPI(t).Paths.Value("/api/docs/{asset}").Get.Parameters {
		if p.Value.Name == "asset" {
			for _, v := range p.Value.Schema.Value.Enum {
				assetEnum = append(assetEnum, v.(string))
			}
		}
	}
	sort.Strings(assetEnum)

	for _, stage := range []string{"", "/Prod"} {
		for _, path := range []string{stage + "/api/docs/", stage + "/api/docs"} {
			w := get(t, gw, path, "/api/docs/")
			if w.Code != http.StatusOK || w.Header().Get("Content-Type") != "text/html; charset=utf-8" {
				t.Fatalf("GET %s: %d %q %s", path, w.Code, w.Header().Get("Content-Type"), w.Body)
			}
			if csp := w.Header().Get("Content-Security-Policy"); !strings.Contains(csp, "default-src 'none'") ||
				!strings.Contains(csp, "script-src 'self';") || !strings.Contains(csp, "connect-src 'self';") {
				t.Errorf("GET %s: Content-Security-Policy %q lets the page load from elsewhere", path, csp)
			}
			var assets []string
			schema := 0
			for _, m := range links.FindAllStringSubmatch(w.Body.String(), -1) {
				link := m[1]
				switch {
				case link == "data:,": // the empty icon, which spares a request for /favicon.ico
				case link == stage+"/api/schema/":
					schema++
				case strings.HasPrefix(link, stage+"/api/docs/"):
					name, version, _ := strings.Cut(strings.TrimPrefix(link, stage+"/api/docs/"), "?v=")
					if !slices.Contains(assets, name) {
						assets = append(assets, name)
					}
					if len(version) != 12 {
						t.Errorf("GET %s: %s has no content version", path, link)
					}
					checkAsset(t, gw, link, name, files)
				default:
					t.Errorf("GET %s: the page loads %q, which is not the API's own (stage %q)", path, link, stage)
				}
			}
			sort.Strings(assets)
			if schema < 2 || !slices.Equal(assets, assetEnum) {
				t.Errorf("GET %s: the page links the schema %d times and the files %v; want the schema (Swagger UI's "+
					"and the fallback link) and openapi.yaml's {asset} values %v:\n%s",
					path, schema, assets, assetEnum, w.Body)
			}
		}
	}
}

// checkAsset fetches one of the page's files and compares it with the file installed.
func checkAsset(t *testing.T, gw http.Handler, link, name string, files docs.Files) {
	t.Helper()
	w := get(t, gw, link, "/api/docs/{asset}")
	want := map[string]string{".js": "text/javascript; charset=utf-8",
		".css": "text/css; charset=utf-8"}[filepath.Ext(name)]
	if w.Code != http.StatusOK || w.Header().Get("Content-Type") != want ||
		w.Header().Get("Cache-Control") != "public, max-age=86400" {
		t.Fatalf("GET %s: %d %q %q", link, w.Code, w.Header().Get("Content-Type"), w.Header().Get("Cache-Control"))
	}
	if name == "docs.js" {
		if !strings.Contains(w.Body.String(), "SwaggerUIBundle(") ||
			!strings.Contains(w.Body.String(), "validatorUrl: null") {
			t.Errorf("docs.js does not start Swagger UI without its online validator: %s", w.Body)
		}
		return
	}
	installed, err := os.ReadFile(filepath.Join(files.UI, name))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(w.Body.Bytes(), installed) {
		t.Errorf("GET %s: %d bytes, not the %d of swagger-ui-dist's %s", link, w.Body.Len(), len(installed), name)
	}
}

func TestUnknownFilesAndOtherMethodsAnswerAsDRF(t *testing.T) {
	gw := api(t, repoFiles(t))
	for _, path := range []string{"/api/docs/nothing.js", "/api/docs/swagger-ui.js", "/api/docs/index.html",
		"/api/docs/..%2Fschema"} {
		testkit.Do(t, gw, testkit.Request{Method: "GET", Path: path}).Expect(t, 404, `{"detail": "Not found."}`)
	}
	// A path no function declares is the gateway's 404.
	testkit.Do(t, gw, testkit.Request{Method: "GET", Path: "/api/docs/swagger-ui.css/x"}).Expect(t, 404,
		`{"detail": "Not found."}`)
	for _, path := range []string{"/api/docs/", "/api/schema/", "/api/docs/docs.js"} {
		for _, method := range []string{"POST", "DELETE", "PUT"} {
			resp := testkit.Do(t, gw, testkit.Request{Method: method, Path: path, Body: "{}"})
			resp.Expect(t, 405, `{"detail": "Method \"`+method+`\" not allowed."}`)
			if allow := resp.Header.Get("Allow"); allow != "GET, HEAD" {
				t.Errorf("%s %s: Allow %q, want GET, HEAD", method, path, allow)
			}
		}
	}
	// HEAD is GET without the body.
	w := httptest.NewRecorder()
	gw.ServeHTTP(w, httptest.NewRequest(http.MethodHead, "http://127.0.0.1:3000/api/docs/swagger-ui.css", nil))
	if w.Code != http.StatusOK || w.Header().Get("Content-Type") != "text/css; charset=utf-8" || w.Body.Len() != 0 {
		t.Errorf("HEAD swagger-ui.css: %d %q, %d bytes of body", w.Code, w.Header().Get("Content-Type"), w.Body.Len())
	}
}

// TestMissingFilesAreAServerError: a package built without its files answers DRF's 500 and logs why,
// rather than a page that cannot render.
func TestMissingFilesAreAServerError(t *testing.T) {
	var logs bytes.Buffer
	files := docs.Files{Schema: filepath.Join(root(t), "openapi.yaml"), UI: t.TempDir()}
	gw := testkit.Gateway(t, map[string]http.Handler{"DocsFunction": docs.New(httpapi.NewLogger(&logs, "json"), files)})
	for _, path := range []string{"/api/docs/", "/api/schema/", "/api/docs/swagger-ui.css"} {
		testkit.Do(t, gw, testkit.Request{Method: "GET", Path: path}).Expect(t, 500, `{"detail": "A server error occurred."}`)
	}
	if !strings.Contains(logs.String(), files.UI) || !strings.Contains(logs.String(), "docs-assets.sh") {
		t.Errorf("the log does not say which file is missing and how to get it:\n%s", logs.String())
	}
	// An unknown file is still a 404: nothing was there to read.
	testkit.Do(t, gw, testkit.Request{Method: "GET", Path: "/api/docs/nothing.js"}).Expect(t, 404,
		`{"detail": "Not found."}`)
}

// TestTheBuildLaysOutWhatTheFunctionReads runs build-DocsFunction's copy step into a folder and serves
// from it as the bootstrap does (docs.Beside its own folder): the same schema and files as the checkout's.
func TestTheBuildLaysOutWhatTheFunctionReads(t *testing.T) {
	repo := repoFiles(t)
	out := t.TempDir()
	cmd := exec.Command(filepath.Join("infra", "scripts", "docs-assets.sh"), "copy", out)
	cmd.Dir = root(t)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("docs-assets.sh copy: %v\n%s", err, b)
	}
	built, checkout := api(t, docs.Beside(out)), api(t, repo)
	for _, path := range []string{"/api/schema/", "/api/schema/?format=json", "/api/docs/swagger-ui-bundle.js",
		"/api/docs/swagger-ui.css", "/api/docs/docs.js"} {
		operation := "/api/docs/{asset}"
		if strings.HasPrefix(path, "/api/schema/") {
			operation = "/api/schema/"
		}
		a, b := get(t, built, path, operation), get(t, checkout, path, operation)
		if a.Code != http.StatusOK || !bytes.Equal(a.Body.Bytes(), b.Body.Bytes()) {
			t.Errorf("GET %s from the build: %d, %d bytes; from the checkout %d, %d bytes", path, a.Code, a.Body.Len(),
				b.Code, b.Body.Len())
		}
	}
}

// TestResponsesFitAPIGateway: every answer goes back through Lambda's proxy response as text, under
// Lambda's 6 MB response limit. A base64 (binary) body would reach the client as base64 text: the REST
// API declares no binary media types.
func TestResponsesFitAPIGateway(t *testing.T) {
	files := repoFiles(t)
	gw := api(t, files)
	adapter := httpadapter.New(docs.New(testkit.Log(t), files))
	for _, path := range []string{"/Prod/api/schema/", "/Prod/api/schema/?format=json", "/Prod/api/docs/",
		"/Prod/api/docs/swagger-ui-bundle.js", "/Prod/api/docs/swagger-ui.css", "/Prod/api/docs/docs.js"} {
		ev, fn, ok := gw.Event(httptest.NewRequest(http.MethodGet,
			"https://example.execute-api.us-east-1.amazonaws.com"+path, nil), nil)
		if !ok || fn != "DocsFunction" {
			t.Fatalf("GET %s: routed to %q (%v)", path, fn, ok)
		}
		resp, err := adapter.ProxyWithContext(context.Background(), ev)
		if err != nil {
			t.Fatal(err)
		}
		payload, err := json.Marshal(resp)
		if err != nil {
			t.Fatal(err)
		}
		if resp.StatusCode != http.StatusOK || resp.IsBase64Encoded || len(payload) > 6<<20 {
			t.Errorf("GET %s: %d, base64 %v, %d bytes of Lambda response", path, resp.StatusCode, resp.IsBase64Encoded,
				len(payload))
		}
	}
}

// TestSchemaNamesTheServerThatServedIt: the schema's one server is the base path the client called,
// relative, so that the docs page's "Try it out" and clients generated from the served document call the
// API that served it, wherever that is, and no Host the request carried is written into the document;
// where there is no base path the document is openapi.yaml as it is ("/").
func TestSchemaNamesTheServerThatServedIt(t *testing.T) {
	gw := api(t, repoFiles(t))
	for _, tc := range []struct {
		url, proto, want string
	}{
		{"http://127.0.0.1:3000/api/schema/", "", "/"},
		{"http://127.0.0.1:3000/Prod/api/schema/", "", "/Prod"},
		{"http://localhost:3100/api/schema/?format=json", "", "/"},
		{"http://abc123.execute-api.eu-west-1.amazonaws.com/Prod/api/schema/", "https", "/Prod"},
		{"http://abc123.execute-api.eu-west-1.amazonaws.com/Prod/api/schema/?format=json", "https", "/Prod"},
		{"http://evil.example/Prod/api/schema/", "", "/Prod"},
	} {
		req := httptest.NewRequest(http.MethodGet, tc.url, nil)
		if tc.proto != "" {
			req.Header.Set("X-Forwarded-Proto", tc.proto)
		}
		w := httptest.NewRecorder()
		gw.ServeHTTP(w, req)
		doc, err := openapi3.NewLoader().LoadFromData(w.Body.Bytes())
		if w.Code != http.StatusOK || err != nil {
			t.Fatalf("GET %s: %d, %v", tc.url, w.Code, err)
		}
		if len(doc.Servers) != 1 || doc.Servers[0].URL != tc.want {
			t.Errorf("GET %s: servers %v, want one: %s", tc.url, doc.Servers, tc.want)
		}
		if n := len(doc.Paths.Map()); n != len(openAPI(t).Paths.Map()) {
			t.Errorf("GET %s: %d paths, want openapi.yaml's", tc.url, n)
		}
	}
}
