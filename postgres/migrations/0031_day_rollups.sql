-- day_rollups holds one row per series and UTC day (day: days since 1970): what the telemetry
-- reports read of that day's hour rollups (gpucost.DayRollup, encoded as
-- internal/storeutil/day.go documents), rewritten in the transaction that writes any of the
-- day's hour_rollups rows. Applying this migration fills it from the stored hours
-- (postgres/rollups_day.go), so an upgraded store holds a day row for every day it has hours of.
CREATE TABLE day_rollups (
	series_id bigint  NOT NULL,
	day       integer NOT NULL,
	data      bytea   NOT NULL,
	PRIMARY KEY (series_id, day)
);
