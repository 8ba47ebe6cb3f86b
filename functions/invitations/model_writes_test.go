package invitations_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/reportingplatform/api/infra/testkit"
	"github.com/reportingplatform/api/shared/domain"
)

// writeThroughAPI changes d's invitations through the API, as SPEC §3, §5 and §10 let its callers, and
// the model with them, at the world's clock: a revocation, a save of a pending invitation past its
// expiry (which stores it expired), an address changed to the invitee's, an invitation moved to
// another organization, a deletion, two creates at one instant, and the invitee's acceptance, which
// makes them a member of the invitation's organization. Each answer is checked against the model.
func (w *world) writeThroughAPI(t *testing.T, d *Dataset) {
	t.Helper()
	now := w.now
	o := d.Organizations
	w.patchModel(t, d, d.Staff,
		d.find(t, func(m ModelInvitation) bool { return m.Organization == o[1] && m.StatusAt(now) == 0 }),
		`{"status": 4}`, func(m *ModelInvitation) { m.Status = 4 })
	w.patchModel(t, d, d.Staff,
		d.find(t, func(m ModelInvitation) bool { return m.Organization == o[2] && m.Status == 0 && m.StatusAt(now) == 3 }),
		`{"role": 2}`, func(m *ModelInvitation) { m.Role = 2 })
	invitee := strings.ToUpper(d.Invitee.User.Email)
	w.patchModel(t, d, d.Staff,
		d.find(t, func(m ModelInvitation) bool { return m.Organization == o[3] && m.Status == 2 && d.shared(m.Email) }),
		`{"email": "`+invitee+`"}`, func(m *ModelInvitation) { m.Email = invitee })
	w.patchModel(t, d, d.Staff, d.find(t, func(m ModelInvitation) bool { return m.Organization == o[0] && m.Status == 1 }),
		`{"organization_id": "`+o[5]+`"}`, func(m *ModelInvitation) { m.Organization = o[5] })

	doomed := d.find(t, func(m ModelInvitation) bool { return m.Organization == o[2] })
	resp := testkit.Do(t, w.gw,
		testkit.Request{Method: "DELETE", Path: listPath + d.Invitations[doomed].ID + "/", Token: d.Staff.Token})
	if resp.Status != 204 || len(resp.Body) != 0 {
		t.Fatalf("delete: %d %s", resp.Status, resp.Body)
	}
	d.Invitations = slices.Delete(d.Invitations, doomed, doomed+1)

	for _, local := range []string{"new", "newer"} {
		email := local + "-" + d.Shared[0]
		resp := testkit.Do(t, w.gw, testkit.Request{Method: "POST", Path: listPath, Token: d.Admin.Token,
			Body: `{"organization_id": "` + o[0] + `", "email": "` + email + `"}`})
		var made struct{ ID string }
		if err := json.Unmarshal(resp.Body, &made); err != nil || resp.Status != 201 {
			t.Fatalf("create: %d %s", resp.Status, resp.Body)
		}
		d.Invitations = append(d.Invitations, ModelInvitation{ID: made.ID, Organization: o[0], Email: email,
			Created: domain.Stamp(now), Expiry: domain.Stamp(now.Add(ttl))})
		w.expectModel(t, d, resp, made.ID)
	}

	accepted := d.find(t, func(m ModelInvitation) bool {
		return m.Organization == o[4] && m.StatusAt(now) == 0 && sameAddress(m.Email, d.Invitee.User.Email)
	})
	w.patchModel(t, d, d.Invitee, accepted, `{"status": 1}`, func(m *ModelInvitation) { m.Status = 1 })
	d.Invitee.Organizations = append(d.Invitee.Organizations, o[4])
}

// find is the index of the first of d's invitations that keep keeps.
func (d *Dataset) find(t *testing.T, keep func(ModelInvitation) bool) int {
	t.Helper()
	i := slices.IndexFunc(d.Invitations, keep)
	if i < 0 {
		t.Fatal("the data has no invitation for this write")
	}
	return i
}

// shared reports whether email is one of d's shared addresses, in any case.
func (d *Dataset) shared(email string) bool {
	return slices.ContainsFunc(d.Shared, func(s string) bool { return sameAddress(s, email) })
}

// patchModel sends c's PATCH of d's invitation i and applies it to the model as a save does (SPEC §5):
// a pending invitation past its expiry is stored expired, then change, then a new expiry_date.
func (w *world) patchModel(t *testing.T, d *Dataset, c Caller, i int, body string, change func(*ModelInvitation)) {
	t.Helper()
	m := &d.Invitations[i]
	m.Status = m.StatusAt(w.now)
	change(m)
	m.Expiry = domain.Stamp(w.now.Add(ttl))
	w.expectModel(t, d, w.patch(t, c.Token, m.ID, body), m.ID)
}

// expectModel checks a write's answer: 200 or 201 with the fields the model knows of invitation id.
func (w *world) expectModel(t *testing.T, d *Dataset, resp testkit.Response, id string) {
	t.Helper()
	var got resultFields
	if err := json.Unmarshal(resp.Body, &got); err != nil || resp.Status/100 != 2 {
		t.Fatalf("write of %s: %d %s", id, resp.Status, resp.Body)
	}
	m := d.Invitations[slices.IndexFunc(d.Invitations, func(m ModelInvitation) bool { return m.ID == id })]
	if want := d.fields(m, w.now); got != want {
		t.Fatalf("write of %s answered %+v, want %+v", id, got, want)
	}
}

// fields are what the model shows of m at now.
func (d *Dataset) fields(m ModelInvitation, now time.Time) resultFields {
	return resultFields{
		ID: m.ID, Status: m.StatusAt(now), Email: m.Email, Role: m.Role, ExpiryDate: domain.FormatTime(m.Expiry),
		Organization: orgShape{m.Organization, d.organizationName(m.Organization)},
	}
}
