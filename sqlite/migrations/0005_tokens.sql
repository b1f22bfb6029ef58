-- Tokens are API tokens for gpucost serve. Only the SHA-256 hash of a secret is kept; lookup holds
-- the hash's first 8 bytes in hex, so a token is found by index and its full hash then compared
-- in constant time. Times are RFC 3339, UTC; revoked_at is empty while the token is valid.
CREATE TABLE tokens (
	id         INTEGER PRIMARY KEY AUTOINCREMENT,
	name       TEXT NOT NULL,
	role       TEXT NOT NULL CHECK (role IN ('viewer', 'ingest', 'admin')),
	hash       BLOB NOT NULL UNIQUE,
	lookup     TEXT NOT NULL,
	created_at TEXT NOT NULL,
	revoked_at TEXT NOT NULL DEFAULT ''
);
CREATE INDEX tokens_lookup ON tokens (lookup);
