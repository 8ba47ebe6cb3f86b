package invitations_test

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/google/uuid"
	"github.com/reportingplatform/api/infra/testkit"
	"github.com/reportingplatform/api/shared/domain"
)

const listPath = "/api/v1/organization-invitations/"

func (w *world) post(t *testing.T, token, body string) testkit.Response {
	t.Helper()
	return testkit.Do(t, w.gw, testkit.Request{Method: "POST", Path: listPath, Token: token, Body: body})
}

// invitationCount is how many invitations staff can list.
func (w *world) invitationCount(t *testing.T) int {
	t.Helper()
	resp := testkit.Do(t, w.gw,
		testkit.Request{Method: "GET", Path: listPath + "?page_size=1", Token: w.token(t, w.staff)})
	if resp.Status != 200 {
		t.Fatalf("list: %d %s", resp.Status, resp.Body)
	}
	return int(resp.Object(t)["count"].(float64))
}

func TestCreateInvitation(t *testing.T) {
	w := newWorld(t)
	email := "New.Person-" + uuid.NewString()[:8] + "@Example.com"
	body := fmt.Sprintf(`{"organization_id": %q, "email": %q, "first_name": "Nina", "role": 1,
		"accessible_portfolio_ids": [%q, %q], "token": "ignored", "status": 4, "email_sent": true}`, w.acme.ID,
		email, w.zeta.ID, w.alpha.ID)
	resp := w.post(t, w.token(t, w.admin), body)
	if resp.Status != 201 {
		t.Fatalf("%d %s", resp.Status, resp.Body)
	}
	got := resp.Object(t)
	id, token := got["id"].(string), got["token"].(string)
	if _, err := uuid.Parse(id); err != nil {
		t.Fatalf("id %q", id)
	}
	if _, err := uuid.Parse(token); err != nil || token == "ignored" {
		t.Fatalf("token %q", token)
	}
	want := shape{
		ID: id, Token: token, ExpiryDate: domain.FormatTime(w.now.Add(ttl)),
		Organization: orgShape{w.acme.ID, w.acme.Name}, Inviter: inviterShape{w.adminMember, "Ada", "Admin", w.admin.Email},
		Email: email, EmailSent: true, Status: 0, FirstName: domain.Ptr("Nina"), Role: 1,
	}
	want.withPortfolios(w.zeta, w.alpha)
	resp.Expect(t, 201, want.JSON(t))
	// What was stored reads the same, and the e-mail went to the invitee with the token.
	w.get(t, w.token(t, w.member), id).Expect(t, 200, want.JSON(t))
	mails := w.mail.all()
	if len(mails) != 1 {
		t.Fatalf("%d mails handed over", len(mails))
	}
	m := mails[0]
	if m.To != email || m.Token != token || m.OrganizationName != w.acme.Name || m.InviterEmail != w.admin.Email ||
		m.InviterName != "Ada Admin" || m.Role != domain.RoleCollaborator || domain.Deref(m.FirstName) != "Nina" {
		t.Fatalf("mail %+v", m)
	}

	// The same address again, in another case: a pending invitation exists.
	again := fmt.Sprintf(`{"organization_id": %q, "email": %q}`, w.acme.ID, strings.ToUpper(email))
	w.post(t, w.token(t, w.admin), again).Expect(t, 400,
		`{"email": ["This email already has a pending invitation to this organization."]}`)
	// Once it is no longer pending, another may be made; to another organization at any time.
	w.patch(t, w.token(t, w.admin), id, `{"status": 4}`)
	if r := w.post(t, w.token(t, w.admin), again); r.Status != 201 {
		t.Fatalf("after revoking: %d %s", r.Status, r.Body)
	}
	if r := w.post(t, w.token(t, w.globexAdmin),
		fmt.Sprintf(`{"organization_id": %q, "email": %q}`, w.globex.ID, email)); r.Status != 201 {
		t.Fatalf("another organization: %d %s", r.Status, r.Body)
	}
	// A member of the organization is not invited again.
	w.post(t, w.token(t, w.admin), fmt.Sprintf(`{"organization_id": %q, "email": %q}`, w.acme.ID, upper(w.member.Email))).
		Expect(t, 400, `{"email": ["A member with this email already exists."]}`)
}

