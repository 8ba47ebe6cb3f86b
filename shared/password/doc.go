// Package password hashes, verifies and validates user passwords exactly the
// way the Django service this API replaces does, so that the user table can
// be shared (or migrated) without forcing anybody to reset a password.
//
// # Hash formats
//
// Hashes are stored as Django's "encoded" strings:
//
//	argon2$argon2id$v=19$m=7168,t=5,p=1$<salt>$<hash>
//	pbkdf2_sha256$<iterations>$<salt>$<hash>
//
// The argon2 form is what Django's Argon2PasswordHasher writes: the literal
// prefix "argon2" followed by the PHC string that argon2-cffi prints, with
// salt and hash in standard base64 without padding. The pbkdf2_sha256 form is
// Django's default hasher: the salt is stored as plain text and the hash is
// standard base64 with padding of PBKDF2-HMAC-SHA256(password, salt,
// iterations, 32 bytes). Hash always writes argon2id; Verify reads both forms
// (and Django's older argon2i variant) and reports needsRehash so that the
// caller can upgrade a stored hash on the next successful login, which is what
// Django does too.
//
// # Why these argon2 parameters
//
// New hashes use argon2id with m=7168 KiB, t=5, p=1: one of the rows of the
// OWASP Password Storage Cheat Sheet's minimum, which it calls equal in
// defense to m=19456, t=2 (what this package wrote before) and the others.
// Django's own defaults (m=102400, t=2, p=8) need 100 MiB per concurrent
// login, which a small function instance cannot afford under a burst of
// logins. Among OWASP's rows the least memory is what suits Lambda: a hash
// touches all of its memory, and fresh memory costs a page fault per 4 KiB
// (about 13 µs each on a Firecracker VM, measured), so 19 MiB cost a cold
// instance about 60 ms in faults on each of its first two logins, where 7 MiB
// costs about 25 ms, for the same CPU time per warm hash (BenchmarkHash,
// about 20 ms of one core); Prepare takes the first login's faults ahead,
// while that login reads. Peak memory of a login falls from 42 to 18 MiB
// RSS. Hashes of the earlier row and Django's stronger defaults still verify
// and are not flagged for rehash: Verify asks for one only when the stored
// memory or memory × passes is below the current one.
//
// # Validation
//
// Validate ports Django's default AUTH_PASSWORD_VALIDATORS
// (UserAttributeSimilarityValidator, MinimumLengthValidator,
// CommonPasswordValidator, NumericPasswordValidator) with Django's English
// messages, so API clients see the same errors as before. The similarity
// check ports the one part of Python's difflib Django uses (quick_ratio).
//
// The package never logs and never puts a password (or a stored hash) into an
// error message.
package password
