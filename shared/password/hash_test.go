package password

import (
	"errors"
	"regexp"
	"strings"
	"testing"
)

// Hashes made by implementations independent of golang.org/x/crypto:
//
//   - cliID*, cliI, cliD: the argon2 reference implementation's CLI (Debian
//     package argon2 0~20171227), e.g.
//     echo -n 'correct horse' | argon2 saltsaltsalt16by -id -t 5 -k 7168 -p 1 -l 32 -e
//     prefixed with "argon2" as Django stores them.
//   - cffi*: argon2-cffi 21.1.0 (Debian python3-argon2), the library Django
//     calls, with a 22-character ASCII salt as Django generates:
//     "argon2" + argon2.low_level.hash_secret("Pässwörd 1".encode(),
//     b"Ab3dE6gH9jK2mN5pQ8sT1v", time_cost=2, memory_cost=8192,
//     parallelism=2, hash_len=32, type=argon2.Type.ID).decode()
//   - pbkdf2*: python3's hashlib.pbkdf2_hmac("sha256", password, salt,
//     iterations) in base64, formatted as Django's pbkdf2_sha256 hasher.
const (
	cliIDCurrent = "argon2$argon2id$v=19$m=7168,t=5,p=1$c2FsdHNhbHRzYWx0MTZieQ$BpRFE7uRSCXi0y4KWnAVkU+dMZ5qsCs2PSJgICulFCQ"
	cliIDOWASP19 = "argon2$argon2id$v=19$m=19456,t=2,p=1$c2FsdHNhbHRzYWx0MTZieQ$rXYf9AKjT3p2MM0CdD0LSmRFe91Rkvlw+ySyFsU6Gxc"
	cliIDStrong  = "argon2$argon2id$v=19$m=32768,t=2,p=1$c2FsdHNhbHRzYWx0MTZieQ$cNdYruDIulVcJKxxWQTEpB5qkEkRkU11ivIHwj34Jn8"
	cliIDWeak    = "argon2$argon2id$v=19$m=8192,t=1,p=2$c2FsdHNhbHRzYWx0MTZieQ$0NJATNRHeje50EE2wm2Q/KPWSusIGBdX8qfymxIPPOU"
	cliI         = "argon2$argon2i$v=19$m=4096,t=3,p=1$c2FsdHNhbHRzYWx0MTZieQ$WHxHCCcrGy5qwNDPnTRYwmWdmG3hu0e7wwXsEpW7la8"
	cliD         = "argon2$argon2d$v=19$m=8192,t=1,p=1$c2FsdHNhbHRzYWx0MTZieQ$nQk7WXeDRTHwX3RFtbcmfcci6sVluUizDwkug/2aa4w"
	cffiID       = "argon2$argon2id$v=19$m=8192,t=2,p=2$QWIzZEU2Z0g5aksybU41cFE4c1Qxdg$io2qR1k9XE+Xjd2a/P929SdY4W7u/fAQCDqtKPPiLjY"
	cffiI        = "argon2$argon2i$v=19$m=8192,t=2,p=1$QWIzZEU2Z0g5aksybU41cFE4c1Qxdg$mFY3l5H40KqglLJXJMhrDhfNY4+gzNsyJuW4JMelXsY"
	pbkdf2Salt   = "pbkdf2_sha256$1000$salt$nNr3AKmYFOXvzxzP+2VlPwJFPcGKllppLaQIvsodtc4="
	pbkdf2UTF8   = "pbkdf2_sha256$1000$Ab3dE6gH9jK2$+IGRStY5EIkInPrZHJtwDXRq3YUjHzTpakY7z4PTSCE="
	pbkdf2Empty  = "pbkdf2_sha256$1$x$yb9iKunqNijXRQKUvO6LoyiwVgfOzKs1+3gaWy8rzxc="
)

// djangoArgon2id matches what Hash must produce: Django's prefix, the
// current parameters, a 16-byte salt and a 32-byte hash in unpadded base64.
var djangoArgon2id = regexp.MustCompile(
	`^argon2\$argon2id\$v=19\$m=7168,t=5,p=1\$[A-Za-z0-9+/]{22}\$[A-Za-z0-9+/]{43}$`)

