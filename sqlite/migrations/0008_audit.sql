-- Audit is the audit trail of destructive and privileged actions (gpucost.AuditEntry): who
-- replaced or removed a bill, made or revoked a token, replaced the budgets, had a guardrail act
-- (not a dry run) or ended a dashboard session, what it acted on, and when. at_ns is Unix
-- nanoseconds (UTC); source is the client's address, or "cli". Rows are only ever added: the
-- store has no path that updates or deletes them.
CREATE TABLE audit (
	id     INTEGER PRIMARY KEY AUTOINCREMENT,
	at_ns  INTEGER NOT NULL,
	actor  TEXT    NOT NULL,
	action TEXT    NOT NULL,
	target TEXT    NOT NULL,
	detail TEXT    NOT NULL,
	source TEXT    NOT NULL
);
CREATE INDEX audit_at ON audit (at_ns);
CREATE INDEX audit_action ON audit (action, at_ns);
-- The schema refuses changes too, so that no later code or hand-run SQL rewrites the trail.
CREATE TRIGGER audit_no_update BEFORE UPDATE ON audit BEGIN SELECT RAISE(ABORT, 'the audit log is append-only: entries cannot be changed'); END;
CREATE TRIGGER audit_no_delete BEFORE DELETE ON audit BEGIN SELECT RAISE(ABORT, 'the audit log is append-only: entries cannot be deleted'); END;
