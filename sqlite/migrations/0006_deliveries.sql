-- Deliveries is the alert delivery log: one row per attempt to send one alert (its dedupe key)
-- to one notification target. An alert counts as delivered to a target once a final, successful
-- attempt exists, so re-running budget checks sends nothing twice. at_ns is Unix nanoseconds
-- (UTC), duration_ns nanoseconds; status is the HTTP or SMTP code, 0 when there was none; error
-- is redacted of secrets by the sender.
CREATE TABLE deliveries (
	id          INTEGER PRIMARY KEY AUTOINCREMENT,
	key         TEXT    NOT NULL,
	kind        TEXT    NOT NULL,
	target      TEXT    NOT NULL,
	attempt     INTEGER NOT NULL CHECK (attempt >= 1),
	at_ns       INTEGER NOT NULL,
	duration_ns INTEGER NOT NULL,
	ok          INTEGER NOT NULL CHECK (ok IN (0, 1)),
	status      INTEGER NOT NULL,
	error       TEXT    NOT NULL,
	final       INTEGER NOT NULL CHECK (final IN (0, 1))
);
CREATE INDEX deliveries_delivered ON deliveries (key, target) WHERE ok = 1 AND final = 1;
CREATE INDEX deliveries_at ON deliveries (at_ns);
