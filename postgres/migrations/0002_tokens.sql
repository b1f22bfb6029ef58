-- Tokens are API tokens for gpucost serve. Only the SHA-256 hash of a secret is kept; lookup holds
-- the hash's first 8 bytes, so a token is found by index and its full hash then compared in
-- constant time (as the SQLite store does). revoked_at is NULL while the token is valid.
CREATE TABLE tokens (
	id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
	name       text  NOT NULL,
	role       text  NOT NULL CHECK (role IN ('viewer', 'ingest', 'admin')),
	hash       bytea NOT NULL UNIQUE CHECK (length(hash) = 32),
	lookup     bytea NOT NULL,
	created_at timestamptz NOT NULL,
	revoked_at timestamptz
);
CREATE INDEX tokens_lookup ON tokens (lookup);
