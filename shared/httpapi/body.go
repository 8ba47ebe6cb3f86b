package httpapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/reportingplatform/api/shared/domain"
)

// Body is a JSON object body read field by field with DRF's serializer-field rules. Each reader records
// its field's errors; Err returns them all at once, as DRF reports every failing field.
type Body struct {
	fields map[string]json.RawMessage
	errs   domain.FieldErrors
}

// Has reports whether the client sent name (null included).
func (b *Body) Has(name string) bool {
	_, ok := b.fields[name]
	return ok
}

// Fail records an error under field.
func (b *Body) Fail(field, msg string) { b.errs.Add(field, msg) }

// Failed reports whether field already has an error.
func (b *Body) Failed(field string) bool { return b.errs.Has(field) }

// Errors returns the recorded errors, for a handler that adds those found against stored data before
// it reports them all.
func (b *Body) Errors() domain.FieldErrors { return b.errs }

// Err returns the recorded errors as one EINVALID error, nil when there are none.
func (b *Body) Err() error { return b.errs.Err() }

func isNull(raw json.RawMessage) bool { return bytes.Equal(bytes.TrimSpace(raw), []byte("null")) }

// Text describes a DRF CharField (or EmailField).
type Text struct {
	Required   bool
	AllowNull  bool
	AllowBlank bool
	MaxLength  int  // 0: no limit
	Email      bool // EmailField: Django's EmailValidator
	NoTrim     bool // DRF trims white space unless trim_whitespace=False
	Choice     bool // a choice field: a value of another type is a wrong choice, not "Not a valid string."
}

// String reads a text field. It returns ok=false when the field is absent or failed; a null that is
// allowed gives (nil, true).
func (b *Body) String(name string, f Text) (*string, bool) {
	raw, present := b.fields[name]
	if !present {
		if f.Required {
			b.Fail(name, domain.MsgRequired)
		}
		return nil, false
	}
	if isNull(raw) {
		if f.AllowNull {
			return nil, true
		}
		b.Fail(name, domain.MsgNull)
		return nil, false
	}
	s, ok := scalarText(raw)
	if !ok && f.Choice {
		// A choice field compares str(value) with its choices: any type is merely a wrong choice.
		b.Fail(name, domain.MsgChoice(pythonStr(raw)))
		return nil, false
	}
	if !ok {
		b.Fail(name, domain.MsgNotString)
		return nil, false
	}
	if !f.NoTrim {
		s = strings.TrimSpace(s)
	}
	if s == "" {
		if f.AllowBlank {
			return &s, true
		}
		b.Fail(name, domain.MsgBlank)
		return nil, false
	}
	if f.MaxLength > 0 && utf8.RuneCountInString(s) > f.MaxLength {
		b.Fail(name, domain.MsgMaxLength(f.MaxLength))
	}
	if strings.ContainsRune(s, 0) {
		b.Fail(name, "Null characters are not allowed.")
	}
	if f.Email && !domain.ValidEmail(s) {
		b.Fail(name, domain.MsgEmail)
	}
	if b.Failed(name) {
		return nil, false
	}
	return &s, true
}

// scalarText is DRF's CharField input rule: strings, and numbers as their text; not booleans, lists or
// objects.
func scalarText(raw json.RawMessage) (string, bool) {
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		return s, true
	}
	if t := pythonType(raw); t == "int" || t == "float" {
		return pythonStr(raw), true
	}
	return "", false
}

// Choice reads an integer choice field (DRF ChoiceField over integer choices): 1 and "1" are both 1.
func (b *Body) Choice(name string, valid func(int) bool, required bool) (int, bool) {
	raw, present := b.fields[name]
	if !present {
		if required {
			b.Fail(name, domain.MsgRequired)
		}
		return 0, false
	}
	if isNull(raw) {
		b.Fail(name, domain.MsgNull)
		return 0, false
	}
	text := pythonStr(raw)
	n, err := strconv.Atoi(text)
	if err != nil || !valid(n) || strconv.Itoa(n) != text {
		b.Fail(name, domain.MsgChoice(text))
		return 0, false
	}
	return n, true
}

// UUID reads a UUID field (DRF UUIDField) and returns it in canonical lower-case form. The string is
// taken as sent, in any form Python's uuid.UUID(hex) takes: white space around it makes it no UUID
// (SPEC §1).
func (b *Body) UUID(name string, required, allowNull bool) (*string, bool) {
	return b.uuid(name, required, allowNull, false)
}

// Reference reads a primary-key reference to a UUID (DRF PrimaryKeyRelatedField): as UUID, except that
// an empty string is null, as DRF's relational fields take it (SPEC §1: `parent: ""` is no parent,
// `organization_id: ""` is `This field may not be null.`).
func (b *Body) Reference(name string, required, allowNull bool) (*string, bool) {
	return b.uuid(name, required, allowNull, true)
}

func (b *Body) uuid(name string, required, allowNull, reference bool) (*string, bool) {
	raw, present := b.fields[name]
	if !present {
		if required {
			b.Fail(name, domain.MsgRequired)
		}
		return nil, false
	}
	if isNull(raw) || (reference && isEmptyString(raw)) {
		if allowNull {
			return nil, true
		}
		b.Fail(name, domain.MsgNull)
		return nil, false
	}
	id, ok := parseUUID(raw)
	if !ok {
		b.Fail(name, domain.MsgUUID)
		return nil, false
	}
	return &id, true
}

func isEmptyString(raw json.RawMessage) bool {
	var s string
	return json.Unmarshal(raw, &s) == nil && s == ""
}

// parseUUID reads a JSON string as a UUID, as sent (no trim).
func parseUUID(raw json.RawMessage) (string, bool) {
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", false
	}
	return ParseUUID(s)
}

// UUIDList reads a list of UUIDs (DRF ListField / many=True primary keys). Bad entries are reported by
// their index, as DRF does: {"field": {"0": [...]}} is flattened to the message of the first bad entry.
// A list of more than maxItems entries (duplicates count, as DRF's max_length counts them) is refused
// once its entries are valid, as DRF runs the validator after them; 0 sets no bound.
func (b *Body) UUIDList(name string, maxItems int) ([]string, bool) {
	raw, present := b.fields[name]
	if !present {
		return nil, false
	}
	if isNull(raw) {
		b.Fail(name, domain.MsgNull)
		return nil, false
	}
	if t := pythonType(raw); t != "list" {
		b.Fail(name, fmt.Sprintf("Expected a list of items but got type \"%s\".", t))
		return nil, false
	}
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil {
		b.Fail(name, domain.MsgUUID)
		return nil, false
	}
	ids := make([]string, 0, len(items))
	seen := map[string]bool{}
	for _, item := range items {
		id, ok := parseUUID(item)
		if !ok {
			b.Fail(name, domain.MsgUUID)
			return nil, false
		}
		if !seen[id] {
			seen[id] = true
			ids = append(ids, id)
		}
	}
	if maxItems > 0 && len(items) > maxItems {
		b.Fail(name, domain.MsgMaxElements(maxItems))
		return nil, false
	}
	return ids, true
}
