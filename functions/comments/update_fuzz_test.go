package comments

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

// FuzzCommentWrite reads any PUT or PATCH body with readChange. A refusal is the client's: 413 or a
// 400 whose messages are SPEC §1's and §6's under the fields written; an accepted body respects §6's
// limits (a choice of content_type, a non-blank text, a tag that the tag filter could list) and, sent
// back as a body, is read as the same change.
func FuzzCommentWrite(f *testing.F) {
	const id = "8ae83b59-9621-58f7-ae8c-5a712269c424"
	hostile := []string{`"` + strings.Repeat("x", 300) + `"`, `"` + strings.Repeat("😀", 60) + `"`, `""`, `" "`, `null`,
		`true`, `-1`, `0`, `1.5`, `1e400`, `99999999999999999999999999`, `[]`, `["report"]`, `{}`, `{"a": [1]}`,
		`"\u0000"`, `"\ud800"`, `"not-a-uuid"`, `"` + id + `"`, `"{` + strings.ToUpper(id) + `}"`, `"report "`,
		`"report"`, `"report_attitude"`, `"datasetconfiguration"`, `"` + strings.Repeat("t", 51) + `"`, `" t "`}
	base := map[string]string{"content_type": `"report"`, "object_id": `"` + id + `"`, "tag": `"t"`,
		"text": `"x"`, "parent": `null`}
	f.Add(`{}`, false)
	f.Add(`{}`, true)
	for field := range base {
		for _, v := range hostile {
			parts := []string{`"` + field + `": ` + v}
			for k, bv := range base {
				if k != field {
					parts = append(parts, `"`+k+`": `+bv)
				}
			}
			slices.Sort(parts)
			body := "{" + strings.Join(parts, ", ") + "}"
			f.Add(body, true)
			f.Add(`{"`+field+`": `+v+`}`, false)
		}
	}
	f.Fuzz(func(t *testing.T, body string, isPut bool) {
		mode := patch
		if isPut {
			mode = put
		}
		c, err := readChange(jsonRequest(body), mode)
		if err != nil {
			checkWriteRefusal(t, body, err)
			return
		}
		if isPut && (c.contentType == nil || c.objectID == nil) {
			t.Fatalf("%.200q: a PUT without content_type or object_id accepted", body)
		}
		tag, text := domain.Deref(c.tag.value), domain.Deref(c.text)
		switch {
		case c.contentType != nil && !domain.ValidContentType(*c.contentType),
			c.tag.value != nil &&
				(strings.TrimSpace(tag) != tag || tag == "" || utf8.RuneCountInString(tag) > domain.MaxCommentTag ||
					strings.ContainsRune(tag, 0)),
			c.text != nil &&
				(strings.TrimSpace(text) != text || text == "" || utf8.RuneCountInString(text) > domain.MaxCommentText ||
					strings.ContainsRune(text, 0)),
			!canonical(c.objectID), !canonical(c.parent.value), c.parent.value != nil &&
				!c.parent.sent, c.tag.value != nil && !c.tag.sent:
			t.Fatalf("%.200q accepted as %+v", body, *c)
		}
		echo := map[string]any{}
		for field, v := range map[string]*string{"content_type": c.contentType, "object_id": c.objectID, "text": c.text} {
			if v != nil {
				echo[field] = *v
			}
		}
		if c.tag.sent {
			echo["tag"] = c.tag.value
		}
		if c.parent.sent {
			echo["parent"] = c.parent.value
		}
		raw, err := json.Marshal(echo)
		if err != nil {
			t.Fatal(err)
		}
		again, err := readChange(jsonRequest(string(raw)), mode)
		if err != nil || !reflect.DeepEqual(again, c) {
			t.Fatalf("%.200q gave %+v; sent back as %.200s it gave %+v, %v", body, *c, raw, again, err)
		}
	})
}

// writeMessages are the messages each written field may earn from the body alone.
var writeMessages = map[string][]string{
	"object_id": {domain.MsgRequired, domain.MsgNull, domain.MsgUUID},
	"parent":    {domain.MsgUUID},
	"tag": {domain.MsgNotString, domain.MsgBlank, domain.MsgMaxLength(domain.MaxCommentTag),
		"Null characters are not allowed."},
	"text": {domain.MsgNull, domain.MsgNotString, domain.MsgBlank, domain.MsgMaxLength(domain.MaxCommentText),
		"Null characters are not allowed."},
	"content_type": {domain.MsgRequired, domain.MsgNull, domain.MsgMaxLength(domain.MaxCommentType),
		"Null characters are not allowed."},
}

func checkWriteRefusal(t *testing.T, body string, err error) {
	t.Helper()
	var e *domain.Error
	if !errors.As(err, &e) {
		t.Fatalf("%.200q: %v is not a domain error", body, err)
	}
	switch {
	case e.Code == domain.ETOOLARGE:
		if len(body) <= httpapi.MaxBodyBytes {
			t.Fatalf("%d bytes refused as too large", len(body))
		}
	case e.Code == domain.EINVALID &&
		(strings.HasPrefix(e.Detail, "JSON parse error - ") || e.Fields[domain.NonFieldErrors] != nil):
		// DecodeObject's refusals, held to SPEC §1 by FuzzDecodeObject.
	case e.Code == domain.EINVALID && e.Detail == "" && len(e.Fields) > 0:
		for field, msgs := range e.Fields {
			for i, m := range msgs {
				choice := field == "content_type" && strings.HasPrefix(m, `"`) && strings.HasSuffix(m, `" is not a valid choice.`)
				if !choice && !slices.Contains(writeMessages[field], m) || slices.Contains(msgs[:i], m) {
					t.Fatalf("%.200q: %s: %q", body, field, msgs)
				}
			}
		}
	default:
		t.Fatalf("%.200q: %v (code %s)", body, err, e.Code)
	}
}

func jsonRequest(body string) *http.Request {
	r := httptest.NewRequest(http.MethodPatch, "/api/v1/comments/x/", strings.NewReader(body))
	r.Header.Set("Content-Type", "application/json")
	return r
}

func canonical(id *string) bool {
	if id == nil {
		return true
	}
	got, ok := httpapi.ParseUUID(*id)
	return ok && got == *id
}
