package invitations_test

import (
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/reportingplatform/api/infra/testkit"
	"github.com/reportingplatform/api/shared/domain"
)

const (
	forbidden = `{"detail": "You do not have permission to perform this action."}`
	notFound  = `{"detail": "Not found."}`
)

// TestPatchPermissions covers SPEC §3's PATCH row: staff and the organization's administrators change
// anything; the invitee only accepts or declines; whoever may read but not change gets 403, everyone
// else 404. Each case has an invitation of its own.
func TestPatchPermissions(t *testing.T) {
	w := newWorld(t)
	memberInvitee := spec{email: w.member.Email} // the invitee is also a plain member of the organization
	for _, tc := range []struct {
		name   string
		caller func() domain.User
		invite spec
		body   string
		status int
		edit   func(*shape) // the change a 200 makes
	}{
		{"staff", func() domain.User { return w.staff }, spec{}, `{"first_name": "Bo"}`, 200,
			func(s *shape) { s.FirstName = domain.Ptr("Bo") }},
		{"superuser", func() domain.User { return w.superuser }, spec{}, `{"role": 2}`, 200, func(s *shape) { s.Role = 2 }},
		{"administrator", func() domain.User { return w.admin }, spec{}, `{"status": 4}`, 200,
			func(s *shape) { s.Status = 4 }},
		{"member", func() domain.User { return w.member }, spec{}, `{"first_name": "Bo"}`, 403, nil},
		{"collaborator", func() domain.User { return w.collab }, spec{}, `{"status": 1}`, 403, nil},
		{"administrator of another organization", func() domain.User { return w.globexAdmin }, spec{},
			`{"status": 4}`, 404, nil},
		{"no tie to it", func() domain.User { return w.outsider }, spec{}, `{"status": 1}`, 404, nil},
		{"invitee accepts", func() domain.User { return w.invitee }, spec{}, `{"status": 1}`, 200,
			func(s *shape) { s.Status = 1 }},
		{"invitee declines", func() domain.User { return w.invitee }, spec{}, `{"status": 2}`, 200,
			func(s *shape) { s.Status = 2 }},
		{"invitee accepts with a string", func() domain.User { return w.invitee }, spec{}, `{"status": "1"}`, 200,
			func(s *shape) { s.Status = 1 }},
		{"invitee's unknown and read-only fields are ignored", func() domain.User { return w.invitee }, spec{},
			`{"status": 2, "id": "` + uuid.NewString() +
				`", "token": "x", "email_sent": true, "expiry_date": "2000-01-01T00:00:00Z", "colour": "red"}`,
			200, func(s *shape) { s.Status = 2 }},
		{"invitee revokes", func() domain.User { return w.invitee }, spec{}, `{"status": 4}`, 403, nil},
		{"invitee sets pending", func() domain.User { return w.invitee }, spec{}, `{"status": 0}`, 403, nil},
		{"invitee sends a bad status", func() domain.User { return w.invitee }, spec{}, `{"status": "yes"}`, 403, nil},
		{"invitee accepts and renames", func() domain.User { return w.invitee }, spec{},
			`{"status": 1, "first_name": "Bo"}`, 403, nil},
		{"invitee accepts with a role", func() domain.User { return w.invitee }, spec{}, `{"status": 1, "role": 2}`,
			403, nil},
		{"invitee renames", func() domain.User { return w.invitee }, spec{}, `{"last_name": null}`, 403, nil},
		{"invitee saves without change", func() domain.User { return w.invitee }, spec{}, `{}`, 403, nil},
		{"invitee who is a member declines", func() domain.User { return w.member }, memberInvitee, `{"status": 2}`,
			200, func(s *shape) { s.Status = 2 }},
		{"invitee who is a member changes the role", func() domain.User { return w.member }, memberInvitee,
			`{"role": 2}`, 403, nil},
		// Accepting is the invitee's alone (SPEC §3): TestOnlyTheInviteeAccepts has the memberships.
		{"staff accepts for the invitee", func() domain.User { return w.staff }, spec{}, `{"status": 1}`, 403, nil},
		{"superuser accepts for the invitee", func() domain.User { return w.superuser }, spec{}, `{"status": "1"}`,
			403, nil},
		{"administrator accepts for the invitee", func() domain.User { return w.admin }, spec{}, `{"status": 1}`, 403,
			nil},
		{"administrator accepts with another change", func() domain.User { return w.admin }, spec{},
			`{"first_name": "Bo", "status": 1}`, 403, nil},
		{"administrator sets accepted on an accepted invitation: a save", func() domain.User { return w.admin },
			spec{status: 1}, `{"status": 1, "first_name": "Bo"}`, 200, func(s *shape) { s.FirstName = domain.Ptr("Bo") }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			id := w.invitation(t, tc.invite)
			before := w.before(t, id)
			resp := w.patch(t, w.token(t, tc.caller()), id, tc.body)
			switch tc.status {
			case 200:
				want := w.saved(before)
				tc.edit(&want)
				resp.Expect(t, 200, want.JSON(t))
				w.get(t, w.token(t, w.staff), id).Expect(t, 200, want.JSON(t))
			case 403:
				resp.Expect(t, 403, forbidden)
				w.unchanged(t, id, before)
			case 404:
				resp.Expect(t, 404, notFound)
				w.unchanged(t, id, before)
			}
		})
	}
}

