package invitations

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"reflect"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/reportingplatform/api/shared/domain"
	"github.com/reportingplatform/api/shared/httpapi"
)

// FuzzInvitationPatch reads any PATCH body. readPatch never fails by itself: it keeps each field's
// format errors for the one 400 that also reports the checks against the stored data, so the
// properties are on what it keeps. Every PATCH field sent is either set (valid) or has messages from
// SPEC §1's table, never both; unknown fields change nothing; what is set is within the seed's limits
// and, sent back as a body, reads the same; and the invitee-only answer ({"status": 1 or 2}, nothing
// else) is recognised exactly.
func FuzzInvitationPatch(f *testing.F) {
	const id = "f513f2cb-24db-5da0-92eb-722df0e62779"
	hostile := []string{`"` + strings.Repeat("x", 300) + `"`, `"` + strings.Repeat("y", 300) + `@example.com"`,
		`"` + strings.Repeat("😀", 30) + `"`, `""`, `" "`, `null`, `true`, `-1`, `0`, `1`, `2`, `4`, `5`, `"1"`, `1.0`,
		`1e400`, `99999999999999999999999999`, `[]`, `[null]`, `["` + id + `", "x"]`,
		`["` + id + `", "` + strings.ToUpper(id) + `"]`,
		`{}`, `{"a": [1]}`, `"\u0000"`, `"\ud800"`, `"not-a-uuid"`, `"` + id + `"`, `"{` + id + `}"`, `"A@Example.COM"`}
	f.Add(`{"status": 1}`)
	f.Add(`{"status": "2", "id": "x", "token": null, "email_sent": true}`)
	f.Add(`{"status": 1, "role": 1}`)
	f.Add(`{}`)
	f.Add(`{"organization_id": "` + id + `", "accessible_portfolio_ids": ["` + id +
		`"], "first_name": null, "last_name": ""}`)
	for _, field := range []string{fieldStatus, fieldOrg, fieldEmail, fieldFirstName, fieldLastName, fieldRole,
		fieldPortfolios} {
		for _, v := range hostile {
			f.Add(`{"` + field + `": ` + v + `, "status": 0}`)
		}
	}
	f.Fuzz(func(t *testing.T, body string) {
		b, ok := decode(body)
		if !ok {
			return // DecodeObject's refusals: FuzzDecodeObject's business
		}
		req := readPatch(b)
		for field, msgs := range req.invalid {
			if !req.sent[field] || req.isSet(field) {
				t.Fatalf("%.200q: %s sent %v, set %v, yet %q", body, field, req.sent[field], req.isSet(field), msgs)
			}
			for i, m := range msgs {
				if !patchMessage(field, m) || slices.Contains(msgs[:i], m) {
					t.Fatalf("%.200q: %s: %q", body, field, msgs)
				}
			}
		}
		for field, sent := range req.sent {
			if sent && !req.isSet(field) && len(req.invalid[field]) == 0 {
				t.Fatalf("%.200q: %s sent but neither set nor refused", body, field)
			}
		}
		checkPatchLimits(t, body, req)
		answer := len(req.invalid) == 0 && req.status != nil && (*req.status == 1 || *req.status == 2)
		for field, sent := range req.sent {
			answer = answer && (!sent || field == fieldStatus)
		}
		if req.onlyAnswers() != answer {
			t.Fatalf("%.200q: onlyAnswers %v", body, req.onlyAnswers())
		}

		echo, err := json.Marshal(req.echo())
		if err != nil {
			t.Fatal(err)
		}
		b, _ = decode(string(echo))
		again := readPatch(b)
		again.sent, again.invalid = req.sent, req.invalid
		if !reflect.DeepEqual(again, req) {
			t.Fatalf("%.200q gave %+v; sent back as %s it gave %+v", body, *req, echo, *again)
		}
	})
}

// patchMessage reports whether msg is one the field may earn from its format alone.
func patchMessage(field, msg string) bool {
	switch msg {
	case domain.MsgNull:
		return field != fieldFirstName && field != fieldLastName
	case domain.MsgBlank, "Null characters are not allowed.":
		return field == fieldEmail || (msg != domain.MsgBlank && (field == fieldFirstName || field == fieldLastName))
	case domain.MsgNotString:
		return field == fieldEmail || field == fieldFirstName || field == fieldLastName
	case domain.MsgEmail, domain.MsgMaxLength(domain.MaxEmailLength):
		return field == fieldEmail
	case domain.MsgMaxLength(domain.MaxInviteeName):
		return field == fieldFirstName || field == fieldLastName
	case domain.MsgUUID:
		return field == fieldOrg || field == fieldPortfolios
	}
	if field == fieldStatus || field == fieldRole {
		return strings.HasPrefix(msg, `"`) && strings.HasSuffix(msg, `" is not a valid choice.`)
	}
	return field == fieldPortfolios && strings.HasPrefix(msg, `Expected a list of items but got type "`)
}

func checkPatchLimits(t *testing.T, body string, req *patchRequest) {
	t.Helper()
	name := func(p *string) bool { return p == nil || utf8.RuneCountInString(*p) <= domain.MaxInviteeName }
	switch {
	case req.status != nil && !req.status.Valid(), req.role != nil && !req.role.Valid(),
		req.email != nil && (!domain.ValidEmail(*req.email) || utf8.RuneCountInString(*req.email) > domain.MaxEmailLength),
		!name(req.firstName), !name(req.lastName):
		t.Fatalf("%.200q accepted as %+v", body, *req)
	}
	if unique := slices.Compact(slices.Sorted(slices.Values(req.portfolioIDs))); len(unique) != len(req.portfolioIDs) {
		t.Fatalf("%.200q: portfolio ids %q twice", body, req.portfolioIDs)
	}
	ids := slices.Clone(req.portfolioIDs)
	if req.orgID != nil {
		ids = append(ids, *req.orgID)
	}
	for _, id := range ids {
		if got, ok := httpapi.ParseUUID(id); !ok || got != id {
			t.Fatalf("%.200q: id %q is not canonical", body, id)
		}
	}
}

// isSet reports whether the request will change field.
func (req *patchRequest) isSet(field string) bool {
	switch field {
	case fieldStatus:
		return req.status != nil
	case fieldOrg:
		return req.orgID != nil
	case fieldEmail:
		return req.email != nil
	case fieldFirstName:
		return req.setFirstName
	case fieldLastName:
		return req.setLastName
	case fieldRole:
		return req.role != nil
	case fieldPortfolios:
		return req.setPortfolios
	}
	return false
}

// echo is the body that sets exactly what req sets.
func (req *patchRequest) echo() map[string]any {
	out := map[string]any{}
	for field, v := range map[string]any{fieldStatus: req.status, fieldOrg: req.orgID, fieldEmail: req.email,
		fieldFirstName: req.firstName, fieldLastName: req.lastName, fieldRole: req.role, fieldPortfolios: req.portfolioIDs} {
		if req.isSet(field) {
			out[field] = v
		}
	}
	return out
}

func decode(body string) (*httpapi.Body, bool) {
	r := httptest.NewRequest(http.MethodPatch, "/x", strings.NewReader(body))
	r.Header.Set("Content-Type", "application/json")
	b, err := httpapi.DecodeObject(r)
	return b, err == nil
}
