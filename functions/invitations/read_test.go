package invitations_test

import (
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/reportingplatform/api/infra/testkit"
	"github.com/reportingplatform/api/shared/domain"
)

func TestReadShape(t *testing.T) {
	w := newWorld(t)
	expiry := time.Date(2031, 5, 6, 7, 8, 9, 123456000, time.UTC)
	id := w.invitation(t, spec{
		portfolios: []ref{w.zeta, w.alpha, w.mid}, first: domain.Ptr("Bob"), role: 1, emailSent: true, expiry: expiry,
	})
	reader := w.token(t, w.staff)
	inv := w.before(t, id)
	want := `{
		"id": "` + id + `", "token": "` + inv.Token + `", "expiry_date": "2031-05-06T07:08:09.123456Z",
		"organization": {"id": "` + w.acme.ID + `", "name": "Acme"},
		"inviter_member": {"id": "` + w.adminMember + `", "first_name": "Ada", "last_name": "Admin", "email": "` +
		w.admin.Email + `"},
		"email": "` + upper(w.invitee.Email) + `", "email_sent": true,
		"accessible_portfolios": [{"id": "` + w.alpha.ID + `", "name": "Alpha"}, {"id": "` + w.mid.ID + `", "name": "Mid"},
			{"id": "` + w.zeta.ID + `", "name": "Zeta"}],
		"status": 0, "first_name": "Bob", "last_name": null, "role": 1}`
	w.get(t, reader, id).Expect(t, 200, want)

	t.Run("keys in the seed's order", func(t *testing.T) {
		body := string(w.get(t, reader, id).Body)
		keys := []string{`"id"`, `"token"`, `"expiry_date"`, `"organization"`, `"inviter_member"`, `"email"`,
			`"email_sent"`, `"accessible_portfolios"`, `"status"`, `"first_name"`, `"last_name"`, `"role"`}
		at := -1
		for _, k := range keys {
			i := indexAfter(body, k, at)
			if i < 0 {
				t.Fatalf("%s missing or out of order in %s", k, body)
			}
			at = i
		}
	})
	t.Run("without the trailing slash", func(t *testing.T) {
		resp := testkit.Do(t, w.gw,
			testkit.Request{Method: "GET", Path: "/api/v1/organization-invitations/" + id, Token: reader})
		resp.Expect(t, 200, want)
	})
	t.Run("an inviter without a last name shows an empty string", func(t *testing.T) {
		gid := w.invitation(t, spec{org: w.globex, portfolios: []ref{w.beta}})
		g := w.before(t, gid)
		w.get(t, w.token(t, w.staff), gid).Expect(t, 200, `{
			"id": "`+gid+`", "token": "`+g.Token+`", "expiry_date": "`+domain.FormatTime(w.now.Add(ttl))+`",
			"organization": {"id": "`+w.globex.ID+`", "name": "Globex"},
			"inviter_member": {"id": "`+w.globexMemb+`", "first_name": "Gus", "last_name": "", "email": "`+
			w.globexAdmin.Email+`"},
			"email": "`+upper(w.invitee.Email)+`", "email_sent": false,
			"accessible_portfolios": [{"id": "`+w.beta.ID+`", "name": "Beta"}],
			"status": 0, "first_name": null, "last_name": null, "role": 0}`)
	})
}

// indexAfter is the index of the key's first occurrence after position from, -1 when there is none.
func indexAfter(s, key string, from int) int {
	for i := from + 1; i+len(key) <= len(s); i++ {
		if s[i:i+len(key)] == key {
			return i
		}
	}
	return -1
}

func TestReadRules(t *testing.T) {
	w := newWorld(t)
	id := w.invitation(t, spec{})
	want := w.before(t, id).JSON(t)
	const notFound = `{"detail": "Not found."}`
	for _, tc := range []struct {
		name   string
		caller domain.User
		status int
	}{
		{"staff", w.staff, 200},
		{"superuser", w.superuser, 200},
		{"administrator of the organization", w.admin, 200},
		{"member of the organization", w.member, 200},
		{"collaborator of the organization", w.collab, 200},
		{"the invitee, whose address differs in case", w.invitee, 200},
		{"administrator of another organization", w.globexAdmin, 404},
		{"a user with no tie to it", w.outsider, 404},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp := w.get(t, w.token(t, tc.caller), id)
			if tc.status == 200 {
				resp.Expect(t, 200, want)
				return
			}
			resp.Expect(t, 404, notFound)
		})
	}
}

