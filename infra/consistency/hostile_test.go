package consistency_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/reportingplatform/api/infra/routes"
	"github.com/reportingplatform/api/infra/testkit"
	"github.com/reportingplatform/api/infra/wiring"
	"github.com/reportingplatform/api/shared/config"
)

// Demo ids (infra/demo-data/demo.json).
const (
	demoReport     = routes.DemoReport
	demoInvitation = routes.DemoInvitation
	demoComment    = routes.DemoComment
	unknownID      = "00000000-0000-4000-8000-000000000000"
)

// hostile are values no field expects: too long for any limit or key, of every JSON type, and odd text.
var hostile = []string{
	`"` + strings.Repeat("x", 3000) + `"`,
	`"` + strings.Repeat("y", 300) + `@example.com"`,
	`"` + strings.Repeat("😀", 60) + `"`,
	`""`, `" "`, `null`, `true`, `-1`, `0`, `1.5`, `1e400`, `99999999999999999999999999`,
	`[]`, `[null]`, `["` + unknownID + `", "x"]`, `{}`, `{"a": [1]}`,
	`"\u0000"`, `"\ud800"`, `"not-a-uuid"`, `"` + unknownID + `"`, `"2"`,
}

// TestNothingAClientSendsCausesA500 sends every operation every hostile value in every field it reads,
// as staff and as an ordinary member, and hostile query strings to the list. Each answer must be a
// client error or a success, valid against openapi.yaml; never a 5xx.
func TestNothingAClientSendsCausesA500(t *testing.T) {
	gw, tokens := demoAPI(t)
	// Each operation gets a body valid but for one field, so every field reaches as deep as it can.
	ops := []struct {
		method, path string
		base         map[string]string
	}{
		{"POST", "/api/v1/auth/login", map[string]string{"username": `"admin@example.com"`, "password": `"wrong"`}},
		{"POST", "/api/v1/users/", map[string]string{"email": `"h@example.com"`, "password": `"Vq8#mLp2zR"`,
			"confirm_password": `"Vq8#mLp2zR"`, "first_name": `"H"`, "last_name": `"O"`, "full_name": `"H O"`}},
		{"PATCH", "/api/v1/organization-invitations/" + demoInvitation + "/", map[string]string{"status": `0`,
			"organization_id": `null`, "email": `"alan@example.com"`, "first_name": `"A"`, "last_name": `"T"`,
			"role": `1`, "accessible_portfolio_ids": `[]`}},
		{"PUT", "/api/v1/comments/" + demoComment + "/", map[string]string{"content_type": `"report"`,
			"object_id": `"` + demoReport + `"`, "tag": `"t"`, "text": `"x"`, "parent": `null`}},
		{"PATCH", "/api/v1/comments/" + demoComment + "/", map[string]string{"content_type": `"report"`,
			"object_id": `"` + demoReport + `"`, "tag": `"t"`, "text": `"x"`, "parent": `null`}},
	}
	for _, op := range ops {
		for field := range op.base {
			for _, v := range hostile {
				parts := []string{}
				for k, bv := range op.base {
					if k == field {
						bv = v
					}
					parts = append(parts, `"`+k+`": `+bv)
				}
				body := "{" + strings.Join(parts, ", ") + "}"
				for who, token := range tokens {
					resp := testkit.Do(t, gw, testkit.Request{Method: op.method, Path: op.path, Token: token, Body: body})
					if resp.Status >= 500 {
						t.Errorf("%s %s as %s with %s=%.60s: %d %s", op.method, op.path, who, field, v, resp.Status, resp.Body)
					}
				}
			}
		}
	}
	params := []string{"content_type", "object_id", "tag", "ordering", "page", "page_size"}
	for _, p := range params {
		for _, v := range append(hostile, "last", "0", "-3", "%", "&&&", "1&page=2") {
			q := url.Values{"content_type": {"report"}, "object_id": {demoReport}}
			var raw string
			_ = json.Unmarshal([]byte(v), &raw)
			if raw == "" {
				raw = v
			}
			q.Set(p, raw)
			for who, token := range tokens {
				resp := testkit.Do(t, gw, testkit.Request{Method: "GET", Path: "/api/v1/comments/?" + q.Encode(), Token: token})
				if resp.Status >= 500 {
					t.Errorf("list as %s with %s=%.60s: %d %s", who, p, raw, resp.Status, resp.Body)
				}
			}
		}
	}
	for _, id := range []string{"x", strings.Repeat("9", 3000), unknownID, "%00", demoComment + "x"} {
		for _, path := range []string{"/api/v1/comments/" + id + "/", "/api/v1/organization-invitations/" + id + "/"} {
			resp := testkit.Do(t, gw, testkit.Request{Method: "GET", Path: path, Token: tokens["staff"]})
			if resp.Status != http.StatusNotFound {
				t.Errorf("GET %.80s: %d %s, want 404", path, resp.Status, resp.Body)
			}
		}
	}
}

// demoAPI serves the four functions on a fresh table holding the demo fixture, and returns tokens of
// its staff user and of an ordinary member.
func demoAPI(t *testing.T) (http.Handler, map[string]string) {
	t.Helper()
	db := testkit.NewDB(t)
	loadDemo(t, db)
	log := testkit.Log(t)
	handlers := map[string]http.Handler{}
	for id, h := range wiring.Handlers(db.Store, log,
		config.Config{TokenTTL: time.Hour, InvitationTTL: time.Hour}, time.Now) {
		handlers[id] = h
	}
	tokens := map[string]string{"staff": tokenOf(t, db, "admin@example.com"),
		"member": tokenOf(t, db, "edsger@example.com")}
	return testkit.Gateway(t, handlers), tokens
}
