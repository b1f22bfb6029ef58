-- Cost imports are the bill files imported by `gpucost import billing`, one row each. A file is
-- found again by its checksum, so it is imported once unless it is replaced. grain_ns is the
-- aggregation grain in nanoseconds; source_rows the rows read, lines the aggregated lines stored.
-- totals holds the exact per-currency sums of the lines, as JSON with amounts as decimal text:
-- [{"currency":"USD","billed_cost":"12.5","effective_cost":"10.25"}]. imported_at is RFC 3339, UTC.
CREATE TABLE cost_imports (
	id          INTEGER PRIMARY KEY,
	name        TEXT    NOT NULL,
	checksum    TEXT    NOT NULL UNIQUE,
	format      TEXT    NOT NULL,
	version     TEXT    NOT NULL DEFAULT '',
	grain_ns    INTEGER NOT NULL,
	source_rows INTEGER NOT NULL,
	lines       INTEGER NOT NULL,
	totals      TEXT    NOT NULL,
	imported_at TEXT    NOT NULL
);

-- Cost chunks hold the lines of an import, up to 8,192 to a row in the order they were stored,
-- column by column (see sqlite/costs_codec.go), so that a report decodes millions of lines a
-- second where a row per line would read a million. Strings are numbered in a dictionary per
-- import: strings holds those first used in the chunk, data the lines. min_start and max_start
-- bound the lines' charge period starts, in Unix seconds, so a scan reads no data of the chunks
-- outside its time range.
CREATE TABLE cost_chunks (
	id        INTEGER PRIMARY KEY,
	import_id INTEGER NOT NULL REFERENCES cost_imports (id) ON DELETE CASCADE,
	seq       INTEGER NOT NULL,
	min_start INTEGER NOT NULL,
	max_start INTEGER NOT NULL,
	lines     INTEGER NOT NULL,
	strings   BLOB    NOT NULL,
	data      BLOB    NOT NULL,
	UNIQUE (import_id, seq)
);

-- The inventory ties billed resources to the hosts their GPUs report telemetry from (`gpucost
-- import inventory`). tags is a JSON object of the owner tags ("null" when there are none), which
-- keeps any key and value exactly, commas and equals signs included.
CREATE TABLE inventory (
	resource_id   TEXT    PRIMARY KEY,
	host          TEXT    NOT NULL,
	provider      TEXT    NOT NULL DEFAULT '',
	instance_type TEXT    NOT NULL DEFAULT '',
	gpu_model     TEXT    NOT NULL DEFAULT '',
	gpus          INTEGER NOT NULL DEFAULT 0,
	tags          TEXT    NOT NULL DEFAULT 'null'
) WITHOUT ROWID;
