// Package password hashes, verifies and validates user passwords exactly the
// way the Django service this API replaces does, so that the user table can
// be shared (or migrated) without forcing anybody to reset a password.
//
// # Hash formats
//
// Hashes are stored as Django's "encoded" strings:
//
//	argon2$argon2id$v=19$m=19456,t=2,p=1$<salt>$<hash>
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
// New hashes use argon2id with m=19456 KiB, t=2, p=1: the minimum that the
// OWASP Password Storage Cheat Sheet recommends. Django's own defaults
// (m=102400, t=2, p=8) need 100 MiB per concurrent login, which a small
// function instance cannot afford under a burst of logins; the OWASP minimum
// needs 19 MiB and about 30 ms of one core per hash (BenchmarkHash). Hashes
// that Django wrote with its stronger defaults still verify and are not
// flagged for rehash, because Verify only asks for a rehash when the stored
// parameters are weaker than the current ones.
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
