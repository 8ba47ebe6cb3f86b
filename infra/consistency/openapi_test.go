package consistency_test

import (
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/reportingplatform/api/infra/wiring"
)

// TestResponseSchemasRequireEveryField: the handlers write every field of a response body, null or
// not, so every property of every object a response holds is in its schema's required list. Then a
// response that lacks one fails infra/contract's validation in whichever test received it. It walks
// every response of every operation of openapi.yaml, so new operations are held to it as they come.
func TestResponseSchemasRequireEveryField(t *testing.T) {
	_, root := loadTemplate(t)
	doc, err := openapi3.NewLoader().LoadFromFile(filepath.Join(root, "openapi.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	seen := map[*openapi3.Schema]bool{}
	var problems []string
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			for status, resp := range op.Responses.Map() {
				for media, content := range resp.Value.Content {
					where := strings.ToUpper(method) + " " + path + " " + status + " " + media
					problems = append(problems, requiredProblems(where, "body", content.Schema, seen)...)
				}
			}
		}
	}
	sort.Strings(problems)
	for _, p := range problems {
		t.Error(p)
	}
}

// requiredProblems lists the properties of the schema at ref, and of the schemas within it, that are not
// required, and required names that are no property. Each schema is looked at once, named by its
// component where it has one, else by where it is in the first response that holds it.
func requiredProblems(where, at string, ref *openapi3.SchemaRef, seen map[*openapi3.Schema]bool) []string {
	if ref == nil || ref.Value == nil || seen[ref.Value] {
		return nil
	}
	s := ref.Value
	seen[s] = true
	name := at + " of " + where
	if ref.Ref != "" {
		name = ref.Ref + " (" + at + " of " + where + ")"
	}
	var out []string
	for prop, p := range s.Properties {
		if !slices.Contains(s.Required, prop) {
			out = append(out, name+": property "+prop+" is not in required")
		}
		out = append(out, requiredProblems(where, at+"."+prop, p, seen)...)
	}
	if len(s.Properties) > 0 {
		for _, r := range s.Required {
			if _, ok := s.Properties[r]; !ok {
				out = append(out, name+": required "+r+" is no property")
			}
		}
	}
	out = append(out, requiredProblems(where, at+"[]", s.Items, seen)...)
	for _, group := range [][]*openapi3.SchemaRef{s.AllOf, s.AnyOf, s.OneOf} {
		for _, sub := range group {
			out = append(out, requiredProblems(where, at, sub, seen)...)
		}
	}
	return append(out, requiredProblems(where, at+"{}", s.AdditionalProperties.Schema, seen)...)
}

// TestTokenNeedsAgree: a route needs a token in the router (Handle; HandleOpen for none) exactly when
// openapi.yaml's operation does (the document's bearerAuth, unless the operation says `security: []`).
// The router's notion decides SPEC §1's order of checks (401 before 405); the document tells clients.
func TestTokenNeedsAgree(t *testing.T) {
	_, root := loadTemplate(t)
	doc, err := openapi3.NewLoader().LoadFromFile(filepath.Join(root, "openapi.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	open := map[string]bool{} // "METHOD path" of openapi.yaml, path without its trailing slash
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			open[strings.ToUpper(method)+" "+normal(path)] = op.Security != nil && len(*op.Security) == 0
		}
	}
	for _, r := range wiring.Routes() {
		key := r.Method + " " + normal(r.Pattern)
		if want, declared := open[key]; declared && r.Open != want {
			t.Errorf("%s serves %s needing a token: %v; openapi.yaml: %v", r.Function, key, !r.Open, !want)
		}
	}
}