func TestHashVerifyRoundTrip(t *testing.T) {
	const plain = "correct horse battery staple"
	encoded, err := Hash(plain)
	if err != nil {
		t.Fatalf("Hash: %v", err)
	}
	if !djangoArgon2id.MatchString(encoded) {
		t.Fatalf("Hash = %q, not in Django's argon2id format", encoded)
	}
	tests := []struct {
		name        string
		plain       string
		ok, rehash  bool
		wantErrNone bool
	}{
		{"right password", plain, true, false, true},
		{"wrong password", "correct horse battery stapler", false, false, true},
		{"case matters", "Correct horse battery staple", false, false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ok, rehash, err := Verify(tt.plain, encoded)
			if ok != tt.ok || rehash != tt.rehash || err != nil {
				t.Errorf("Verify = (%v, %v, %v), want (%v, %v, nil)", ok, rehash, err, tt.ok, tt.rehash)
			}
		})
	}
}

// TestEncodeMatchesReference checks that our encoder writes byte for byte
// what the reference implementation prints for the same salt and key.
func TestEncodeMatchesReference(t *testing.T) {
	h, err := parseArgon2(cliIDCurrent)
	if err != nil {
		t.Fatalf("parseArgon2: %v", err)
	}
	if got := encodeArgon2id(h.salt, h.key); got != cliIDCurrent {
		t.Errorf("encodeArgon2id = %q, want %q", got, cliIDCurrent)
	}
}

func TestVerifyKnownHashes(t *testing.T) {
	tests := []struct {
		name       string
		plain      string
		encoded    string
		ok, rehash bool
	}{
		{"argon2id current params", "correct horse", cliIDCurrent, true, false},
		{"argon2id stronger memory", "correct horse", cliIDStrong, true, false},
		{"argon2id OWASP's 19 MiB row, written before", "correct horse", cliIDOWASP19, true, false},
		{"argon2id weaker params", "correct horse", cliIDWeak, true, true},
		{"argon2id wrong password", "correct horsE", cliIDCurrent, false, false},
		{"argon2i legacy", "correct horse", cliI, true, true},
		{"argon2-cffi argon2id, Django salt", "Pässwörd 1", cffiID, true, true},
		{"argon2-cffi argon2id, wrong password", "Passwörd 1", cffiID, false, false},
		{"argon2-cffi argon2i", "Pässwörd 1", cffiI, true, true},
		{"pbkdf2_sha256", "correct horse battery staple", pbkdf2Salt, true, true},
		{"pbkdf2_sha256 utf-8", "Pässwörd 1", pbkdf2UTF8, true, true},
		{"pbkdf2_sha256 empty password", "", pbkdf2Empty, true, true},
		{"pbkdf2_sha256 wrong password", "correct horse battery stapl", pbkdf2Salt, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ok, rehash, err := Verify(tt.plain, tt.encoded)
			if ok != tt.ok || rehash != tt.rehash || err != nil {
				t.Errorf("Verify = (%v, %v, %v), want (%v, %v, nil)", ok, rehash, err, tt.ok, tt.rehash)
			}
		})
	}
}

