package invitations_test

import (
	"testing"

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
