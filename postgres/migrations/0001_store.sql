-- The first version of gpucost's PostgreSQL store: the same facts as the SQLite store, kept as
-- plain rows with indexes (see postgres/doc.go for why). Text that is sorted or compared byte
-- by byte, as the SQLite store does, is COLLATE "C". Unix times are seconds unless named _ns.

-- Settings are the store's own key/value facts, such as the idle threshold rollups were made with.
CREATE TABLE settings (
	key   text PRIMARY KEY,
	value text NOT NULL
);

-- Series are the GPUs together with the labels they carried: the unit rollups are kept for.
CREATE TABLE series (
	id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
	host       text COLLATE "C" NOT NULL,
	uuid       text COLLATE "C" NOT NULL,
	model      text    NOT NULL DEFAULT '',
	parent     text    NOT NULL DEFAULT '', -- a MIG instance's GPU
	profile    text    NOT NULL DEFAULT '', -- a MIG instance's profile, such as 1g.10gb
	gpu_index  integer NOT NULL DEFAULT -1,
	labels     text COLLATE "C" NOT NULL DEFAULT '', -- gpucost.Labels.String(): k1=v1,k2=v2, keys sorted
	first_seen bigint  NOT NULL,            -- the start of its earliest rollup
	last_seen  bigint  NOT NULL,            -- the end of its latest rollup
	UNIQUE (host, uuid, labels)
);

-- Rollups, one row each: minute_rollups and hour_rollups have the same columns. coverage and
-- idle_mask hold the uint64 bit sets as the int64 of the same bits; util_hist an hour's
-- histogram as 4-byte little-endian counts, bin 0 first (NULL for none). NaN is stored as NaN.
-- series_id names a row of series; there is no foreign key, whose per-row check would halve the
-- speed of ingest (COPY): rollups are only written in the transaction that upserts their series.
CREATE TABLE minute_rollups (
	series_id        bigint NOT NULL,
	start            bigint NOT NULL,
	samples          integer NOT NULL,
	coverage         bigint NOT NULL,
	util_sum         double precision NOT NULL,
	util_max         double precision NOT NULL,
	util_p50         double precision NOT NULL,
	util_p95         double precision NOT NULL,
	mem_max          double precision NOT NULL,
	mem_p95          double precision NOT NULL,
	mem_total        double precision NOT NULL,
	power_samples    integer NOT NULL,
	power_sum        double precision NOT NULL,
	power_max        double precision NOT NULL,
	temp_max         double precision NOT NULL,
	prof_samples     integer NOT NULL,
	sm_active_sum    double precision NOT NULL,
	sm_occupancy_sum double precision NOT NULL,
	gr_active_sum    double precision NOT NULL,
	idle_minutes     integer NOT NULL,
	idle_mask        bigint NOT NULL,
	util_hist        bytea,
	PRIMARY KEY (series_id, start)
);

CREATE TABLE hour_rollups (LIKE minute_rollups INCLUDING ALL);

-- Offers are price offers a user imported on top of the bundled catalog: one row per provider,
-- region, zone and instance type. Prices are exact integer nano-units of currency per hour for
-- the whole instance; NULL where the source has no such price.
CREATE TABLE offers (
	provider        text COLLATE "C" NOT NULL,
	region          text COLLATE "C" NOT NULL,
	zone            text COLLATE "C" NOT NULL DEFAULT '',
	instance_type   text COLLATE "C" NOT NULL,
	gpu_model       text NOT NULL,
	gpu_count       double precision NOT NULL,
	gpu_memory_gb   double precision NOT NULL,
	vcpus           double precision NOT NULL,
	memory_gib      double precision NOT NULL,
	currency        text NOT NULL DEFAULT 'USD',
	on_demand_nanos bigint,
	spot_nanos      bigint,
	source          text NOT NULL,
	as_of           timestamptz, -- NULL when unknown
	as_of_ns        smallint NOT NULL DEFAULT 0, -- nanoseconds below as_of's microsecond
	PRIMARY KEY (provider, region, zone, instance_type)
);

CREATE INDEX offers_gpu_model ON offers (gpu_model);

