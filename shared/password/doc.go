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
// New hashes use argon2id with m=7168, t=5, p=1 (ArgonMemoryKiB, ArgonTime,
// ArgonThreads): one of the rows of the OWASP Password Storage Cheat Sheet's
// minimum, which it calls equal in defense to m=19456, t=2 and the others.
// Django's own defaults (m=102400, t=2, p=8) need more memory per concurrent
// login than a small function instance can afford under a burst of logins.
// Among OWASP's rows the least memory is what suits Lambda: a hash touches
// all of its memory, and every first touch of fresh memory is a page fault,
// so a cold instance's first logins pay in faults for the memory a hash
// uses, while the CPU time of a warm hash is the same for every row
// (BenchmarkHash; docs/PERFORMANCE.md has the figures). Prepare takes the
// first login's faults ahead, while that login reads, and the smaller hash
// keeps a login's peak memory low. Hashes of the other rows and Django's
// stronger defaults verify and are not flagged for rehash: Verify asks for
// one only when the stored memory or memory × passes is below the current one.
//
// # Validation
//
// Validate ports Django's default AUTH_PASSWORD_VALIDATORS
// (UserAttributeSimilarityValidator, MinimumLengthValidator,
// CommonPasswordValidator, NumericPasswordValidator) with Django's English
// messages, so API clients see the errors the Django service gave them. The similarity
// check ports the one part of Python's difflib Django uses (quick_ratio).
//
// The package never logs and never puts a password (or a stored hash) into an
// error message.
package password
