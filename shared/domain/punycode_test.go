package domain

import (
	"strings"
	"testing"

	"golang.org/x/net/idna"
)

// TestPunycode: RFC 3492's own samples (section 7.1), and the same answers as x/net/idna's Punycode
// profile, which the email check used before, for hosts of every kind of label.
func TestPunycode(t *testing.T) {
	for label, want := range map[string]string{
		"bücher":                 "bcher-kva",
		"münchen":                "mnchen-3ya",
		"ليهمابتكلموشعربي؟":      "egbpdaj6bu4bxfgehfvwxn",
		"他们为什么不说中文":              "ihqwcrb4cv8a8dqg056pqjye",
		"Pročprostěnemluvíčesky": "Proprostnemluvesky-uyb24dma41a",
		"3年B組金八先生":               "3B-ww4c5e180e575a65lsy2b",
	} {
		if got, ok := punycode(label); !ok || got != want {
			t.Errorf("punycode(%q) = %q %v, want %q", label, got, ok, want)
		}
	}
	for _, host := range []string{
		"exämple.com", "münchen.de", "例え.テスト", "ü.ü.ü", "a-ü.com", "ü-.com", "-ü.com", "ü", "ü.", ".ü",
		"ÜBER.de", "xn--ü.com", "ü" + strings.Repeat("ä", 80) + ".com", "\u200dü.com", "ü\x00.com", "\xffü.com",
		"😀.example", "ß.de", "ﬁ.com",
	} {
		want, err := idna.ToASCII(host)
		got, ok := punycodeASCII(host)
		if err == nil && (!ok || got != want) {
			t.Errorf("punycodeASCII(%q) = %q %v, want %q as x/net/idna", host, got, ok, want)
		}
	}
}

// FuzzPunycode holds punycodeASCII to x/net/idna's Punycode profile wherever that accepts a host.
func FuzzPunycode(f *testing.F) {
	for _, s := range []string{"exämple.com", "münchen.de", "例え.テスト", "a.b", "😀"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, host string) {
		want, err := idna.ToASCII(host)
		got, ok := punycodeASCII(host)
		if err == nil && (!ok || got != want) {
			t.Errorf("punycodeASCII(%q) = %q %v, want %q as x/net/idna", host, got, ok, want)
		}
	})
}