-- Cost imports are the bill files imported by `gpucost import billing`, one row each, found again
-- by checksum. totals holds the exact per-currency sums of the lines as JSON with amounts as
-- decimal text: [{"currency":"USD","billed_cost":"12.5","effective_cost":"10.25"}]. min_start and
-- max_start bound the lines' charge period starts (Unix seconds, NULL without lines), so a scan
-- skips the imports outside its time range.
CREATE TABLE cost_imports (
	id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
	name        text   NOT NULL,
	checksum    text   NOT NULL UNIQUE,
	format      text   NOT NULL,
	version     text   NOT NULL DEFAULT '',
	grain_ns    bigint NOT NULL,
	source_rows bigint NOT NULL,
	lines       bigint NOT NULL,
	min_start   bigint,
	max_start   bigint,
	totals      text   NOT NULL,
	imported_at timestamptz NOT NULL,
	imported_ns smallint    NOT NULL DEFAULT 0 -- nanoseconds below imported_at's microsecond
);

-- Cost lines are an import's aggregated lines, one row each, in the order they were stored
-- (seq), read an import at a time through the primary key. Times are Unix seconds and nanoseconds, so every time round-trips exactly; amounts are
-- nano-units with their currency; tags and extra are JSON objects ("null" for none). import_id
-- names a row of cost_imports; as with rollups there is no foreign key, for the speed of COPY:
-- PutCosts deletes an import's lines with it, in one transaction.
CREATE TABLE cost_lines (
	import_id           bigint  NOT NULL,
	seq                 integer NOT NULL,
	provider            text NOT NULL,
	billing_account     text NOT NULL,
	sub_account         text NOT NULL,
	billing_start_s     bigint  NOT NULL,
	billing_start_ns    integer NOT NULL,
	charge_start_s      bigint  NOT NULL,
	charge_start_ns     integer NOT NULL,
	charge_end_s        bigint  NOT NULL,
	charge_end_ns       integer NOT NULL,
	charge_category     text NOT NULL,
	charge_class        text NOT NULL,
	charge_frequency    text NOT NULL,
	pricing_category    text NOT NULL,
	billed_nanos        bigint NOT NULL,
	billed_currency     text   NOT NULL,
	effective_nanos     bigint NOT NULL,
	effective_currency  text   NOT NULL,
	list_nanos          bigint NOT NULL,
	list_currency       text   NOT NULL,
	contracted_nanos    bigint NOT NULL,
	contracted_currency text   NOT NULL,
	commitment_id       text NOT NULL,
	commitment_status   text NOT NULL,
	commitment_type     text NOT NULL,
	commitment_category text NOT NULL,
	resource_id         text NOT NULL,
	resource_name       text NOT NULL,
	resource_type       text NOT NULL,
	instance_type       text NOT NULL,
	service_name        text NOT NULL,
	service_category    text NOT NULL,
	region_id           text NOT NULL,
	availability_zone   text NOT NULL,
	sku_id              text NOT NULL,
	sku_price_id        text NOT NULL,
	charge_description  text NOT NULL,
	consumed_quantity   double precision NOT NULL,
	consumed_unit       text NOT NULL,
	pricing_quantity    double precision NOT NULL,
	pricing_unit        text NOT NULL,
	tags                json NOT NULL,
	extra               json NOT NULL,
	line                bigint NOT NULL,
	rows                bigint NOT NULL,
	PRIMARY KEY (import_id, seq)
);

-- No other index: each would cost an import more than it saves a scan, which reads the lines of
-- the imports in its time range in order anyway.

-- The inventory ties billed resources to the hosts their GPUs report telemetry from. tags is a
-- JSON object of the owner tags ("null" when there are none).
CREATE TABLE inventory (
	resource_id   text COLLATE "C" PRIMARY KEY,
	host          text    NOT NULL,
	provider      text    NOT NULL DEFAULT '',
	instance_type text    NOT NULL DEFAULT '',
	gpu_model     text    NOT NULL DEFAULT '',
	gpus          integer NOT NULL DEFAULT 0,
	tags          json    NOT NULL DEFAULT 'null'
);
