-- day_rollups rows take format 3 of internal/storeutil/day.go: a column of values an hour keeps
-- each in a fixed number of bytes, where format 2 kept uvarints, so that a report decodes a day
-- about four times faster (docs/architecture.md "Speed of the reports"). The rows are made
-- again from the stored hours (postgres/rollups_day.go, migrationFills), in this migration's
-- transaction.
DELETE FROM day_rollups;
