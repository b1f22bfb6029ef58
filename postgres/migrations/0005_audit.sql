-- Audit is the audit trail of destructive and privileged actions (gpucost.AuditEntry): who
-- replaced or removed a bill, made or revoked a token, replaced the budgets, had a guardrail act
-- (not a dry run) or ended a dashboard session, what it acted on, and when, shared by every
-- server replica. source is the client's address, or "cli". at is for people querying in SQL;
-- at_ns (Unix nanoseconds) keeps the exact time and orders the log. Rows are only ever added:
-- the store has no path that updates or deletes them.
CREATE TABLE audit (
	id     bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
	at     timestamptz NOT NULL,
	at_ns  bigint NOT NULL,
	actor  text   NOT NULL,
	action text   NOT NULL,
	target text   NOT NULL,
	detail text   NOT NULL,
	source text   NOT NULL
);
CREATE INDEX audit_at ON audit (at_ns);
CREATE INDEX audit_action ON audit (action, at_ns);
-- The schema refuses changes too, so that no later code or hand-run SQL rewrites the trail.
CREATE FUNCTION audit_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	RAISE EXCEPTION 'the audit log is append-only: % refused', TG_OP;
END
$$;
CREATE TRIGGER audit_no_change BEFORE UPDATE OR DELETE ON audit FOR EACH ROW EXECUTE FUNCTION audit_append_only();
CREATE TRIGGER audit_no_truncate BEFORE TRUNCATE ON audit FOR EACH STATEMENT EXECUTE FUNCTION audit_append_only();