func TestCreateInvitationRefusals(t *testing.T) {
	w := newWorld(t)
	email := "x-" + uuid.NewString()[:8] + "@example.com"
	body := func(org string) string { return fmt.Sprintf(`{"organization_id": %q, "email": %q}`, org, email) }
	noSuchOrg := func(org string) string {
		return `{"organization_id": ["Invalid pk \"` + org + `\" - object does not exist."]}`
	}
	unknown := uuid.NewString()
	staffMember := w.db.User(t, testkit.NewUser{Staff: true})
	w.load(t,
		map[string]any{"members": []any{map[string]any{"id": uuid.NewString(), "organization_id": w.acme.ID,
			"user_id": staffMember.ID, "role": 0}}})
	w.invitation(t, spec{email: w.collab.Email}) // a member with a pending invitation (the loader allows it)
	memberExists := `{"email": ["A member with this email already exists."]}`
	before := w.invitationCount(t)
	for _, tc := range []struct {
		name   string
		caller domain.User
		body   string
		status int
		want   string
	}{
		{"a member who does not administer it", w.member, body(w.acme.ID), 400, noSuchOrg(w.acme.ID)},
		{"a collaborator", w.collab, body(w.acme.ID), 400, noSuchOrg(w.acme.ID)},
		{"an administrator of another organization", w.globexAdmin, body(w.acme.ID), 400, noSuchOrg(w.acme.ID)},
		{"staff who are not members", w.staff, body(w.acme.ID), 400, noSuchOrg(w.acme.ID)},
		{"an organization that does not exist", w.admin, body(unknown), 400, noSuchOrg(unknown)},
		{"nothing", w.admin, `{}`, 400,
			`{"organization_id": ["This field is required."], "email": ["This field is required."]}`},
		{"bad values", w.admin,
			`{"organization_id": "x", "email": "not-an-email", "role": 3, "first_name": [], ` +
				`"accessible_portfolio_ids": "a"}`, 400,
			`{"organization_id": ["Must be a valid UUID."], "email": ["Enter a valid email address."],
			  "role": ["\"3\" is not a valid choice."], "first_name": ["Not a valid string."],
			  "accessible_portfolio_ids": ["Expected a list of items but got type \"str\"."]}`},
		{"a portfolio of another organization", w.admin,
			fmt.Sprintf(`{"organization_id": %q, "email": %q, "accessible_portfolio_ids": [%q, %q]}`, w.acme.ID, email,
				w.mid.ID, w.beta.ID), 400,
			`{"accessible_portfolio_ids": ["Invalid pk \"` + w.beta.ID + `\" - object does not exist."]}`},
		{"a list body", w.admin, `[]`, 400, `{"non_field_errors": ["Invalid data. Expected a dictionary, but got list."]}`},
		// The write refuses a member's address; a request refused for another reason names it too.
		{"a member's address", w.admin,
			fmt.Sprintf(`{"organization_id": %q, "email": %q}`, w.acme.ID, w.member.Email), 400, memberExists},
		{"a member's address and a portfolio of another organization", w.admin,
			fmt.Sprintf(`{"organization_id": %q, "email": %q, "accessible_portfolio_ids": [%q]}`, w.acme.ID,
				w.member.Email, w.beta.ID), 400,
			`{"email": ["A member with this email already exists."], "accessible_portfolio_ids": ["Invalid pk \"` +
				w.beta.ID + `\" - object does not exist."]}`},
		{"a member's address with a pending invitation", w.admin,
			fmt.Sprintf(`{"organization_id": %q, "email": %q}`, w.acme.ID, upper(w.collab.Email)), 400, memberExists},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w.post(t, w.token(t, tc.caller), tc.body).Expect(t, tc.status, tc.want)
		})
	}
	t.Run("no credentials", func(t *testing.T) {
		w.post(t, "", body(w.acme.ID)).Expect(t, 401, `{"detail": "Authentication credentials were not provided."}`)
	})
	if after := w.invitationCount(t); after != before || len(w.mail.all()) != 0 {
		t.Fatalf("refusals wrote %d invitations and sent %d mails", after-before, len(w.mail.all()))
	}
	// Staff who are members of it may invite, whatever their role.
	if r := w.post(t, w.token(t, staffMember), body(w.acme.ID)); r.Status != 201 {
		t.Fatalf("staff member: %d %s", r.Status, r.Body)
	}
}