func TestVerifyMalformed(t *testing.T) {
	const (
		salt = "c2FsdHNhbHRzYWx0MTZieQ"
		key  = "rXYf9AKjT3p2MM0CdD0LSmRFe91Rkvlw+ySyFsU6Gxc"
		pre  = "argon2$argon2id$v=19$"
		pkey = "nNr3AKmYFOXvzxzP+2VlPwJFPcGKllppLaQIvsodtc4="
	)
	tests := []struct {
		name    string
		encoded string
		want    error
	}{
		{"empty", "", ErrMalformedHash},
		{"no algorithm", "$argon2id$v=19", ErrMalformedHash},
		{"unknown algorithm", "md5$salt$5f4dcc3b5aa765d61d8327deb882cf99", ErrUnsupportedHash},
		{"bare PHC string", "$argon2id$v=19$m=19456,t=2,p=1$" + salt + "$" + key, ErrMalformedHash},
		{"argon2 too few fields", pre + "m=19456,t=2,p=1$" + salt, ErrMalformedHash},
		{"argon2 extra field", pre + "m=19456,t=2,p=1$" + salt + "$" + key + "$", ErrMalformedHash},
		{"argon2d", cliD, ErrUnsupportedHash},
		{"unknown variant", "argon2$argon2x$v=19$m=19456,t=2,p=1$" + salt + "$" + key, ErrMalformedHash},
		{"version 16", "argon2$argon2id$v=16$m=19456,t=2,p=1$" + salt + "$" + key, ErrUnsupportedHash},
		{"no version field", "argon2$argon2i$m=19456,t=2,p=1$" + salt + "$" + key, ErrUnsupportedHash},
		{"huge memory", pre + "m=4294967295,t=2,p=1$" + salt + "$" + key, ErrMalformedHash},
		{"memory above 1 GiB", pre + "m=1048577,t=2,p=1$" + salt + "$" + key, ErrMalformedHash},
		{"memory overflows uint64", pre + "m=99999999999999999999999,t=2,p=1$" + salt + "$" + key, ErrMalformedHash},
		{"memory below 8 per lane", pre + "m=15,t=2,p=2$" + salt + "$" + key, ErrMalformedHash},
		{"time zero", pre + "m=19456,t=0,p=1$" + salt + "$" + key, ErrMalformedHash},
		{"time 11", pre + "m=19456,t=11,p=1$" + salt + "$" + key, ErrMalformedHash},
		{"threads zero", pre + "m=19456,t=2,p=0$" + salt + "$" + key, ErrMalformedHash},
		{"threads 256", pre + "m=19456,t=2,p=256$" + salt + "$" + key, ErrMalformedHash},
		{"signed memory", pre + "m=+19456,t=2,p=1$" + salt + "$" + key, ErrMalformedHash},
		{"parameters out of order", pre + "t=2,m=19456,p=1$" + salt + "$" + key, ErrMalformedHash},
		{"parameters missing", pre + "m=19456,t=2$" + salt + "$" + key, ErrMalformedHash},
		{"padded salt", pre + "m=19456,t=2,p=1$" + salt + "=$" + key, ErrMalformedHash},
		{"short salt", pre + "m=19456,t=2,p=1$c2FsdA$" + key, ErrMalformedHash},
		{"hash not base64", pre + "m=19456,t=2,p=1$" + salt + "$!!!!", ErrMalformedHash},
		{"hash too long", pre + "m=19456,t=2,p=1$" + salt + "$" + strings.Repeat("A", 2000), ErrMalformedHash},
		{"line break in hash", pre + "m=19456,t=2,p=1$" + salt + "$rXYf9AKj\nT3p2MM0CdD0LSmRFe91Rkvlw+ySyFsU6Gxc",
			ErrMalformedHash},
		{"pbkdf2 too few fields", "pbkdf2_sha256$1000$salt", ErrMalformedHash},
		{"pbkdf2 huge iterations", "pbkdf2_sha256$1000000000000$salt$" + pkey, ErrMalformedHash},
		{"pbkdf2 iterations above cap", "pbkdf2_sha256$10000001$salt$" + pkey, ErrMalformedHash},
		{"pbkdf2 zero iterations", "pbkdf2_sha256$0$salt$" + pkey, ErrMalformedHash},
		{"pbkdf2 negative iterations", "pbkdf2_sha256$-1$salt$" + pkey, ErrMalformedHash},
		{"pbkdf2 exponent iterations", "pbkdf2_sha256$1e3$salt$" + pkey, ErrMalformedHash},
		{"pbkdf2 empty salt", "pbkdf2_sha256$1000$$" + pkey, ErrMalformedHash},
		{"pbkdf2 unpadded hash", "pbkdf2_sha256$1000$salt$" + strings.TrimSuffix(pkey, "="), ErrMalformedHash},
		{"pbkdf2 dollar in hash", "pbkdf2_sha256$1000$salt$" + pkey[:40] + "$" + pkey[41:], ErrMalformedHash},
		{"pbkdf2 short hash", "pbkdf2_sha256$1000$salt$c2FsdA==", ErrMalformedHash},
	}
	const plain = "hunter2-secret"
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ok, rehash, err := Verify(plain, tt.encoded)
			if ok || rehash {
				t.Errorf("Verify = (%v, %v, _), want (false, false, _)", ok, rehash)
			}
			if !errors.Is(err, tt.want) {
				t.Fatalf("Verify error = %v, want %v", err, tt.want)
			}
			if strings.Contains(err.Error(), plain) {
				t.Errorf("error %q contains the password", err)
			}
		})
	}
}

