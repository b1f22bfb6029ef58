-- Offers are price offers a user imported on top of the bundled catalog (catalog.Catalog.With):
-- one row per provider, region, zone and instance type. Prices are exact integer nano-units of
-- currency per hour for the whole instance; NULL where the source has no such price.
CREATE TABLE offers (
	provider        TEXT NOT NULL,
	region          TEXT NOT NULL,
	zone            TEXT NOT NULL DEFAULT '',
	instance_type   TEXT NOT NULL,
	gpu_model       TEXT NOT NULL,
	gpu_count       REAL NOT NULL,
	gpu_memory_gb   REAL NOT NULL,
	vcpus           REAL NOT NULL,
	memory_gib      REAL NOT NULL,
	currency        TEXT NOT NULL DEFAULT 'USD',
	on_demand_nanos INTEGER,
	spot_nanos      INTEGER,
	source          TEXT NOT NULL,
	as_of           TEXT NOT NULL, -- RFC 3339, UTC; empty when unknown
	PRIMARY KEY (provider, region, zone, instance_type)
) WITHOUT ROWID;

CREATE INDEX offers_gpu_model ON offers (gpu_model);
