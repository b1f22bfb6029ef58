-- Series are the GPUs together with the labels they carried: the unit rollups are kept for.
-- Times are Unix seconds.
CREATE TABLE series (
	id         INTEGER PRIMARY KEY,
	host       TEXT    NOT NULL,
	uuid       TEXT    NOT NULL,
	model      TEXT    NOT NULL DEFAULT '',
	parent     TEXT    NOT NULL DEFAULT '', -- a MIG instance's GPU
	profile    TEXT    NOT NULL DEFAULT '', -- a MIG instance's profile, such as 1g.10gb
	gpu_index  INTEGER NOT NULL DEFAULT -1,
	labels     TEXT    NOT NULL DEFAULT '', -- gpucost.Labels.String(): k1=v1,k2=v2, keys sorted
	first_seen INTEGER NOT NULL,            -- the start of its earliest rollup
	last_seen  INTEGER NOT NULL,            -- the end of its latest rollup
	UNIQUE (host, uuid, labels)
);

-- Rollups are packed, many to a row, so that a report scans millions of them in a second:
-- hour_rollups holds one row per series and UTC day with its hourly rollups, minute_rollups one
-- row per series and hour with its minute rollups. The key is series id × 2^24 + the day (or
-- hour) number since 1970, so a row is found, and a series' rows are read in time order,
-- through the table's own b-tree. The encoding of data is documented in sqlite/rollups_codec.go.
CREATE TABLE hour_rollups (
	key  INTEGER PRIMARY KEY,
	data BLOB NOT NULL
);

CREATE TABLE minute_rollups (
	key  INTEGER PRIMARY KEY,
	data BLOB NOT NULL
);