// TestCreateInvitationMailFailureLeavesEmailSentFalse: SPEC §10, the 201 stands.
func TestCreateInvitationMailFailureLeavesEmailSentFalse(t *testing.T) {
	w := newWorld(t)
	w.mail.fail(true)
	resp := w.post(t, w.token(t, w.admin),
		fmt.Sprintf(`{"organization_id": %q, "email": "late-%s@example.com"}`, w.acme.ID, uuid.NewString()[:8]))
	if resp.Status != 201 || resp.Object(t)["email_sent"] != false {
		t.Fatalf("%d %s", resp.Status, resp.Body)
	}
	id := resp.Object(t)["id"].(string)
	if got := w.get(t, w.token(t, w.admin), id).Object(t)["email_sent"]; got != false {
		t.Fatalf("stored email_sent %v", got)
	}
}

// TestConcurrentCreatesOfOneInvitation: of 10 creates of the same address at once, one is made.
func TestConcurrentCreatesOfOneInvitation(t *testing.T) {
	w := newWorld(t)
	body := fmt.Sprintf(`{"organization_id": %q, "email": "race-%s@example.com"}`, w.acme.ID, uuid.NewString()[:8])
	token := w.token(t, w.admin)
	statuses := make([]int, 10)
	var wg sync.WaitGroup
	for i := range statuses {
		wg.Add(1)
		go func() {
			defer wg.Done()
			t := testkit.InGoroutine(t)
			resp := testkit.Do(t, w.gw, testkit.Request{Method: "POST", Path: listPath, Token: token, Body: body})
			statuses[i] = resp.Status
			if resp.Status == 400 &&
				!testkit.JSONEqual(resp.Body,
					[]byte(`{"email": ["This email already has a pending invitation to this organization."]}`)) {
				t.Errorf("400 %s", resp.Body)
			}
		}()
	}
	wg.Wait()
	created := 0
	for _, s := range statuses {
		if s == 201 {
			created++
		} else if s != 400 {
			t.Fatalf("statuses %v", statuses)
		}
	}
	if created != 1 || w.invitationCount(t) != 1 {
		t.Fatalf("statuses %v, %d listed", statuses, w.invitationCount(t))
	}
}

func TestDeleteInvitation(t *testing.T) {
	w := newWorld(t)
	id := w.invitation(t, spec{})
	del := func(u domain.User, id string) testkit.Response {
		return testkit.Do(t, w.gw, testkit.Request{Method: "DELETE", Path: listPath + id + "/", Token: w.token(t, u)})
	}
	del(w.member, id).Expect(t, 403, `{"detail": "You do not have permission to perform this action."}`)
	del(w.invitee, id).Expect(t, 403, `{"detail": "You do not have permission to perform this action."}`)
	del(w.outsider, id).Expect(t, 404, `{"detail": "Not found."}`)
	del(w.globexAdmin, id).Expect(t, 404, `{"detail": "Not found."}`)
	del(w.admin, "nope").Expect(t, 404, `{"detail": "Not found."}`)
	w.unchanged(t, id, w.before(t, id))
	if r := del(w.admin, id); r.Status != 204 || len(r.Body) != 0 {
		t.Fatalf("%d %q", r.Status, r.Body)
	}
	w.get(t, w.token(t, w.staff), id).Expect(t, 404, `{"detail": "Not found."}`)
	del(w.admin, id).Expect(t, 404, `{"detail": "Not found."}`)
	other := w.invitation(t, spec{org: w.globex})
	if r := del(w.staff, other); r.Status != 204 {
		t.Fatalf("staff: %d %s", r.Status, r.Body)
	}
	// A deleted pending invitation no longer blocks a new one to its address.
	if r := w.post(t, w.token(t, w.admin),
		fmt.Sprintf(`{"organization_id": %q, "email": %q}`, w.acme.ID, w.invitee.Email)); r.Status != 201 {
		t.Fatalf("%d %s", r.Status, r.Body)
	}
}

