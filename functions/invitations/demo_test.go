package invitations_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/reportingplatform/api/functions/auth"
	"github.com/reportingplatform/api/functions/invitations"
	"github.com/reportingplatform/api/infra/testkit"
	"github.com/reportingplatform/api/shared/domain"
)

// TestDemoInvitations walks what `make run` offers a newcomer: the demo fixture's invitee reads the
// pending invitation, accepts it and logs in as a member; the expired one reads as expired.
func TestDemoInvitations(t *testing.T) {
	db := testkit.NewDB(t)
	now := domain.Stamp(time.Now())
	db.LoadDemo(t, now, ttl)
	log := testkit.Log(t)
	clock := func() time.Time { return now }
	gw := testkit.Gateway(t, map[string]http.Handler{
		"InvitationsFunction": invitations.New(db.Store, &mailbox{}, log, ttl, clock),
		"AuthFunction":        auth.New(db.Store, log, time.Hour, clock),
	})
	login := func(email, password string) map[string]any {
		t.Helper()
		resp := testkit.Do(t, gw, testkit.Request{Method: "POST", Path: "/api/v1/auth/login",
			Body: `{"username": "` + email + `", "password": "` + password + `"}`})
		if resp.Status != 201 {
			t.Fatalf("login %s: %d %s", email, resp.Status, resp.Body)
		}
		return resp.Object(t)
	}
	const (
		pending = "dd92a61d-d137-5059-b15b-6cf08719aa9c"
		expired = "c4ee50f0-719f-5eb3-a674-f1bff9456397"
		acme    = "1463dfec-18c0-58cd-9c54-03d6320cc136"
	)
	alan := login("alan@example.com", "demo-alan-2026")
	tok := alan["token"].(string)
	path := "/api/v1/organization-invitations/"

	read := testkit.Do(t, gw, testkit.Request{Method: "GET", Path: path + pending + "/", Token: tok})
	if read.Status != 200 {
		t.Fatalf("GET: %d %s", read.Status, read.Body)
	}
	inv := read.Object(t)
	ports, _ := inv["accessible_portfolios"].([]any)
	if inv["status"] != float64(0) || len(ports) != 2 || ports[0].(map[string]any)["name"] != "Brand Health" {
		t.Fatalf("demo invitation: %s", read.Body)
	}

	accept := testkit.Do(t, gw,
		testkit.Request{Method: "PATCH", Path: path + pending + "/", Token: tok, Body: `{"status": 1}`})
	if accept.Status != 200 || accept.Object(t)["status"] != float64(1) {
		t.Fatalf("accept: %d %s", accept.Status, accept.Body)
	}
	orgs := login("alan@example.com", "demo-alan-2026")["organizations"].(string)
	if !testkit.JSONEqual([]byte(orgs), []byte(`[{"id": "`+acme+`", "name": "Acme Analytics", "role": 1}]`)) {
		t.Fatalf("organizations after accepting: %s", orgs)
	}

	grace := login("grace@example.com", "demo-grace-2026")["token"].(string)
	late := testkit.Do(t, gw, testkit.Request{Method: "GET", Path: path + expired + "/", Token: grace})
	if late.Status != 200 || late.Object(t)["status"] != float64(3) {
		t.Fatalf("expired demo invitation: %d %s", late.Status, late.Body)
	}
}
