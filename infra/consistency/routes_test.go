package consistency_test

import (
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/reportingplatform/api/infra/contract"
	"github.com/reportingplatform/api/infra/testkit"
	"github.com/reportingplatform/api/infra/wiring"
	"github.com/reportingplatform/api/shared/config"
)

// normal drops the trailing slash: API Gateway routes both forms to one resource, and so do our routers.
func normal(path string) string { return strings.TrimSuffix(path, "/") }

// TestRoutesAgree fails when template.yaml declares a route no handler serves, or a handler serves a
// route that template.yaml (for that same function) and openapi.yaml do not declare, or openapi.yaml
// declares an operation nobody serves.
func TestRoutesAgree(t *testing.T) {
	routes := templateRoutes(t)
	ops, err := contract.Operations()
	if err != nil {
		t.Fatal(err)
	}
	declared := map[string]bool{} // "METHOD path" of openapi.yaml, exact
	for _, op := range ops {
		declared[op.Method+" "+op.Path] = true
	}
	handlers := wiring.Handlers(nil, testkit.Log(t), config.Config{}, time.Now)

	templatePaths := map[string]string{} // normalised path → function
	for _, r := range routes {
		templatePaths[normal(r.Path)] = r.Function
		h, ok := handlers[r.Function]
		if !ok {
			t.Errorf("template.yaml routes %s %s to %s, which has no handler", r.Method, r.Path, r.Function)
			continue
		}
		served := false
		for _, hr := range h.Routes() {
			if normal(hr.Pattern) == normal(r.Path) && (r.Method == "ANY" || r.Method == hr.Method) {
				served = true
			}
		}
		if !served {
			t.Errorf("template.yaml declares %s %s for %s, which serves no such route", r.Method, r.Path, r.Function)
		}
	}
	served := map[string]bool{}
	for id, h := range handlers {
		for _, hr := range h.Routes() {
			key := hr.Method + " " + hr.Pattern
			served[key] = true
			if !declared[key] {
				t.Errorf("%s serves %s, which openapi.yaml does not declare", id, key)
			}
			if fn := templatePaths[normal(hr.Pattern)]; fn != id {
				t.Errorf("%s serves %s, but template.yaml routes that path to %q", id, key, fn)
			}
		}
	}
	var missing []string
	for key := range declared {
		if !served[key] {
			missing = append(missing, key)
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("openapi.yaml declares operations no handler serves: %v", missing)
	}
}
