-- Actions is the enforcement action log: one row per action a policy planned (a dry run) or
-- carried out (tag, stop, scale-to-zero, notify), with its result and, in detail, the whole
-- action as JSON: the resource, the tags set or targets notified, and the evidence (the budget's
-- figures or the spot count). resource_id is empty for notify; error is redacted of secrets by
-- the runner. at is for people querying in SQL; at_ns (Unix nanoseconds) keeps the exact time
-- and orders the log. Rows are only ever added.
CREATE TABLE actions (
	id            bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
	at            timestamptz NOT NULL,
	at_ns         bigint  NOT NULL,
	policy        text    NOT NULL,
	action        text    NOT NULL,
	resource_kind text    NOT NULL,
	resource_id   text    NOT NULL,
	dry_run       boolean NOT NULL,
	result        text    NOT NULL,
	error         text    NOT NULL,
	detail        jsonb   NOT NULL
);
CREATE INDEX actions_at ON actions (at_ns);
CREATE INDEX actions_policy ON actions (policy, at_ns);
CREATE INDEX actions_resource ON actions (resource_id, at_ns);