// TestListCreateDeleteCallBudget holds SPEC §10's invitation operations to their sequential round trips:
// the list 3 (the session; the counts of its sources beside their index entries up to the page, in one
// parallel step; the page's invitations), 2 when it shows none; the list waits for the session whatever it lists
// (SPEC §9: nothing of it is read for a caller who is nobody); create 4 (the session with the quota and the
// handful of items the body names; once the caller is known, the portfolios beside the address's
// invitations; the transaction, which counts the invitation and checks that the address's user is not a
// member; email_sent); delete 2.
func TestListCreateDeleteCallBudget(t *testing.T) {
	w := newWorld(t)
	w.invitation(t, spec{})
	w.invitation(t, spec{org: w.globex, email: w.invitee.Email})
	doomed := w.invitation(t, spec{email: "doomed@example.com"})
	for _, tc := range []struct {
		name, method, path, body string
		caller                   domain.User
		status, budget           int
	}{
		// The session, the list's counts beside the index entries up to the page, the page's invitations.
		{"list as a member", "GET", listPath, "", w.member, 200, 3},
		{"list as a member, again", "GET", listPath + "?page_size=5", "", w.member, 200, 3},
		{"list as the invitee", "GET", listPath, "", w.invitee, 200, 3},
		{"list as staff", "GET", listPath, "", w.staff, 200, 3},
		{"list as staff, again", "GET", listPath, "", w.staff, 200, 3},
		{"list of one organization as staff", "GET", listPath + "?organization=" + w.acme.ID, "", w.staff, 200, 3},
		{"list of one organization as a member", "GET", listPath + "?organization=" + w.acme.ID, "", w.admin, 200, 3},
		// Not a member of it: the invitations to their own address from it.
		{"list of another's organization as the invitee", "GET", listPath + "?organization=" + w.globex.ID, "",
			w.invitee, 200, 3},
		// Shows none: no invitation to read.
		{"list of nothing", "GET", listPath + "?organization=" + w.globex.ID, "", w.member, 200, 2},
		{"create", "POST", listPath,
			fmt.Sprintf(`{"organization_id": %q, "email": "b-%s@example.com"}`, w.acme.ID, uuid.NewString()[:8]),
			w.admin, 201, 4},
		{"create for an address with an account", "POST", listPath,
			fmt.Sprintf(`{"organization_id": %q, "email": %q}`, w.acme.ID, w.outsider.Email), w.admin, 201, 4},
		{"create refused", "POST", listPath,
			fmt.Sprintf(`{"organization_id": %q, "email": "c@example.com"}`, w.acme.ID), w.member, 400, 1},
		// The transaction's check refuses a member's address.
		{"create for a member", "POST", listPath,
			fmt.Sprintf(`{"organization_id": %q, "email": %q}`, w.acme.ID, w.member.Email), w.admin, 400, 3},
		// Refused for a pending invitation: whether the address is a member's is read, to be named first.
		{"create for an address with an account and a pending invitation", "POST", listPath,
			fmt.Sprintf(`{"organization_id": %q, "email": %q}`, w.acme.ID, w.invitee.Email), w.admin, 400, 3},
		{"delete", "DELETE", listPath + doomed + "/", "", w.admin, 204, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tok := w.token(t, tc.caller)
			w.db.Calls.Reset()
			w.db.Calls.SimulateLatency(testkit.BudgetLatency)
			resp := testkit.Do(t, w.gw, testkit.Request{Method: tc.method, Path: tc.path, Token: tok, Body: tc.body})
			if resp.Status != tc.status {
				t.Fatalf("status %d: %s", resp.Status, resp.Body)
			}
			if n := w.db.Calls.Sequential(); n != tc.budget {
				t.Fatalf("%d sequential DynamoDB calls (%v), want %d", n, w.db.Calls, tc.budget)
			}
		})
	}
}