// TestWeakerThanCurrent checks each reason for a rehash without hashing.
func TestWeakerThanCurrent(t *testing.T) {
	current := argon2Hash{
		variant: "argon2id", memory: ArgonMemoryKiB, time: ArgonTime, threads: ArgonThreads,
		salt: make([]byte, ArgonSaltLen), key: make([]byte, ArgonKeyLen),
	}
	tests := []struct {
		name   string
		modify func(h *argon2Hash)
		want   bool
	}{
		{"current", func(h *argon2Hash) {}, false},
		{"Django defaults m=102400 p=8 22-byte salt", func(h *argon2Hash) {
			h.memory, h.threads, h.salt = 102400, 8, make([]byte, 22)
		}, false},
		{"more passes", func(h *argon2Hash) { h.time = ArgonTime + 1 }, false},
		{"argon2i", func(h *argon2Hash) { h.variant = "argon2i" }, true},
		{"less memory", func(h *argon2Hash) { h.memory = ArgonMemoryKiB - 1 }, true},
		{"fewer passes", func(h *argon2Hash) { h.time = ArgonTime - 1 }, true},
		{"OWASP's 19 MiB × 2 passes row", func(h *argon2Hash) { h.memory, h.time = 19456, 2 }, false},
		{"more memory, less work", func(h *argon2Hash) { h.memory, h.time = 8192, 4 }, true},
		{"less memory, more work", func(h *argon2Hash) { h.memory, h.time = 4096, 10 }, true},
		{"shorter key", func(h *argon2Hash) { h.key = h.key[:ArgonKeyLen-1] }, true},
		{"shorter salt", func(h *argon2Hash) { h.salt = h.salt[:ArgonSaltLen-1] }, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := current
			tt.modify(&h)
			if got := h.weakerThanCurrent(); got != tt.want {
				t.Errorf("weakerThanCurrent() = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestVerifyDummy(t *testing.T) {
	// The dummy must be a hash with exactly the current parameters, or it
	// would not cost what a real login costs: of the empty password, under
	// its salt, as Hash would write it.
	if !djangoArgon2id.MatchString(DummyHash) {
		t.Fatalf("dummy hash %q is not a current argon2id hash", DummyHash)
	}
	ok, rehash, err := Verify("", DummyHash)
	if !ok || rehash || err != nil {
		t.Errorf("Verify(dummy) = (%v, %v, %v), want (true, false, nil)", ok, rehash, err)
	}
	VerifyDummy("anything") // must simply return
}

// FuzzVerify checks that no input makes Verify panic and that its results
// are consistent. The seeds run in every `go test`; they stay cheap (tiny
// argon2 parameters, one pbkdf2 iteration) or are refused before any work.
func FuzzVerify(f *testing.F) {
	seeds := []struct{ plain, encoded string }{
		{"", ""},
		{"x", "$"},
		{"x", "argon2"},
		{"x", "argon2$"},
		{"x", "argon2$argon2id$v=19$m=8,t=1,p=1$c29tZXNhbHQ$AAAAAA"},
		{"x", "argon2$argon2i$v=19$m=8,t=1,p=1$c29tZXNhbHQ$AAAAAA"},
		{"x", "argon2$argon2id$v=19$m=4294967295,t=4294967295,p=255$c29tZXNhbHQ$AAAAAA"},
		{"x", "argon2$argon2id$v=19$m=,t=,p=$$"},
		{"x", "argon2$argon2id$v=19$m=8,t=1,p=1$$"},
		{"x", "argon2$argon2d$v=19$m=8,t=1,p=1$c29tZXNhbHQ$AAAAAA"},
		{"x", "pbkdf2_sha256$1$salt$mf2Nwi7lNl0wGAk8dwMtXJCbBfOomtPiYJ5w6XcT2us="},
		{"x", "pbkdf2_sha256$1000000000000$salt$mf2Nwi7lNl0wGAk8dwMtXJCbBfOomtPiYJ5w6XcT2us="},
		{"x", "pbkdf2_sha256$$$"},
		{"x", "pbkdf2_sha256$1$\x00$\xff"},
		{"\xff\xfe", "argon2$argon2id$v=19$m=8,t=1,p=1$\xff\xff\xff\xff\xff\xff$AAAAAA"},
	}
	for _, s := range seeds {
		f.Add(s.plain, s.encoded)
	}
	f.Fuzz(func(t *testing.T, plain, encoded string) {
		ok, rehash, err := Verify(plain, encoded)
		if err != nil && (ok || rehash) {
			t.Errorf("Verify = (%v, %v, %v): an error must come with (false, false)", ok, rehash, err)
		}
		if !ok && rehash {
			t.Errorf("Verify = (false, true, %v): rehash without a match", err)
		}
	})
}

func BenchmarkHash(b *testing.B) {
	for b.Loop() {
		if _, err := Hash("correct horse battery staple"); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkVerifyDummy(b *testing.B) {
	for b.Loop() {
		VerifyDummy("correct horse battery staple")
	}
}
