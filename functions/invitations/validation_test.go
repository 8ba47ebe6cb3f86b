package invitations_test

import (
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/reportingplatform/api/infra/testkit"
	"github.com/reportingplatform/api/shared/domain"
)

// TestPatchFieldErrors: every field's checks and DRF's messages, all failing fields at once, and a
// refused PATCH writes nothing.
func TestPatchFieldErrors(t *testing.T) {
	w := newWorld(t)
	unknown := uuid.NewString()
	long := func(n int) string { return strings.Repeat("x", n) }
	for _, tc := range []struct {
		name   string
		caller *domain.User
		body   string
		want   string
	}{
		{"status not a choice", &w.admin, `{"status": 5}`, `{"status": ["\"5\" is not a valid choice."]}`},
		{"status a word", &w.admin, `{"status": "accepted"}`, `{"status": ["\"accepted\" is not a valid choice."]}`},
		{"status a boolean", &w.admin, `{"status": true}`, `{"status": ["\"True\" is not a valid choice."]}`},
		{"status a float", &w.admin, `{"status": 1.5}`, `{"status": ["\"1.5\" is not a valid choice."]}`},
		{"status null", &w.admin, `{"status": null}`, `{"status": ["This field may not be null."]}`},
		{"role not a choice", &w.admin, `{"role": 3}`, `{"role": ["\"3\" is not a valid choice."]}`},
		{"role negative", &w.admin, `{"role": -1}`, `{"role": ["\"-1\" is not a valid choice."]}`},
		{"role null", &w.admin, `{"role": null}`, `{"role": ["This field may not be null."]}`},
		{"organization not a UUID", &w.admin, `{"organization_id": "acme"}`,
			`{"organization_id": ["Must be a valid UUID."]}`},
		{"organization null", &w.admin, `{"organization_id": null}`, `{"organization_id": ["This field may not be null."]}`},
		// SPEC §1: a reference sent as "" is null; a UUID is taken as sent.
		{"organization blank", &w.admin, `{"organization_id": ""}`, `{"organization_id": ["This field may not be null."]}`},
		{"organization with white space", &w.admin, `{"organization_id": " ` + w.acme.ID + ` "}`,
			`{"organization_id": ["Must be a valid UUID."]}`},
		{"portfolio with white space", &w.admin, `{"accessible_portfolio_ids": ["` + w.alpha.ID + `\t"]}`,
			`{"accessible_portfolio_ids": ["Must be a valid UUID."]}`},
		{"organization unknown", &w.staff, `{"organization_id": "` + unknown + `"}`,
			`{"organization_id": ["Invalid pk \"` + unknown + `\" - object does not exist."]}`},
		{"organization the caller does not administer", &w.admin, `{"organization_id": "` + w.globex.ID + `"}`,
			`{"organization_id": ["Invalid pk \"` + w.globex.ID + `\" - object does not exist."]}`},
		{"email not an address", &w.admin, `{"email": "bob"}`, `{"email": ["Enter a valid email address."]}`},
		{"email blank", &w.admin, `{"email": "  "}`, `{"email": ["This field may not be blank."]}`},
		{"email null", &w.admin, `{"email": null}`, `{"email": ["This field may not be null."]}`},
		{"email a number", &w.admin, `{"email": 5}`, `{"email": ["Enter a valid email address."]}`},
		{"email too long", &w.admin, `{"email": "` + long(244) + `@example.com"}`,
			`{"email": ["Ensure this field has no more than 255 characters."]}`},
		{"first name too long", &w.admin, `{"first_name": "` + long(26) + `"}`,
			`{"first_name": ["Ensure this field has no more than 25 characters."]}`},
		{"last name too long", &w.admin, `{"last_name": "` + long(26) + `"}`,
			`{"last_name": ["Ensure this field has no more than 25 characters."]}`},
		{"names not strings", &w.admin, `{"first_name": ["Bo"], "last_name": {"x": 1}}`,
			`{"first_name": ["Not a valid string."], "last_name": ["Not a valid string."]}`},
		{"portfolios not a list", &w.admin, `{"accessible_portfolio_ids": "` + w.alpha.ID + `"}`,
			`{"accessible_portfolio_ids": ["Expected a list of items but got type \"str\"."]}`},
		{"portfolios an object", &w.admin, `{"accessible_portfolio_ids": {}}`,
			`{"accessible_portfolio_ids": ["Expected a list of items but got type \"dict\"."]}`},
		{"portfolios null", &w.admin, `{"accessible_portfolio_ids": null}`,
			`{"accessible_portfolio_ids": ["This field may not be null."]}`},
		{"portfolio not a UUID", &w.admin, `{"accessible_portfolio_ids": ["` + w.alpha.ID + `", "alpha"]}`,
			`{"accessible_portfolio_ids": ["Must be a valid UUID."]}`},
		{"portfolio unknown, first missing reported", &w.admin,
			`{"accessible_portfolio_ids": ["` + w.alpha.ID + `", "` + unknown + `", "` + uuid.NewString() + `"]}`,
			`{"accessible_portfolio_ids": ["Invalid pk \"` + unknown + `\" - object does not exist."]}`},
		{"portfolio of another organization", &w.staff, `{"accessible_portfolio_ids": ["` + w.beta.ID + `"]}`,
			`{"accessible_portfolio_ids": ["Invalid pk \"` + w.beta.ID + `\" - object does not exist."]}`},
		{"portfolio of the old organization when moving", &w.staff,
			`{"organization_id": "` + w.globex.ID + `", "accessible_portfolio_ids": ["` + w.alpha.ID + `"]}`,
			`{"accessible_portfolio_ids": ["Invalid pk \"` + w.alpha.ID + `\" - object does not exist."]}`},
		{"portfolios not judged against a refused organization", &w.admin,
			`{"organization_id": "` + w.globex.ID + `", "accessible_portfolio_ids": ["` + w.beta.ID + `"]}`,
			`{"organization_id": ["Invalid pk \"` + w.globex.ID + `\" - object does not exist."]}`},
		{"every failing field at once", &w.staff,
			`{"status": 7, "role": "admin", "email": "x@", "first_name": "` + long(30) + `", "organization_id": "` +
				unknown + `", "accessible_portfolio_ids": 3}`,
			`{"accessible_portfolio_ids": ["Expected a list of items but got type \"int\"."],
			  "email": ["Enter a valid email address."],
			  "first_name": ["Ensure this field has no more than 25 characters."], "organization_id": ["Invalid pk \"` +
				unknown + `\" - object does not exist."],
			  "role": ["\"admin\" is not a valid choice."], "status": ["\"7\" is not a valid choice."]}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			id := w.invitation(t, spec{portfolios: []ref{w.mid}})
			before := w.before(t, id)
			w.patch(t, w.token(t, *tc.caller), id, tc.body).Expect(t, 400, tc.want)
			w.unchanged(t, id, before)
		})
	}
}

// TestPatchFieldChanges: what each field does when it is valid, and what is ignored.
func TestPatchFieldChanges(t *testing.T) {
	w := newWorld(t)
	// dual administers both organizations, so it may move invitations between them.
	dual := w.db.User(t, testkit.NewUser{})
	w.load(t, map[string]any{"members": []any{
		map[string]any{"organization_id": w.acme.ID, "user_id": dual.ID, "role": 2},
		map[string]any{"organization_id": w.globex.ID, "user_id": dual.ID, "role": 2},
	}})
	for _, tc := range []struct {
		name   string
		caller *domain.User
		invite spec
		body   string
		edit   func(*shape)
	}{
		{"nothing sent is a save: a new expiry", &w.admin, spec{}, `{}`, func(*shape) {}},
		{"names blank and null", &w.admin, spec{first: domain.Ptr("A"), last: domain.Ptr("B")},
			`{"first_name": "", "last_name": null}`,
			func(s *shape) { s.FirstName, s.LastName = domain.Ptr(""), nil }},
		{"names trimmed, numbers taken as text", &w.admin, spec{}, `{"first_name": "  Bo  ", "last_name": 5}`,
			func(s *shape) { s.FirstName, s.LastName = domain.Ptr("Bo"), domain.Ptr("5") }},
		{"names at their limit", &w.admin, spec{}, `{"first_name": "` + strings.Repeat("é", 25) + `"}`,
			func(s *shape) { s.FirstName = domain.Ptr(strings.Repeat("é", 25)) }},
		{"role as a string", &w.admin, spec{}, `{"role": "2"}`, func(s *shape) { s.Role = 2 }},
		{"a new email is kept as sent, trimmed, and not sent yet", &w.admin, spec{emailSent: true},
			`{"email": "  New.Person@Example.COM "}`,
			func(s *shape) { s.Email, s.EmailSent = "New.Person@Example.COM", false }},
		{"the same email in another case is a change", &w.admin, spec{emailSent: true},
			`{"email": "` + strings.ToLower(w.invitee.Email) + `"}`,
			func(s *shape) { s.Email, s.EmailSent = strings.ToLower(w.invitee.Email), false }},
		{"the same email sent again is no change", &w.admin, spec{emailSent: true},
			`{"email": "` + upper(w.invitee.Email) + `"}`,
			func(*shape) {}},
		{"portfolios replaced, shown in name order", &w.admin, spec{portfolios: []ref{w.mid}},
			`{"accessible_portfolio_ids": ["` + w.zeta.ID + `", "` + w.alpha.ID + `"]}`,
			func(s *shape) { s.withPortfolios(w.alpha, w.zeta) }},
		{"portfolios in upper case and repeated", &w.admin, spec{},
			`{"accessible_portfolio_ids": ["` + strings.ToUpper(w.zeta.ID) + `", "` + w.zeta.ID + `"]}`,
			func(s *shape) { s.withPortfolios(w.zeta) }},
		{"portfolios cleared", &w.admin, spec{portfolios: []ref{w.mid, w.zeta}}, `{"accessible_portfolio_ids": []}`,
			func(s *shape) { s.withPortfolios() }},
		{"same organization keeps the portfolios", &w.admin, spec{portfolios: []ref{w.mid}},
			`{"organization_id": "` + w.acme.ID + `"}`,
			func(*shape) {}},
		{"staff moves it: portfolios cleared", &w.staff, spec{portfolios: []ref{w.mid, w.zeta}},
			`{"organization_id": "` + w.globex.ID + `"}`,
			func(s *shape) { s.Organization = orgShape{w.globex.ID, "Globex"}; s.withPortfolios() }},
		{"staff moves it with portfolios of the new organization", &w.staff, spec{portfolios: []ref{w.mid}},
			`{"organization_id": "` + strings.ToUpper(w.globex.ID) + `", "accessible_portfolio_ids": ["` + w.beta.ID + `"]}`,
			func(s *shape) { s.Organization = orgShape{w.globex.ID, "Globex"}; s.withPortfolios(w.beta) }},
		{"administrator of both organizations moves it", &dual, spec{portfolios: []ref{w.mid}},
			`{"organization_id": "` + w.globex.ID + `", "accessible_portfolio_ids": ["` + w.beta.ID + `"], "role": 1}`,
			func(s *shape) { s.Organization = orgShape{w.globex.ID, "Globex"}; s.withPortfolios(w.beta); s.Role = 1 }},
		{"unknown and read-only fields ignored", &w.admin, spec{portfolios: []ref{w.mid}},
			`{"id": "` + uuid.NewString() + `", "token": "` + uuid.NewString() +
				`", "expiry_date": "2000-01-01T00:00:00Z", "email_sent": true,
			  "organization": {"id": "` + w.globex.ID + `"}, "inviter_member": {"id": "` + uuid.NewString() + `"},
			  "accessible_portfolios": [], "inviter_member_id": "` + uuid.NewString() + `", "created_at": "x", "colour": "red"}`,
			func(*shape) {}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			id := w.invitation(t, tc.invite)
			want := w.saved(w.before(t, id))
			tc.edit(&want)
			w.patch(t, w.token(t, *tc.caller), id, tc.body).Expect(t, 200, want.JSON(t))
			w.get(t, w.token(t, w.staff), id).Expect(t, 200, want.JSON(t))
		})
	}
}