// TestOnlyTheInviteeAccepts: SPEC §3 and §5. Status 1 on an invitation that is not accepted yet is the
// invitee's own request: staff, a superuser and the organization's administrator get 403 whatever else
// the PATCH holds, and nothing changes; the invitee's acceptance of a pending invitation makes them a
// member; an expired or cancelled invitation answers the invitee its 400. Each case invites a user of
// its own, whose memberships show whether anyone joined.
func TestOnlyTheInviteeAccepts(t *testing.T) {
	w := newWorld(t)
	states := []struct {
		name   string
		invite spec
	}{
		{"pending", spec{}},
		{"expired", spec{expiry: w.now.Add(-time.Second)}},
		{"cancelled", spec{status: 2}},
		{"revoked", spec{status: 4}},
	}
	callers := []struct {
		name string
		who  func(invitee domain.User) domain.User
	}{
		{"staff", func(domain.User) domain.User { return w.staff }},
		{"superuser", func(domain.User) domain.User { return w.superuser }},
		{"administrator", func(domain.User) domain.User { return w.admin }},
		{"invitee", func(u domain.User) domain.User { return u }},
	}
	for _, st := range states {
		for _, c := range callers {
			t.Run(st.name+" by the "+c.name, func(t *testing.T) {
				u := w.db.User(t, testkit.NewUser{})
				s := st.invite
				s.email, s.role = upper(u.Email), 2
				id := w.invitation(t, s)
				before := w.before(t, id)
				resp := w.patch(t, w.token(t, c.who(u)), id, `{"status": 1}`)
				switch {
				case c.name != "invitee":
					resp.Expect(t, 403, forbidden)
					w.unchanged(t, id, before)
				case st.name == "pending":
					want := w.saved(before)
					want.Status = 1
					resp.Expect(t, 200, want.JSON(t))
					w.get(t, w.token(t, w.staff), id).Expect(t, 200, want.JSON(t))
				default:
					resp.Expect(t, 400, finalError(before.Status))
					w.unchanged(t, id, before)
				}
				joined := c.name == "invitee" && st.name == "pending"
				w.expectMember(t, u, joined)
			})
		}
	}

	t.Run("whatever else the PATCH holds", func(t *testing.T) {
		for _, tc := range []struct {
			name   string
			caller domain.User
			body   func(invitee domain.User) string
		}{
			{"a role", w.admin, func(domain.User) string { return `{"role": 2, "status": 1}` }},
			{"a field error: permission comes first", w.staff,
				func(domain.User) string { return `{"role": 9, "status": 1}` }},
			{"the address in another case", w.staff,
				func(u domain.User) string { return `{"email": "` + u.Email + `", "status": 1}` }},
			{"readdressed to the caller", w.staff,
				func(domain.User) string { return `{"email": "` + w.staff.Email + `", "status": 1}` }},
			{"moved to another organization", w.staff,
				func(domain.User) string { return `{"organization_id": "` + w.globex.ID + `", "status": 1}` }},
		} {
			t.Run(tc.name, func(t *testing.T) {
				u := w.db.User(t, testkit.NewUser{})
				id := w.invitation(t, spec{email: upper(u.Email)})
				before := w.before(t, id)
				w.patch(t, w.token(t, tc.caller), id, tc.body(u)).Expect(t, 403, forbidden)
				w.unchanged(t, id, before)
				w.expectMember(t, u, false)
				w.expectMember(t, tc.caller, tc.caller.ID == w.admin.ID) // the administrator was one already
			})
		}
	})
	t.Run("staff invited themselves accept as the invitee", func(t *testing.T) {
		staff := w.db.User(t, testkit.NewUser{Staff: true})
		id := w.invitation(t, spec{email: upper(staff.Email)})
		want := w.saved(w.before(t, id))
		want.Status = 1
		w.patch(t, w.token(t, staff), id, `{"status": 1}`).Expect(t, 200, want.JSON(t))
		w.expectMember(t, staff, true)
	})
	t.Run("an accepted invitation: status 1 is a save that makes nobody a member", func(t *testing.T) {
		u := w.db.User(t, testkit.NewUser{})
		id := w.invitation(t, spec{email: u.Email, status: 1})
		want := w.saved(w.before(t, id))
		for _, caller := range []domain.User{w.admin, w.staff, u} {
			w.patch(t, w.token(t, caller), id, `{"status": 1}`).Expect(t, 200, want.JSON(t))
		}
		w.expectMember(t, u, false)
	})
}

