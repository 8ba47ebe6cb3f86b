package httpapi

import (
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"

	"github.com/reportingplatform/api/shared/domain"
)

func decode(t *testing.T, body string) *Body {
	t.Helper()
	r := httptest.NewRequest("PATCH", "/x", strings.NewReader(body))
	r.Header.Set("Content-Type", "application/json")
	b, err := DecodeObject(r)
	if err != nil {
		t.Fatalf("decode %s: %v", body, err)
	}
	return b
}

func fieldErrors(t *testing.T, b *Body) map[string][]string {
	t.Helper()
	err := b.Err()
	if err == nil {
		return nil
	}
	e, ok := err.(*domain.Error)
	if !ok || e.Code != domain.EINVALID {
		t.Fatalf("not a validation error: %v", err)
	}
	return e.Fields
}

func TestStringField(t *testing.T) {
	for _, tc := range []struct {
		name, body string
		rule       Text
		want       *string
		errs       map[string][]string
	}{
		{"trimmed", `{"f": "  a b  "}`, Text{}, domain.Ptr("a b"), nil},
		{"kept untrimmed", `{"f": " a "}`, Text{NoTrim: true}, domain.Ptr(" a "), nil},
		{"number as text, as DRF", `{"f": 12}`, Text{}, domain.Ptr("12"), nil},
		{"float as Python writes it", `{"f": 1.50}`, Text{}, domain.Ptr("1.5"), nil},
		{"float in exponent form", `{"f": 1e2}`, Text{}, domain.Ptr("100.0"), nil},
		{"large float", `{"f": 1e16}`, Text{}, domain.Ptr("1e+16"), nil},
		{"small float", `{"f": 0.000015}`, Text{}, domain.Ptr("1.5e-05"), nil},
		{"float out of range", `{"f": -1e400}`, Text{}, domain.Ptr("-inf"), nil},
		{"bool refused", `{"f": true}`, Text{}, nil, map[string][]string{"f": {"Not a valid string."}}},
		{"object refused", `{"f": {}}`, Text{}, nil, map[string][]string{"f": {"Not a valid string."}}},
		{"missing and required", `{}`, Text{Required: true}, nil, map[string][]string{"f": {"This field is required."}}},
		{"missing, optional", `{}`, Text{}, nil, nil},
		{"null refused", `{"f": null}`, Text{}, nil, map[string][]string{"f": {"This field may not be null."}}},
		{"null allowed", `{"f": null}`, Text{AllowNull: true}, nil, nil},
		{"blank refused", `{"f": "   "}`, Text{}, nil, map[string][]string{"f": {"This field may not be blank."}}},
		{"blank allowed", `{"f": ""}`, Text{AllowBlank: true}, domain.Ptr(""), nil},
		{"max length in characters", `{"f": "ééé"}`, Text{MaxLength: 3}, domain.Ptr("ééé"), nil},
		{"too long", `{"f": "abcd"}`, Text{MaxLength: 3}, nil,
			map[string][]string{"f": {"Ensure this field has no more than 3 characters."}}},
		{"bad email", `{"f": "a@b"}`, Text{Email: true}, nil, map[string][]string{"f": {"Enter a valid email address."}}},
		{"email", `{"f": "a.b+c@example.co.uk"}`, Text{Email: true}, domain.Ptr("a.b+c@example.co.uk"), nil},
		{"null character", `{"f": "a\u0000b"}`, Text{}, nil, map[string][]string{"f": {"Null characters are not allowed."}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := decode(t, tc.body)
			got, _ := b.String("f", tc.rule)
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("value %v, want %v", deref(got), deref(tc.want))
			}
			if errs := fieldErrors(t, b); !reflect.DeepEqual(errs, tc.errs) {
				t.Errorf("errors %v, want %v", errs, tc.errs)
			}
		})
	}
}

func deref(p *string) string {
	if p == nil {
		return "<nil>"
	}
	return *p
}

func TestChoiceField(t *testing.T) {
	valid := func(n int) bool { return n >= 0 && n <= 2 }
	for _, tc := range []struct {
		body string
		want int
		err  string
	}{
		{`{"f": 2}`, 2, ""},
		{`{"f": "1"}`, 1, ""},
		{`{"f": 3}`, 0, `"3" is not a valid choice.`},
		{`{"f": "x"}`, 0, `"x" is not a valid choice.`},
		{`{"f": 1.0}`, 0, `"1.0" is not a valid choice.`},
		{`{"f": true}`, 0, `"True" is not a valid choice.`},
		{`{"f": "01"}`, 0, `"01" is not a valid choice.`},
		{`{"f": null}`, 0, "This field may not be null."},
		{`{"f": [1, "a", {"b": null, "c": false}]}`, 0, `"[1, 'a', {'b': None, 'c': False}]" is not a valid choice.`},
		{`{"f": ["it's"]}`, 0, `"["it's"]" is not a valid choice.`},
	} {
		t.Run(tc.body, func(t *testing.T) {
			b := decode(t, tc.body)
			got, ok := b.Choice("f", valid, false)
			errs := fieldErrors(t, b)
			if tc.err == "" {
				if !ok || got != tc.want || errs != nil {
					t.Fatalf("got %d %v %v", got, ok, errs)
				}
				return
			}
			if ok || !reflect.DeepEqual(errs, map[string][]string{"f": {tc.err}}) {
				t.Fatalf("got %v %v, want error %q", ok, errs, tc.err)
			}
		})
	}
}

