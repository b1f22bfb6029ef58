-- Revoked sessions are the dashboard sessions ended by a logout before their cookie expires
-- (web/session.go, web/auth.go): a session cookie is signed and carries its own expiry, so the
-- server must remember its nonce to refuse it, and every replica sharing the store sees the
-- logout. expires_ns is the session's expiry in Unix nanoseconds (UTC): past it the cookie is
-- refused anyway, and the row is deleted by a later logout.
CREATE TABLE revoked_sessions (
	nonce      BLOB    PRIMARY KEY,
	revoked_ns INTEGER NOT NULL,
	expires_ns INTEGER NOT NULL
) WITHOUT ROWID;
CREATE INDEX revoked_sessions_expires ON revoked_sessions (expires_ns);