func TestReadPendingPastItsExpiryReadsAsExpired(t *testing.T) {
	w := newWorld(t)
	past := w.now.Add(-time.Minute)
	for _, tc := range []struct {
		name         string
		stored, read int
	}{
		{"pending reads as expired", 0, 3},
		{"accepted stays accepted", 1, 1},
		{"revoked stays revoked", 4, 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			id := w.invitation(t, spec{status: tc.stored, expiry: past})
			want := w.before(t, id)
			want.Status = tc.read
			want.ExpiryDate = domain.FormatTime(past)
			w.get(t, w.token(t, w.member), id).Expect(t, 200, want.JSON(t))
		})
	}
	t.Run("expiring exactly now is expired", func(t *testing.T) {
		id := w.invitation(t, spec{expiry: w.now})
		want := w.before(t, id)
		if want.Status != 3 {
			t.Fatalf("status %d", want.Status)
		}
		w.get(t, w.token(t, w.member), id).Expect(t, 200, want.JSON(t))
	})
}

func TestReadNotFoundAndAuthentication(t *testing.T) {
	w := newWorld(t)
	id := w.invitation(t, spec{})
	staff := "Bearer " + w.token(t, w.staff)
	const notFound = `{"detail": "Not found."}`
	const noCredentials = `{"detail": "Authentication credentials were not provided."}`
	expired := "Bearer " + w.db.Token(t, w.staff, -time.Hour)
	for _, tc := range []struct {
		name, auth, id string
		status         int
		want           string
	}{
		{"unknown id", staff, uuid.NewString(), 404, notFound},
		{"not a UUID", staff, "not-a-uuid", 404, notFound},
		{"a number", staff, "42", 404, notFound},
		{"no credentials", "", id, 401, noCredentials},
		{"other scheme", "Basic dXNlcjpwYXNz", id, 401, noCredentials},
		{"bearer without token", "Bearer", id, 401, `{"detail": "Invalid token header. No credentials provided."}`},
		{"token with spaces", "Bearer a b", id, 401,
			`{"detail": "Invalid token header. Token string should not contain spaces."}`},
		{"garbage token", "Bearer garbage", id, 401, `{"detail": "Invalid token."}`},
		{"expired token", expired, id, 401, `{"detail": "Invalid token."}`},
		{"authentication before an unknown id", "", uuid.NewString(), 401, noCredentials},
		{"authentication before a bad id", "", "not-a-uuid", 401, noCredentials},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := map[string]string{}
			if tc.auth != "" {
				h["Authorization"] = tc.auth
			}
			resp := testkit.Do(t, w.gw,
				testkit.Request{Method: "GET", Path: "/api/v1/organization-invitations/" + tc.id + "/", Header: h})
			resp.Expect(t, tc.status, tc.want)
			if tc.status == 401 && resp.Header.Get("WWW-Authenticate") != `Bearer realm="api"` {
				t.Fatalf("WWW-Authenticate %q", resp.Header.Get("WWW-Authenticate"))
			}
		})
	}
	t.Run("inactive user", func(t *testing.T) {
		u := w.db.User(t, testkit.NewUser{Staff: true})
		tok := w.db.Token(t, u, time.Hour)
		w.db.Deactivate(t, u)
		w.get(t, tok, id).Expect(t, 401, `{"detail": "User inactive or deleted."}`)
	})
	t.Run("other method", func(t *testing.T) {
		resp := testkit.Do(t, w.gw,
			testkit.Request{Method: "PUT", Path: "/api/v1/organization-invitations/" + id + "/", Token: w.token(t, w.staff)})
		resp.Expect(t, 405, `{"detail": "Method \"PUT\" not allowed."}`)
		if got := resp.Header.Get("Allow"); got != "DELETE, GET, HEAD, PATCH" {
			t.Fatalf("Allow %q", got)
		}
	})
}

func TestReadCallBudget(t *testing.T) {
	w := newWorld(t)
	id := w.invitation(t, spec{portfolios: []ref{w.zeta, w.alpha}})
	for _, tc := range []struct {
		name   string
		caller domain.User
		status int
	}{{"read", w.member, 200}, {"hidden", w.outsider, 404}} {
		t.Run(tc.name, func(t *testing.T) {
			tok := w.token(t, tc.caller)
			w.db.Calls.Reset()
			w.db.Calls.SimulateLatency(testkit.BudgetLatency)
			if resp := w.get(t, tok, id); resp.Status != tc.status {
				t.Fatalf("status %d: %s", resp.Status, resp.Body)
			}
			// The session with the invitation, which carries what it shows of what it refers to.
			want := 1
			if n := w.db.Calls.Sequential(); n != want {
				t.Fatalf("GET made %d sequential DynamoDB calls (%v), want %d", n, w.db.Calls, want)
			}
			if n := len(w.db.Calls.Ops()); n != want {
				t.Fatalf("GET made calls %v, want %d BatchGetItem", w.db.Calls, want)
			}
		})
	}
}
