-- Actions is the enforcement action log: one row per action a policy planned (a dry run) or
-- carried out (tag, stop, scale-to-zero, notify), with its result and, in detail, the whole
-- action as JSON: the resource, the tags set or targets notified, and the evidence (the budget's
-- figures or the spot count). at_ns is Unix nanoseconds (UTC); resource_id is empty for notify;
-- error is redacted of secrets by the runner. Rows are only ever added.
CREATE TABLE actions (
	id            INTEGER PRIMARY KEY AUTOINCREMENT,
	at_ns         INTEGER NOT NULL,
	policy        TEXT    NOT NULL,
	action        TEXT    NOT NULL,
	resource_kind TEXT    NOT NULL,
	resource_id   TEXT    NOT NULL,
	dry_run       INTEGER NOT NULL CHECK (dry_run IN (0, 1)),
	result        TEXT    NOT NULL,
	error         TEXT    NOT NULL,
	detail        TEXT    NOT NULL
);
CREATE INDEX actions_at ON actions (at_ns);
CREATE INDEX actions_policy ON actions (policy, at_ns);
CREATE INDEX actions_resource ON actions (resource_id, at_ns);
