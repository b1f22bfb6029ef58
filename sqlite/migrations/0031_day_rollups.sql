-- day_rollups holds one row per series and UTC day: what the telemetry reports read of that
-- day's hour rollups (gpucost.DayRollup, encoded as internal/storeutil/day.go documents), kept in
-- the same transaction as the hour_rollups row of the same key (series id × 2^24 + the day
-- number since 1970). Applying this migration fills it from the stored hour rows
-- (sqlite/rollups_day.go), so an upgraded store holds a day row for every day it has hours of.
CREATE TABLE day_rollups (
	key  INTEGER PRIMARY KEY,
	data BLOB NOT NULL
);