func TestUUIDFields(t *testing.T) {
	b := decode(t,
		`{"a": "6F9619FF-8B86-D011-B42D-00CF4FC964FF", "b": "nope", "c": null, "d": `+
			`["6f9619ff-8b86-d011-b42d-00cf4fc964ff", "6f9619ff-8b86-d011-b42d-00cf4fc964ff"], "e": "x", "f": [1], "g": {}}`)
	a, _ := b.UUID("a", true, false)
	if deref(a) != "6f9619ff-8b86-d011-b42d-00cf4fc964ff" {
		t.Errorf("a = %s", deref(a))
	}
	b.UUID("b", true, false)
	if c, ok := b.UUID("c", false, true); c != nil || !ok {
		t.Errorf("c = %v %v", c, ok)
	}
	if d, _ := b.UUIDList("d", 0); !reflect.DeepEqual(d, []string{"6f9619ff-8b86-d011-b42d-00cf4fc964ff"}) {
		t.Errorf("d = %v", d)
	}
	b.UUIDList("e", 0)
	b.UUIDList("f", 0)
	b.UUIDList("g", 0)
	b.UUID("missing", true, false)
	want := map[string][]string{
		"b":       {"Must be a valid UUID."},
		"e":       {`Expected a list of items but got type "str".`},
		"f":       {"Must be a valid UUID."},
		"g":       {`Expected a list of items but got type "dict".`},
		"missing": {"This field is required."},
	}
	if errs := fieldErrors(t, b); !reflect.DeepEqual(errs, want) {
		t.Errorf("errors %v\nwant %v", errs, want)
	}
}

// TestUUIDListBound: DRF ListField's max_length counts the entries as sent (duplicates too) and is
// judged once the entries are valid.
func TestUUIDListBound(t *testing.T) {
	const id = "6f9619ff-8b86-d011-b42d-00cf4fc964ff"
	list := func(n int, last string) string {
		return `[` + strings.Repeat(`"`+id+`", `, n-1) + `"` + last + `"]`
	}
	b := decode(t, `{"at": `+list(3, id)+`, "over": `+list(4, id)+`, "bad": `+list(4, "x")+`}`)
	if ids, ok := b.UUIDList("at", 3); !ok || !reflect.DeepEqual(ids, []string{id}) {
		t.Errorf("at the bound: %v %v", ids, ok)
	}
	if ids, ok := b.UUIDList("over", 3); ok || ids != nil {
		t.Errorf("over the bound: %v %v", ids, ok)
	}
	b.UUIDList("bad", 3)
	want := map[string][]string{"over": {"Ensure this field has no more than 3 elements."},
		"bad": {"Must be a valid UUID."}}
	if errs := fieldErrors(t, b); !reflect.DeepEqual(errs, want) {
		t.Errorf("errors %v\nwant %v", errs, want)
	}
}

// TestReferenceFields: SPEC §1. A UUID is taken as sent, white space around it makes it none; an empty
// string sent for a reference is null (DRF's relational fields), for a UUID field no UUID.
func TestReferenceFields(t *testing.T) {
	const id = "6f9619ff-8b86-d011-b42d-00cf4fc964ff"
	b := decode(t, `{"spaced": " `+id+` ", "tabbed": "\t`+id+`", "ref spaced": "`+id+`\n", "list spaced": [" `+id+`"],
		"uuid blank": "", "ref blank": "", "ref blank not null": "", "ref": "`+strings.ToUpper(id)+`"}`)
	b.UUID("spaced", true, false)
	b.UUID("tabbed", true, true)
	b.Reference("ref spaced", true, true)
	b.UUIDList("list spaced", 100)
	b.UUID("uuid blank", true, true)
	if got, ok := b.Reference("ref blank", false, true); got != nil || !ok {
		t.Errorf("ref blank = %v %v, want null", got, ok)
	}
	b.Reference("ref blank not null", false, false)
	if got, ok := b.Reference("ref", true, false); deref(got) != id || !ok {
		t.Errorf("ref = %s %v", deref(got), ok)
	}
	want := map[string][]string{
		"spaced": {"Must be a valid UUID."}, "tabbed": {"Must be a valid UUID."}, "ref spaced": {"Must be a valid UUID."},
		"list spaced": {"Must be a valid UUID."}, "uuid blank": {"Must be a valid UUID."},
		"ref blank not null": {"This field may not be null."},
	}
	if errs := fieldErrors(t, b); !reflect.DeepEqual(errs, want) {
		t.Errorf("errors %v\nwant %v", errs, want)
	}
}

