package invitations_test

import (
	"strings"
	"testing"

	"github.com/reportingplatform/api/infra/testkit"
	"github.com/reportingplatform/api/shared/domain"
)

// loginOrganizations logs u in through the auth function and returns its `organizations` value.
func (w *world) loginOrganizations(t *testing.T, u domain.User) string {
	t.Helper()
	resp := testkit.Do(t, w.gw, testkit.Request{Method: "POST", Path: "/api/v1/auth/login",
		Body: testkit.MustJSON(t, map[string]string{"username": u.Email, "password": testkit.DefaultPassword})})
	if resp.Status != 201 {
		t.Fatalf("login of %s: %d %s", u.Email, resp.Status, resp.Body)
	}
	orgs, _ := resp.Object(t)["organizations"].(string)
	return orgs
}

func orgsJSON(entries ...string) string { return "[" + strings.Join(entries, ", ") + "]" }

func orgEntry(org ref, role string) string {
	return `{"id": "` + org.ID + `", "name": "` + org.Name + `", "role": ` + role + `}`
}

func expectOrgs(t *testing.T, got, want string) {
	t.Helper()
	if !testkit.JSONEqual([]byte(got), []byte(want)) {
		t.Fatalf("login organizations %s, want %s", got, want)
	}
}

// TestAcceptingMakesTheInviteeAMember: the status change and the membership are one write; the new
// organization then shows in the invitee's login and gives the invitee a member's rights.
func TestAcceptingMakesTheInviteeAMember(t *testing.T) {
	w := newWorld(t)
	expectOrgs(t, w.loginOrganizations(t, w.invitee), `[]`)
	id := w.invitation(t, spec{role: 1})
	other := w.invitation(t, spec{email: "someone.else@example.com"})
	w.get(t, w.token(t, w.invitee), other).Expect(t, 404, notFound)

	want := w.saved(w.before(t, id))
	want.Status = 1
	w.patch(t, w.token(t, w.invitee), id, `{"status": 1}`).Expect(t, 200, want.JSON(t))

	expectOrgs(t, w.loginOrganizations(t, w.invitee), orgsJSON(orgEntry(w.acme, "1")))
	// Authentication reads the memberships afresh: the same token now reads the organization's invitations.
	w.get(t, w.token(t, w.invitee), other).Expect(t, 200, w.before(t, other).JSON(t))
	w.get(t, w.token(t, w.invitee), id).Expect(t, 200, want.JSON(t))

	t.Run("a second organization joins the first", func(t *testing.T) {
		gid := w.invitation(t, spec{org: w.globex, role: 2})
		want := w.saved(w.before(t, gid))
		want.Status = 1
		w.patch(t, w.token(t, w.invitee), gid, `{"status": "1"}`).Expect(t, 200, want.JSON(t))
		expectOrgs(t, w.loginOrganizations(t, w.invitee), orgsJSON(orgEntry(w.acme, "1"), orgEntry(w.globex, "2")))
	})
	t.Run("an existing membership is kept as it is", func(t *testing.T) {
		again := w.invitation(t, spec{role: 2})
		want := w.saved(w.before(t, again))
		want.Status = 1
		w.patch(t, w.token(t, w.invitee), again, `{"status": 1}`).Expect(t, 200, want.JSON(t))
		expectOrgs(t, w.loginOrganizations(t, w.invitee), orgsJSON(orgEntry(w.acme, "1"), orgEntry(w.globex, "2")))
	})
}

