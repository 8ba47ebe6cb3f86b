package httpapi

import (
	"bytes"
	"encoding/json"
	"strings"
)

// pythonRepr writes a JSON container as Python's str() writes the list or dict json.loads makes of
// it ({'a': [1, True, None]}), for DRF messages that quote what was sent. Scalars go to pythonStr.
func pythonRepr(raw json.RawMessage) string {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var b strings.Builder
	if err := reprValue(dec, &b); err != nil {
		return string(bytes.TrimSpace(raw))
	}
	return b.String()
}

func reprValue(dec *json.Decoder, b *strings.Builder) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	switch t := tok.(type) {
	case json.Delim:
		closing, open := "]", "["
		if t == '{' {
			closing, open = "}", "{"
		}
		b.WriteString(open)
		for i := 0; dec.More(); i++ {
			if i > 0 {
				b.WriteString(", ")
			}
			if t == '{' {
				key, err := dec.Token()
				if err != nil {
					return err
				}
				b.WriteString(reprString(key.(string)) + ": ")
			}
			if err := reprValue(dec, b); err != nil {
				return err
			}
		}
		if _, err := dec.Token(); err != nil {
			return err
		}
		b.WriteString(closing)
	case string:
		b.WriteString(reprString(t))
	case json.Number:
		b.WriteString(pythonStr(json.RawMessage(t)))
	case bool:
		b.WriteString(map[bool]string{true: "True", false: "False"}[t])
	case nil:
		b.WriteString("None")
	}
	return nil
}

// reprString is Python's repr of a str: single quotes, unless the text has single quotes and no double.
func reprString(s string) string {
	quote := "'"
	if strings.Contains(s, "'") && !strings.Contains(s, `"`) {
		quote = `"`
	}
	r := strings.NewReplacer(`\`, `\\`, quote, `\`+quote, "\n", `\n`, "\r", `\r`, "\t", `\t`)
	return quote + r.Replace(s) + quote
}
