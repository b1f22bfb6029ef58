-- Revoked sessions are the dashboard sessions ended by a logout before their cookie expires
-- (web/session.go, web/auth.go): a session cookie is signed and carries its own expiry, so the
-- server must remember its nonce to refuse it, and every replica sharing the store sees the
-- logout. Past expires the cookie is refused anyway, and the row is deleted by a later logout.
CREATE TABLE revoked_sessions (
	nonce   bytea       PRIMARY KEY,
	revoked timestamptz NOT NULL,
	expires timestamptz NOT NULL
);
CREATE INDEX revoked_sessions_expires ON revoked_sessions (expires);
