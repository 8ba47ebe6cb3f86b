package httpapi

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/reportingplatform/api/shared/domain"
)

// FuzzParseUUID holds ParseUUID and PathID to one rule: what is accepted is printed back in the one
// canonical form, which is accepted again as itself, in every decoration Python's uuid.UUID takes
// (upper case, no hyphens, braces, "urn:uuid:"); what is refused is, in a path, DRF's plain 404.
func FuzzParseUUID(f *testing.F) {
	const id = "6f9619ff-8b86-d011-b42d-00cf4fc964ff"
	for _, s := range []string{
		id, strings.ToUpper(id), strings.ReplaceAll(id, "-", ""), "{" + id + "}", "urn:uuid:" + id, "uuid:" + id,
		"6f96-19ff8b86d011b42d00cf4fc964ff", "{{" + id + "}}", "urn:urn:" + id, "-" + id + "-", " " + id, id + "\x00",
		"", "x", id + "0", id[:35] + "g", strings.Repeat("9", 300), "%00", "+" + strings.ReplaceAll(id, "-", "")[1:],
		"0x" + strings.ReplaceAll(id, "-", "")[2:], "6f9619ff_8b86_d011_b42d_00cf4fc964ff",
		"６f9619ff-8b86-d011-b42d-00cf4fc964ff",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, ok := ParseUUID(s)
		r := httptest.NewRequest(http.MethodGet, "/x", nil)
		r.SetPathValue("id", s)
		pathID, err := PathID(r)
		if !ok {
			if got != "" || err == nil || domain.ErrorCode(err) != domain.ENOTFOUND ||
				err.(*domain.Error).Detail != domain.MsgNotFound {
				t.Fatalf("%q refused as %q, path id %q, %v", s, got, pathID, err)
			}
			return
		}
		if err != nil || pathID != got {
			t.Fatalf("%q: ParseUUID %q, PathID %q, %v", s, got, pathID, err)
		}
		checkCanonicalUUID(t, got)
		if !subsequence(strings.ReplaceAll(got, "-", ""), strings.ToLower(s)) {
			t.Fatalf("%q read as %q, whose digits it does not hold in order", s, got)
		}
		for _, form := range []string{strings.ToUpper(got), strings.ReplaceAll(got, "-", ""), "{" + got + "}",
			"urn:uuid:" + got, "uuid:" + got} {
			if again, ok := ParseUUID(form); !ok || again != got {
				t.Fatalf("%q (from %q) read as %q, %v", form, s, again, ok)
			}
		}
	})
}

// subsequence reports whether the bytes of sub appear in s in order: parsing may drop decorations from
// the input, never invent or reorder digits.
func subsequence(sub, s string) bool {
	for i := 0; i < len(s) && sub != ""; i++ {
		if s[i] == sub[0] {
			sub = sub[1:]
		}
	}
	return sub == ""
}