// expectMember fails unless u's stored memberships hold Acme exactly when want says so.
func (w *world) expectMember(t *testing.T, u domain.User, want bool) {
	t.Helper()
	stored, err := w.db.Store.User(t.Context(), u.ID)
	if err != nil {
		t.Fatal(err)
	}
	if _, member := stored.MembershipOf(w.acme.ID); member != want {
		t.Fatalf("%s is a member of Acme: %v, want %v (memberships %+v)", u.Email, member, want, stored.Memberships)
	}
}

// TestPatchOrderOfChecks: authentication (401), then permission and the object (403/404), then the body
// (415/400), as DRF checks them.
func TestPatchOrderOfChecks(t *testing.T) {
	w := newWorld(t)
	id := w.invitation(t, spec{})
	before := w.before(t, id)
	const noCredentials = `{"detail": "Authentication credentials were not provided."}`
	const textPlain = `{"detail": "Unsupported media type \"text/plain\" in request."}`
	for _, tc := range []struct {
		name        string
		caller      *domain.User // nil: no Authorization header
		id, body    string
		contentType string
		status      int
		want        string
	}{
		{"authentication before everything", nil, "not-a-uuid", `{`, "text/plain", 401, noCredentials},
		{"bad id before the body", &w.staff, "not-a-uuid", `{`, "text/plain", 404, notFound},
		{"unknown id before the body", &w.staff, uuid.NewString(), `{`, "", 404, notFound},
		{"hidden invitation before the media type", &w.outsider, id, `{"status": 1}`, "text/plain", 404, notFound},
		{"hidden invitation before the syntax", &w.globexAdmin, id, `{`, "", 404, notFound},
		{"permission before the media type", &w.member, id, `{"status": 1}`, "text/plain", 403, forbidden},
		{"permission before the shape", &w.collab, id, `[1]`, "", 403, forbidden},
		{"media type", &w.admin, id, `{"status": 1}`, "text/plain", 415, textPlain},
		{"media type with a charset is fine", &w.admin, id, `{"status": 9}`, "application/json; charset=utf-8", 400,
			`{"status": ["\"9\" is not a valid choice."]}`},
		{"syntax", &w.admin, id, `{`, "", 400, `{"detail": "JSON parse error - unexpected end of JSON input"}`},
		{"not an object", &w.admin, id, `["status"]`, "", 400,
			`{"non_field_errors": ["Invalid data. Expected a dictionary, but got list."]}`},
		{"a string", &w.staff, id, `"status"`, "", 400,
			`{"non_field_errors": ["Invalid data. Expected a dictionary, but got str."]}`},
		// The invitee's right depends on what the body asks, so the body is read first.
		{"invitee's body is read before the invitee's right is judged", &w.invitee, id, `{`, "", 400,
			`{"detail": "JSON parse error - unexpected end of JSON input"}`},
		{"invitee's media type", &w.invitee, id, `{"status": 1}`, "text/plain", 415, textPlain},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := map[string]string{}
			if tc.caller != nil {
				h["Authorization"] = "Bearer " + w.token(t, *tc.caller)
			}
			if tc.contentType != "" {
				h["Content-Type"] = tc.contentType
			}
			resp := testkit.Do(t, w.gw,
				testkit.Request{Method: "PATCH", Path: "/api/v1/organization-invitations/" + tc.id + "/", Body: tc.body, Header: h})
			resp.Expect(t, tc.status, tc.want)
		})
	}
	w.unchanged(t, id, before)
	t.Run("without the trailing slash", func(t *testing.T) {
		resp := testkit.Do(t, w.gw,
			testkit.Request{Method: "PATCH", Path: "/api/v1/organization-invitations/" + id,
				Token: w.token(t, w.admin), Body: `{"role": 1}`})
		want := w.saved(before)
		want.Role = 1
		resp.Expect(t, 200, want.JSON(t))
	})
}