func TestDecodeObjectRefusals(t *testing.T) {
	for _, tc := range []struct {
		name, body, ct string
		code           domain.Code
		detail         string
		fields         domain.FieldErrors
	}{
		{"text/plain", `{}`, "text/plain", domain.EMEDIATYPE, `Unsupported media type "text/plain" in request.`, nil},
		{"no content type", `{}`, "", domain.EMEDIATYPE, `Unsupported media type "" in request.`, nil},
		{"white space as text/plain", "  \n", "text/plain", domain.EMEDIATYPE,
			`Unsupported media type "text/plain" in request.`, nil},
		{"too large", `{"a": "` + strings.Repeat("x", MaxBodyBytes) + `"}`, "application/json", domain.ETOOLARGE,
			"Request body too large.", nil},
		{"list", `[]`, "application/json", domain.EINVALID, "",
			map[string][]string{"non_field_errors": {"Invalid data. Expected a dictionary, but got list."}}},
		{"null", `null`, "application/json", domain.EINVALID, "",
			map[string][]string{"non_field_errors": {"Invalid data. Expected a dictionary, but got NoneType."}}},
		{"float", `1.5`, "application/json", domain.EINVALID, "",
			map[string][]string{"non_field_errors": {"Invalid data. Expected a dictionary, but got float."}}},
		{"bool", `true`, "application/json", domain.EINVALID, "",
			map[string][]string{"non_field_errors": {"Invalid data. Expected a dictionary, but got bool."}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := httptest.NewRequest("POST", "/x", strings.NewReader(tc.body))
			if tc.ct != "" {
				r.Header.Set("Content-Type", tc.ct)
			}
			_, err := DecodeObject(r)
			e, ok := err.(*domain.Error)
			if !ok || e.Code != tc.code || e.Detail != tc.detail || !reflect.DeepEqual(e.Fields, tc.fields) {
				t.Fatalf("got %v", err)
			}
		})
	}
	for _, bad := range []string{`{"a": `, `{"a": 1} x`, `{a: 1}`, `{"a": 1,}`, "  \n", "{\"a\": \"\xff\"}"} {
		t.Run("syntax "+bad, func(t *testing.T) {
			r := httptest.NewRequest("POST", "/x", strings.NewReader(bad))
			r.Header.Set("Content-Type", "application/json")
			_, err := DecodeObject(r)
			e, ok := err.(*domain.Error)
			if !ok || e.Code != domain.EINVALID || !strings.HasPrefix(e.Detail, "JSON parse error - ") {
				t.Fatalf("got %v", err)
			}
		})
	}
}

// FuzzBody holds that no body a client sends makes decoding or field reading panic.
func FuzzBody(f *testing.F) {
	for _, s := range []string{`{}`, `{"a": "x", "b": [1, "2"], "c": null}`, `[`, `"\ud800"`, `{"a": 1e999}`,
		`{"a": {"b": []}}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body string) {
		r := httptest.NewRequest("POST", "/x", strings.NewReader(body))
		r.Header.Set("Content-Type", "application/json")
		b, err := DecodeObject(r)
		if err != nil {
			return
		}
		b.String("a", Text{Required: true, MaxLength: 5, Email: true})
		b.Choice("a", func(n int) bool { return n == 1 }, true)
		b.UUID("a", true, false)
		b.UUIDList("b", 0)
		_ = b.Err()
	})
}

func TestParseUUID(t *testing.T) {
	const want = "6f9619ff-8b86-d011-b42d-00cf4fc964ff"
	for in, ok := range map[string]bool{
		want: true, "6F9619FF8B86D011B42D00CF4FC964FF": true, "{" + want + "}": true, "urn:uuid:" + want: true,
		"6f96-19ff8b86d011b42d00cf4fc964ff": true, "": false, "x": false, want + "0": false,
		"6f9619ff-8b86-d011-b42d-00cf4fc964fg": false,
	} {
		got, gotOK := ParseUUID(in)
		if gotOK != ok || (ok && got != want) {
			t.Errorf("ParseUUID(%q) = %q, %v", in, got, gotOK)
		}
	}
}