func TestAcceptingVariants(t *testing.T) {
	w := newWorld(t)
	t.Run("the role set before the invitee accepts is the member's", func(t *testing.T) {
		u := w.db.User(t, testkit.NewUser{})
		id := w.invitation(t, spec{email: u.Email})
		want := w.saved(w.before(t, id))
		want.Role = 2
		w.patch(t, w.token(t, w.admin), id, `{"role": 2}`).Expect(t, 200, want.JSON(t))
		want.Status = 1
		w.patch(t, w.token(t, u), id, `{"status": 1}`).Expect(t, 200, want.JSON(t))
		expectOrgs(t, w.loginOrganizations(t, u), orgsJSON(orgEntry(w.acme, "2")))
	})
	t.Run("readdressed, then accepted: the new address's user joins", func(t *testing.T) {
		u := w.db.User(t, testkit.NewUser{})
		id := w.invitation(t, spec{emailSent: true})
		want := w.saved(w.before(t, id))
		want.Email, want.EmailSent = upper(u.Email), false
		w.patch(t, w.token(t, w.staff), id, `{"email": "`+upper(u.Email)+`"}`).Expect(t, 200, want.JSON(t))
		w.patch(t, w.token(t, w.invitee), id, `{"status": 1}`).Expect(t, 404, notFound)
		want.Status = 1
		w.patch(t, w.token(t, u), id, `{"status": 1}`).Expect(t, 200, want.JSON(t))
		expectOrgs(t, w.loginOrganizations(t, u), orgsJSON(orgEntry(w.acme, "0")))
		expectOrgs(t, w.loginOrganizations(t, w.invitee), `[]`)
	})
	t.Run("moved, then accepted: the new organization is joined", func(t *testing.T) {
		u := w.db.User(t, testkit.NewUser{})
		id := w.invitation(t, spec{email: u.Email, portfolios: []ref{w.alpha}})
		want := w.saved(w.before(t, id))
		want.Organization = orgShape{w.globex.ID, "Globex"}
		want.withPortfolios()
		w.patch(t, w.token(t, w.staff), id, `{"organization_id": "`+w.globex.ID+`"}`).Expect(t, 200, want.JSON(t))
		want.Status = 1
		w.patch(t, w.token(t, u), id, `{"status": 1}`).Expect(t, 200, want.JSON(t))
		expectOrgs(t, w.loginOrganizations(t, u), orgsJSON(orgEntry(w.globex, "0")))
	})
	t.Run("a member accepting keeps the role they have", func(t *testing.T) {
		id := w.invitation(t, spec{email: w.member.Email, role: 2})
		want := w.saved(w.before(t, id))
		want.Status = 1
		w.patch(t, w.token(t, w.member), id, `{"status": 1}`).Expect(t, 200, want.JSON(t))
		expectOrgs(t, w.loginOrganizations(t, w.member), orgsJSON(orgEntry(w.acme, "0")))
	})
	t.Run("no account with the address: nobody can accept it for the invitee", func(t *testing.T) {
		id := w.invitation(t, spec{email: "no.account@example.com"})
		before := w.before(t, id)
		for _, u := range []domain.User{w.admin, w.staff} {
			w.patch(t, w.token(t, u), id, `{"status": 1}`).Expect(t, 403, forbidden)
		}
		w.unchanged(t, id, before)
	})
	t.Run("declining makes nobody a member", func(t *testing.T) {
		u := w.db.User(t, testkit.NewUser{})
		id := w.invitation(t, spec{email: u.Email})
		want := w.saved(w.before(t, id))
		want.Status = 2
		w.patch(t, w.token(t, u), id, `{"status": 2}`).Expect(t, 200, want.JSON(t))
		expectOrgs(t, w.loginOrganizations(t, u), `[]`)
	})
	t.Run("a refused acceptance makes nobody a member", func(t *testing.T) {
		u := w.db.User(t, testkit.NewUser{})
		for _, s := range []spec{{email: u.Email, status: 4}, {email: u.Email, expiry: w.now.Add(-1)}} {
			id := w.invitation(t, s)
			before := w.before(t, id)
			w.patch(t, w.token(t, u), id, `{"status": 1}`).Expect(t, 400, finalError(before.Status))
			w.unchanged(t, id, before)
		}
		expectOrgs(t, w.loginOrganizations(t, u), `[]`)
	})
	t.Run("accepting an accepted invitation again is a save that changes no membership", func(t *testing.T) {
		u := w.db.User(t, testkit.NewUser{})
		id := w.invitation(t, spec{email: u.Email, status: 1})
		want := w.saved(w.before(t, id))
		w.patch(t, w.token(t, u), id, `{"status": 1}`).Expect(t, 200, want.JSON(t))
		expectOrgs(t, w.loginOrganizations(t, u), `[]`)
	})
}

// TestPatchCallBudget holds PATCH to three sequential DynamoDB calls, authentication included: the
// session with the invitation, its references, the write; two when the change names no organization,
// portfolio or acceptance (the invitation carries what it shows). The counts are exact.
func TestPatchCallBudget(t *testing.T) {
	w := newWorld(t)
	for _, tc := range []struct {
		name   string
		caller domain.User
		body   string
		status int
		max    int
	}{
		{"acceptance with membership", w.invitee, `{"status": 1}`, 200, 3},
		{"every field", w.staff,
			`{"organization_id": "` + w.globex.ID + `", "accessible_portfolio_ids": ["` + w.beta.ID +
				`"], "email": "x@example.com", "first_name": "a", "last_name": "b", "role": 1, "status": 4}`, 200, 3},
		{"names, role, email, a status other than accepted", w.admin,
			`{"first_name": "a", "last_name": null, "role": 2, "email": "y@example.com", "status": 2}`, 200, 2},
		{"refused field", w.admin, `{"accessible_portfolio_ids": ["` + w.beta.ID + `"]}`, 400, 2},
		{"forbidden", w.member, `{"status": 1}`, 403, 1},
		{"an administrator accepting", w.admin, `{"status": 1}`, 403, 1},
		{"hidden", w.outsider, `{"status": 1}`, 404, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			id := w.invitation(t, spec{portfolios: []ref{w.alpha, w.zeta}})
			tok := w.token(t, tc.caller)
			w.db.Calls.Reset()
			w.db.Calls.SimulateLatency(testkit.BudgetLatency)
			if resp := w.patch(t, tok, id, tc.body); resp.Status != tc.status {
				t.Fatalf("status %d: %s", resp.Status, resp.Body)
			}
			if n := w.db.Calls.Sequential(); n != tc.max {
				t.Fatalf("PATCH made %d sequential DynamoDB calls (%v), want %d", n, w.db.Calls, tc.max)
			}
			if n := len(w.db.Calls.Ops()); n != tc.max {
				t.Fatalf("PATCH made %d DynamoDB calls (%v), want %d", n, w.db.Calls, tc.max)
			}
		})
	}
}
