package domain

import (
	"context"
	"strings"
	"testing"
	"time"
)

func TestTokenStrings(t *testing.T) {
	const id = "6f9619ff-8b86-4011-b42d-00cf4fc964ff"
	tok, hash, err := NewTokenString(id)
	if err != nil {
		t.Fatal(err)
	}
	gotID, gotHash, ok := ParseTokenString(tok)
	if !ok || gotID != id || gotHash != hash || hash == tok || len(hash) != 64 {
		t.Fatalf("parse %q: %q %q %v", tok, gotID, gotHash, ok)
	}
	other, _, _ := NewTokenString(id)
	if other == tok {
		t.Fatal("two tokens are equal")
	}
	for _, bad := range []string{"", "x", tok + "x", strings.Replace(tok, ".", "", 1), tok[:40], "zz" + tok[2:],
		tok[:33] + "!" + tok[34:]} {
		if _, _, ok := ParseTokenString(bad); ok {
			t.Errorf("%q parsed", bad)
		}
	}
}

func TestEmails(t *testing.T) {
	for email, want := range map[string]bool{
		"ada@example.com": true, "a.b+c@sub.example.co.uk": true, `"quoted"@example.com`: true, "x@localhost": true,
		"": false, "ada": false, "ada@": false, "@example.com": false, "ada@example": false, "a b@example.com": false,
		"user@exämple.com": true, "user@[1.2.3.4]": true, "user@[::1]": true, "user@[1.2.3]": false, "user@[zz]": false,
		"ada@-example.com": false, "ada@example-.com": false, "ada@example.com\n": false, "a..b@example.com": false,
	} {
		if got := ValidEmail(email); got != want {
			t.Errorf("ValidEmail(%q) = %v", email, got)
		}
	}
	if got := NormalizeEmail(" Ada.L@EXAMPLE.Com "); got != "Ada.L@example.com" {
		t.Errorf("NormalizeEmail = %q", got)
	}
	if EmailKey("Ada@Example.COM") != "ada@example.com" {
		t.Error("EmailKey is not case-insensitive")
	}
}

// TestEmailsFoldASCIILettersOnly: SPEC §2 and §4. Letters beyond ASCII keep their own key, so a
// look-alike is another address; Django's validator accepts them all, so each can be an account.
func TestEmailsFoldASCIILettersOnly(t *testing.T) {
	for _, tc := range []struct{ email, key string }{
		{"KATE@Example.COM", "kate@example.com"},
		{" Kate@example.com\t", "kate@example.com"},
		{"\u212Aate@example.com", "\u212Aate@example.com"},       // Kelvin sign: not "kate@"
		{"v\u0130ctim1@example.com", "v\u0130ctim1@example.com"}, // dotted capital I: not "victim1@"
		{"V\u0131CTIM1@example.com", "v\u0131ctim1@example.com"}, // dotless i: only the ASCII letters fold
		{"\u017Fam@example.com", "\u017Fam@example.com"},         // long s: not "sam@"
		{"EMILE@\u00C9XAMPLE.COM", "emile@\u00C9xample.com"},     // other letters beyond ASCII too
	} {
		if got := EmailKey(tc.email); got != tc.key {
			t.Errorf("EmailKey(%q) = %q, want %q", tc.email, got, tc.key)
		}
		if !ValidEmail(strings.TrimSpace(tc.email)) {
			t.Errorf("ValidEmail(%q) = false; Django's validator accepts it", tc.email)
		}
	}
	if EmailKey("\u212Aate@x.com") == EmailKey("kate@x.com") || EmailKey("\u017Fam@x.com") == EmailKey("sam@x.com") {
		t.Error("a look-alike shares its ASCII twin's key")
	}
	for email, want := range map[string]string{
		"a@\u0130x.COM": "a@i\u0307x.com", // Python's str.lower: i and a combining dot, not the ASCII i
		"a@\u212Ax.com": "a@kx.com",       // Python's str.lower maps the Kelvin sign to k, as IDNA does
		"\u212A@Ex.com": "\u212A@ex.com",  // the local part is kept as given
	} {
		if got := NormalizeEmail(email); got != want {
			t.Errorf("NormalizeEmail(%q) = %q, want %q", email, got, want)
		}
	}
	for _, email := range []string{`"v\u0130ctim"@example.com`, "a@\u0131x.com"} {
		if !ValidEmail(email) {
			t.Errorf("ValidEmail(%q) = false; Django's validator accepts it", email)
		}
	}
}

func TestEffectiveStatus(t *testing.T) {
	now := time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		status InvitationStatus
		expiry time.Time
		want   InvitationStatus
	}{
		{StatusPending, now.Add(time.Second), StatusPending},
		{StatusPending, now, StatusExpired},
		{StatusAccepted, now.Add(-time.Hour), StatusAccepted},
		{StatusRevoked, now.Add(-time.Hour), StatusRevoked},
	} {
		inv := Invitation{Status: tc.status, ExpiryDate: tc.expiry}
		if got := inv.EffectiveStatus(now); got != tc.want {
			t.Errorf("%d expiring %v: %d, want %d", tc.status, tc.expiry, got, tc.want)
		}
	}
}

func TestTimeFormat(t *testing.T) {
	ts := time.Date(2026, 11, 20, 10, 4, 5, 123456789, time.FixedZone("X", 3600))
	if got := FormatTime(ts); got != "2026-11-20T09:04:05.123456Z" {
		t.Fatalf("FormatTime = %s", got)
	}
	back, err := ParseTime("2026-11-20T09:04:05.123456Z")
	if err != nil || !back.Equal(ts.Truncate(time.Microsecond)) {
		t.Fatalf("ParseTime = %v %v", back, err)
	}
}

func TestRetryOnConflict(t *testing.T) {
	conflict := &Error{Code: ECONFLICT}
	for _, tc := range []struct {
		name      string
		failFirst int // attempts that lose before one that succeeds
		wantRuns  int
		wantCode  Code
	}{
		{"first attempt wins", 0, 1, ""},
		{"wins on the third", 2, 3, ""},
		{"every attempt loses", 10, 4, ECONFLICT},
	} {
		t.Run(tc.name, func(t *testing.T) {
			runs := 0
			err := RetryOnConflict(context.Background(), 4, func(n int) error {
				runs++
				if n != runs {
					t.Fatalf("attempt numbered %d, run %d", n, runs)
				}
				if n <= tc.failFirst {
					return conflict
				}
				return nil
			})
			if runs != tc.wantRuns || (err == nil) != (tc.wantCode == "") || (err != nil && ErrorCode(err) != tc.wantCode) {
				t.Fatalf("runs %d err %v, want %d runs and code %q", runs, err, tc.wantRuns, tc.wantCode)
			}
		})
	}
	t.Run("other errors end it at once", func(t *testing.T) {
		runs := 0
		err := RetryOnConflict(context.Background(), 4, func(int) error { runs++; return NotFound() })
		if runs != 1 || ErrorCode(err) != ENOTFOUND {
			t.Fatalf("runs %d err %v", runs, err)
		}
	})
}
