package invitations_test

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/google/uuid"
	"github.com/reportingplatform/api/infra/testkit"
)

// TestWhatInvitationsShowFollowsTheLoader: an invitation carries a copy of its organization's name, its
// inviter's names and email and its portfolios, so that a GET reads nothing after the session and a list
// nothing after the invitations. The loader, which alone renames organizations, portfolios and users,
// brings every copy it affects up to date: invitations it loaded and invitations the API created alike.
func TestWhatInvitationsShowFollowsTheLoader(t *testing.T) {
	w := newWorld(t)
	loaded := w.invitation(t, spec{portfolios: []ref{w.zeta, w.alpha, w.mid}})
	resp := testkit.Do(t, w.gw,
		testkit.Request{Method: "POST", Path: listPath, Token: w.token(t, w.admin), Body: fmt.Sprintf(
			`{"organization_id": %q, "email": "new-%s@example.com", "accessible_portfolio_ids": [%q, %q]}`, w.acme.ID,
			uuid.NewString()[:8], w.zeta.ID, w.mid.ID)})
	var made struct{ ID string }
	if err := json.Unmarshal(resp.Body, &made); err != nil || resp.Status != 201 {
		t.Fatalf("create: %d %s", resp.Status, resp.Body)
	}
	globex := w.invitation(t, spec{org: w.globex, portfolios: []ref{w.beta}})
	untouched := w.before(t, globex)

	adele := "adele-" + uuid.NewString()[:8] + "@example.com"
	w.load(t, map[string]any{
		"users":         []any{map[string]any{"id": w.admin.ID, "email": adele, "first_name": "Adele", "last_name": "Admin"}},
		"organizations": []any{map[string]any{"id": w.acme.ID, "name": "Acme Analytics"}},
		"portfolios": []any{
			map[string]any{"id": w.zeta.ID, "organization_id": w.acme.ID, "name": "Aardvark"},
			map[string]any{"id": w.alpha.ID, "organization_id": w.globex.ID, "name": "Alpha"}, // no longer Acme's
		},
	})
	renamed := func(id string) shape {
		s := w.before(t, id)
		s.Organization.Name = "Acme Analytics"
		s.Inviter = inviterShape{w.adminMember, "Adele", "Admin", adele}
		s.withPortfolios(ref{w.zeta.ID, "Aardvark"}, w.mid)
		return s
	}
	want := map[string]shape{loaded: renamed(loaded), made.ID: renamed(made.ID), globex: untouched}

	tok := w.token(t, w.staff)
	for id, s := range want {
		w.db.Calls.Reset()
		w.db.Calls.SimulateLatency(testkit.BudgetLatency)
		w.get(t, tok, id).Expect(t, 200, s.JSON(t))
		if n := w.db.Calls.Sequential(); n != 1 {
			t.Fatalf("GET %s: %d sequential DynamoDB calls (%v), want 1: the session with the invitation", id, n, w.db.Calls)
		}
	}
	resp = testkit.Do(t, w.gw, testkit.Request{Method: "GET", Path: listPath, Token: tok})
	var page struct{ Results []shape }
	if err := json.Unmarshal(resp.Body, &page); err != nil || resp.Status != 200 {
		t.Fatalf("list: %d %s", resp.Status, resp.Body)
	}
	if len(page.Results) != len(want) {
		t.Fatalf("list shows %d invitations, want %d: %s", len(page.Results), len(want), resp.Body)
	}
	for _, got := range page.Results {
		if got.JSON(t) != want[got.ID].JSON(t) {
			t.Errorf("listed\n%s\nwant\n%s", got.JSON(t), want[got.ID].JSON(t))
		}
	}
}
