package users

import (
	"encoding/json"
	"errors"
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

// createMessages are the messages a create body can earn (SPEC §1's table, §4's password rules), by
// field; a message outside them is a message a client was never promised.
var createMessages = map[string][]string{
	"email": {domain.MsgRequired, domain.MsgNull, domain.MsgBlank, domain.MsgNotString, domain.MsgEmail,
		domain.MsgMaxLength(domain.MaxEmailLength), "Null characters are not allowed."},
	"password": {domain.MsgRequired, domain.MsgNull, domain.MsgBlank, domain.MsgNotString,
		"Null characters are not allowed.",
		"This password is too short. It must contain at least 8 characters.", "This password is too common.",
		"This password is entirely numeric.", "The password is too similar to the email.",
		"The password is too similar to the first name.", "The password is too similar to the last name."},
	"confirm_password": {domain.MsgRequired, domain.MsgNull, domain.MsgBlank, domain.MsgNotString,
		"Null characters are not allowed.", "Passwords do not match."},
	"first_name": {domain.MsgNotString, domain.MsgMaxLength(domain.MaxUserFirstName), "Null characters are not allowed."},
	"last_name":  {domain.MsgNotString, domain.MsgMaxLength(domain.MaxUserLastName), "Null characters are not allowed."},
	"full_name": {domain.MsgNull, domain.MsgNotString, domain.MsgMaxLength(domain.MaxUserFirstName),
		domain.MsgMaxLength(domain.MaxUserLastName),
		"Null characters are not allowed."},
}

// FuzzUserCreate reads any create body. A refusal is EINVALID with only SPEC's messages under the
// request's fields; an accepted body gives a user within the seed's limits whose fields, sent back as
// a create body, are accepted again as the same user (emails normalised once and for all, full_name
// split once and for all).
func FuzzUserCreate(f *testing.F) {
	hostile := []string{`"` + strings.Repeat("x", 300) + `"`, `"` + strings.Repeat("y", 300) + `@example.com"`,
		`"` + strings.Repeat("😀", 60) + `"`, `""`, `" "`, `null`, `true`, `-1`, `1.5`, `1e400`, `[]`, `{}`,
		`"\u0000"`, `"\ud800"`, `"x\u00a0y"`, `"Ada  Lovelace  Byron"`, `"Vq8#mLp2zR"`, `"12345678901"`, `"password"`}
	base := map[string]string{"email": `"H@Example.COM"`, "password": `"Vq8#mLp2zR"`, "confirm_password": `"Vq8#mLp2zR"`}
	f.Add(`{"email": "h@example.com", "password": "Vq8#mLp2zR", "confirm_password": "Vq8#mLp2zR", ` +
		`"full_name": " Ada  Lovelace "}`)
	f.Add(`{"email": "h@example.com", "password": "Vq8#mLp2zR", "confirm_password": "Vq8#mLp2zR", ` +
		`"first_name": null, "last_name": ""}`)
	f.Add(`{"email": "h@xn--bcher-kva.example", "password": "hexample-h", "confirm_password": "hexample-h"}`)
	f.Add(`{}`)
	for _, field := range []string{"email", "password", "confirm_password", "first_name", "last_name", "full_name"} {
		for _, v := range hostile {
			parts := []string{}
			for k, bv := range base {
				if k != field {
					parts = append(parts, `"`+k+`": `+bv)
				}
			}
			f.Add("{" + strings.Join(append(parts, `"`+field+`": `+v), ", ") + "}")
		}
	}
	f.Fuzz(func(t *testing.T, body string) {
		b, ok := decode(body)
		if !ok {
			return // DecodeObject's refusals: FuzzDecodeObject's business
		}
		u, plain, err := readCreate(b)
		if err != nil {
			checkFieldErrors(t, body, err, createMessages)
			return
		}
		email := u.Email
		if !domain.ValidEmail(email) || domain.NormalizeEmail(email) != email ||
			utf8.RuneCountInString(email) > domain.MaxEmailLength ||
			plain == "" || utf8.RuneCountInString(domain.Deref(u.FirstName)) > domain.MaxUserFirstName ||
			utf8.RuneCountInString(domain.Deref(u.LastName)) > domain.MaxUserLastName || u.ID != "" ||
			u.PasswordHash != "" || u.IsActive {
			t.Fatalf("%.200q accepted as %+v", body, u)
		}
		echo, err := json.Marshal(map[string]any{"email": u.Email, "password": plain, "confirm_password": plain,
			"first_name": u.FirstName, "last_name": u.LastName})
		if err != nil {
			t.Fatal(err)
		}
		b, _ = decode(string(echo))
		u2, plain2, err := readCreate(b)
		if err != nil || plain2 != plain || !reflect.DeepEqual(u2, u) {
			t.Fatalf("%.200q gave %+v; sent back as %s it gave %+v, %v", body, u, echo, u2, err)
		}
	})
}

func decode(body string) (*httpapi.Body, bool) {
	r := httptest.NewRequest(http.MethodPost, UsersPath, strings.NewReader(body))
	r.Header.Set("Content-Type", "application/json")
	b, err := httpapi.DecodeObject(r)
	return b, err == nil
}

// checkFieldErrors fails unless err is EINVALID with field errors only, each field one the body
// reads, each message one of that field's, and
// none twice.
func checkFieldErrors(t *testing.T, body string, err error, allowed map[string][]string) {
	t.Helper()
	var e *domain.Error
	if !errors.As(err, &e) || e.Code != domain.EINVALID || e.Detail != "" || len(e.Fields) == 0 {
		t.Fatalf("%.200q: %v is not a field error", body, err)
	}
	for field, msgs := range e.Fields {
		for i, m := range msgs {
			if !slices.Contains(allowed[field], m) || slices.Contains(msgs[:i], m) {
				t.Fatalf("%.200q: %s: %q", body, field, msgs)
			}
		}
	}
}
