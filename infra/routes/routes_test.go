package routes_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/reportingplatform/api/infra/gateway"
	"github.com/reportingplatform/api/infra/routes"
	"github.com/reportingplatform/api/infra/wiring"
)

// TestEveryServedRouteIsListed fails for a route template.yaml routes to a function, or a function
// serves, that has no entry in routes.All, and for an entry that no function serves: the lists of every
// route derive their cases from All, so a route missing there would be missing from every one of them.
func TestEveryServedRouteIsListed(t *testing.T) {
	tpl, err := gateway.FindTemplate()
	if err != nil {
		t.Fatal(err)
	}
	declared, err := gateway.LoadRoutes(tpl)
	if err != nil {
		t.Fatal(err)
	}
	served := wiring.Routes()
	for _, d := range declared {
		listed := slices.ContainsFunc(routes.All, func(r routes.Route) bool {
			return r.Function == d.Function && (d.Method == "ANY" || d.Method == r.Method) &&
				normal(r.Pattern) == normal(d.Path)
		})
		if !listed {
			t.Errorf("template.yaml routes %s %s to %s, and infra/routes has no entry for it: add one to All "+
				"(Method, Pattern, Function, Who or Open, Sample, Event)", d.Method, d.Path, d.Function)
		}
	}
	for _, s := range served {
		r, ok := routes.Lookup(s.Name())
		switch {
		case !ok:
			t.Errorf("%s serves %s, and infra/routes has no entry for it: add one to All "+
				"(Method, Pattern, Function, Who or Open, Sample, Event)", s.Function, s.Name())
		case r.Function != s.Function:
			t.Errorf("infra/routes gives %s to %s; %s serves it", s.Name(), r.Function, s.Function)
		case r.Open != s.Open:
			t.Errorf("infra/routes says %s is Open: %v; its router says %v", s.Name(), r.Open, s.Open)
		}
	}
	for _, r := range routes.All {
		if !slices.ContainsFunc(served, func(s wiring.Route) bool { return s.Name() == r.Name() }) {
			t.Errorf("infra/routes lists %s, which no function serves: remove its entry, or serve it", r.Name())
		}
	}
}

func normal(path string) string { return strings.TrimSuffix(path, "/") }

// TestEntriesAreWhole fails for an entry the lists cannot derive a case from: one listed twice, a
// protected route without an answer for every caller class, a Rejected outcome without its body, a
// sample of a caller class that is none, without a status, or that goes to another route, and a route
// without its event file.
func TestEntriesAreWhole(t *testing.T) {
	seen := map[string]bool{}
	for _, r := range routes.All {
		name := r.Name()
		if seen[name] {
			t.Errorf("%s is listed twice", name)
		}
		seen[name] = true
		switch {
		case r.Open && len(r.Who) > 0:
			t.Errorf("%s is Open, and Who says who may call it: an open route's callers are anyone", name)
		case !r.Open && len(r.Who) != len(routes.Users):
			t.Errorf("%s: Who has %d outcomes, want one for each of %v", name, len(r.Who), routes.Users)
		}
		if slices.Contains(r.Who, routes.Rejected) != (r.Rejected != "") {
			t.Errorf("%s: Rejected gives the body of the Rejected outcome, and only with it", name)
		}
		if r.Sample.As != "" && !slices.Contains(routes.Users, r.Sample.As) || r.Sample.As == "" && !r.Open {
			t.Errorf("%s: the sample is sent as %q, want one of %v (none for an open route)", name, r.Sample.As,
				routes.Users)
		}
		if !r.Open && r.Who[slices.Index(routes.Users, r.Sample.As)] != routes.Allowed {
			t.Errorf("%s: the sample is sent as %s, whom Who does not allow", name, r.Sample.As)
		}
		if r.Sample.Status < 200 || r.Sample.Status > 299 {
			t.Errorf("%s: the sample's status %d is no success", name, r.Sample.Status)
		}
		any := routes.World{Value: func(n string) (string, bool) { return fmt.Sprintf("x-%d", len(n)), true },
			Token: func(string) string { return "t" }, NewToken: func(string) string { return "t" }}
		req, err := r.In(any)
		if err != nil {
			t.Fatal(err)
		}
		if got, ok := routes.Of(req.Method, req.Path); !ok || got.Name() != name {
			t.Errorf("%s: the sample %s %s goes to %q", name, req.Method, req.Path, got.Name())
		}
		want := r.Function + "-" + strings.ToLower(r.Method) + "-"
		if r.Method == "DELETE" {
			want = r.Function + "-delete"
		}
		if !strings.HasPrefix(r.Event, want) || !strings.HasSuffix(r.Event, ".json") {
			t.Errorf("%s: its event file %q, want %s…json", name, r.Event, want)
		}
	}
}
