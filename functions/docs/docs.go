// Package docs is DocsFunction: the API's description of itself (SPEC §10). GET /api/schema/ answers
// openapi.yaml, and GET /api/docs/ a page where Swagger UI renders it. Swagger UI's script and style
// are served by this function too, under /api/docs/<file>, so that the page needs nothing from the
// internet. Nothing here needs a token or the table.
package docs

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"html/template"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"sync"

	"github.com/reportingplatform/api/shared/domain"
	"github.com/reportingplatform/api/shared/httpapi"
	"gopkg.in/yaml.v3"
)

// Media types of the schema, as drf-spectacular serves it.
const (
	SchemaYAML = "application/vnd.oai.openapi"
	SchemaJSON = "application/vnd.oai.openapi+json"
)

// Files says where the function reads what it serves. Swagger UI is not in the repository (the build
// fetches it from npm, pinned in infra/docs/package-lock.json), so it cannot be embedded in a binary
// that a fresh clone must compile: it is read from disk at the first request, as is openapi.yaml,
// which then stays the one copy of the document.
type Files struct {
	Schema string // the OpenAPI document
	UI     string // a folder holding swagger-ui-dist's files
}

// Beside is the layout build-DocsFunction gives the deployment package: openapi.yaml and swagger-ui/
// next to the bootstrap.
func Beside(dir string) Files {
	return Files{Schema: filepath.Join(dir, "openapi.yaml"), UI: filepath.Join(dir, "swagger-ui")}
}

// InRepo is a checkout's layout: its openapi.yaml, and swagger-ui-dist where
// infra/scripts/docs-assets.sh installs it.
func InRepo(root string) Files {
	return Files{
		Schema: filepath.Join(root, "openapi.yaml"),
		UI:     filepath.Join(root, ".local", "docs", "node_modules", "swagger-ui-dist"),
	}
}

// uiFiles are the files of swagger-ui-dist the page uses; build-DocsFunction copies these.
var uiFiles = map[string]string{
	"swagger-ui-bundle.js": "text/javascript; charset=utf-8",
	"swagger-ui.css":       "text/css; charset=utf-8",
}

// ownFiles are the page and the script that starts Swagger UI on it. The script is a file rather than
// an inline <script>, so that the page's Content-Security-Policy can refuse inline scripts.
//
//go:embed page.html docs.js
var ownFiles embed.FS

var page = template.Must(template.ParseFS(ownFiles, "page.html"))

// contentSecurityPolicy lets the page load from the API only. Swagger UI sets style attributes and
// shows its icons as data: images.
const contentSecurityPolicy = "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; " +
	"img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

type asset struct {
	contentType string
	body        []byte
	version     string // of the content, put in the page's links so that a new build is fetched anew
}

// openapi.yaml's one server is relative ("/": where the document is served from), so that a client
// generated from the file hard-codes no address. The schema goes out with the base path the client
// called in its place (the stage, "/Prod", or a custom domain's base path mapping), still relative, so
// that the page's "Try it out" and clients generated from the served document call the API that
// served it, and nothing of the request's Host goes into the document.
var (
	documentedServerYAML = []byte("\n  - url: /\n")
	documentedServerJSON = []byte(`"url":"/"`)
)

// site is what the function serves, read once.
type site struct {
	yaml, json []byte
	assets     map[string]asset
}

// New serves the schema, the page and its files from files, read at the first request that needs them
// and kept. Files that cannot be read make those requests a 500, with the reason in the log.
func New(log *slog.Logger, files Files) *httpapi.Router {
	load := sync.OnceValues(func() (*site, error) { return read(files) })
	rt := httpapi.NewRouter(log)
	rt.HandleOpen(http.MethodGet, "/api/schema/", func(w http.ResponseWriter, r *http.Request) error {
		return schema(w, r, load)
	})
	rt.HandleOpen(http.MethodGet, "/api/docs/", func(w http.ResponseWriter, r *http.Request) error {
		return docsPage(w, r, load)
	})
	rt.HandleOpen(http.MethodGet, "/api/docs/{asset}", func(w http.ResponseWriter, r *http.Request) error {
		return file(w, r, load)
	})
	return rt
}

