-- Deliveries is the alert delivery log: one row per attempt to send one alert (its dedupe key)
-- to one notification target, as in the SQLite store. An alert counts as delivered to a target
-- once a final, successful attempt exists, so budget checks on any replica send nothing twice.
-- status is the HTTP or SMTP code, 0 when there was none; error is redacted of secrets by the
-- sender.
CREATE TABLE deliveries (
	id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
	key         text        NOT NULL,
	kind        text        NOT NULL,
	target      text        NOT NULL,
	attempt     integer     NOT NULL CHECK (attempt >= 1),
	at          timestamptz NOT NULL,
	at_ns       bigint      NOT NULL, -- at in Unix nanoseconds: timestamptz keeps microseconds
	duration_ns bigint      NOT NULL,
	ok          boolean     NOT NULL,
	status      integer     NOT NULL,
	error       text        NOT NULL,
	final       boolean     NOT NULL
);
CREATE INDEX deliveries_delivered ON deliveries (key, target) WHERE ok AND final;
CREATE INDEX deliveries_at ON deliveries (at_ns);