func read(files Files) (*site, error) {
	doc, err := os.ReadFile(files.Schema)
	if err != nil {
		return nil, fmt.Errorf("docs: the OpenAPI document: %w", err)
	}
	asJSON, err := yamlToJSON(doc)
	if err != nil {
		return nil, fmt.Errorf("docs: %s: %w", files.Schema, err)
	}
	if bytes.Count(doc, documentedServerYAML) != 1 || bytes.Count(asJSON, documentedServerJSON) != 1 {
		return nil, fmt.Errorf("docs: %s must name / as its one server", files.Schema)
	}
	s := &site{yaml: doc, json: asJSON, assets: map[string]asset{}}
	for name, contentType := range uiFiles {
		body, err := os.ReadFile(filepath.Join(files.UI, name))
		if err != nil {
			return nil, fmt.Errorf("docs: Swagger UI (build-DocsFunction copies it beside the bootstrap; "+
				"infra/scripts/docs-assets.sh installs it for make run and make test): %w", err)
		}
		s.assets[name] = newAsset(contentType, body)
	}
	script, err := ownFiles.ReadFile("docs.js")
	if err != nil {
		return nil, err
	}
	s.assets["docs.js"] = newAsset("text/javascript; charset=utf-8", script)
	return s, nil
}

func newAsset(contentType string, body []byte) asset {
	sum := sha256.Sum256(body)
	return asset{contentType: contentType, body: body, version: hex.EncodeToString(sum[:6])}
}

// yamlToJSON converts the document for ?format=json. Objects come out with their keys sorted, which
// JSON does not make meaningful.
func yamlToJSON(doc []byte) ([]byte, error) {
	var v any
	if err := yaml.Unmarshal(doc, &v); err != nil {
		return nil, err
	}
	return httpapi.MarshalJSON(v)
}

// schema answers the document: YAML, or JSON with ?format=json. Another format is DRF's 404, as when
// no renderer matches a format override.
func schema(w http.ResponseWriter, r *http.Request, load func() (*site, error)) error {
	var contentType string
	switch httpapi.LastValue(r.URL.Query(), "format") {
	case "", "yaml":
		contentType = SchemaYAML
	case "json":
		contentType = SchemaJSON
	default:
		return domain.NotFound()
	}
	s, err := load()
	if err != nil {
		return err
	}
	body := s.yaml
	if contentType == SchemaJSON {
		body = s.json
	}
	write(w, contentType, "no-cache", withServer(body, r, contentType == SchemaJSON))
	return nil
}

// withServer is doc with its server replaced by the base path of r, written as a JSON string (which
// YAML reads as the same string).
func withServer(doc []byte, r *http.Request, asJSON bool) []byte {
	base := httpapi.BasePath(r.Context())
	if base == "" {
		return doc
	}
	server, _ := json.Marshal(base)
	if asJSON {
		return bytes.Replace(doc, documentedServerJSON, append([]byte(`"url":`), server...), 1)
	}
	return bytes.Replace(doc, documentedServerYAML, append(append([]byte("\n  - url: "), server...), '\n'), 1)
}

func docsPage(w http.ResponseWriter, r *http.Request, load func() (*site, error)) error {
	s, err := load()
	if err != nil {
		return err
	}
	// Links are absolute paths under the stage the client called (/Prod/api/...), so that the page
	// works at /api/docs and /api/docs/ alike.
	base := httpapi.BasePath(r.Context())
	link := func(name string) string { return base + "/api/docs/" + name + "?v=" + s.assets[name].version }
	var buf bytes.Buffer
	err = page.Execute(&buf, map[string]string{
		"Schema": base + "/api/schema/",
		"CSS":    link("swagger-ui.css"),
		"Bundle": link("swagger-ui-bundle.js"),
		"Start":  link("docs.js"),
	})
	if err != nil {
		return err
	}
	w.Header().Set("Content-Security-Policy", contentSecurityPolicy)
	write(w, "text/html; charset=utf-8", "no-cache", buf.Bytes())
	return nil
}

// file answers one of the page's files. The page links them with their version, so a browser may keep
// them a day.
func file(w http.ResponseWriter, r *http.Request, load func() (*site, error)) error {
	name := r.PathValue("asset")
	if _, ok := uiFiles[name]; !ok && name != "docs.js" {
		return domain.NotFound()
	}
	s, err := load()
	if err != nil {
		return err
	}
	a := s.assets[name]
	write(w, a.contentType, "public, max-age=86400", a.body)
	return nil
}

func write(w http.ResponseWriter, contentType, cacheControl string, body []byte) {
	h := w.Header()
	h.Set("Content-Type", contentType)
	h.Set("Cache-Control", cacheControl)
	h.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(body)
}
