-- Bill lines as a narrow row of numbers and the context they share (docs/architecture.md
-- "Storing bill lines"). A line's strings, billing period and maps repeat across its import (a
-- month of a resource's daily lines has one account, SKU, region, tags …), so each import keeps
-- each distinct context once, in cost_line_contexts, numbered from 0 by the writer; cost_lines
-- keeps what each line has of its own: its charge period, four amounts, two quantities, its
-- source line and rows, and the number of its context: 15 fixed-width columns (128 bytes a row)
-- where there were 46 (about 480).
--
-- Neither table has a foreign key, for the speed of COPY: PutCostBatch and RemoveCosts delete an
-- import's lines and contexts with it, in one transaction. cost_lines_full shows the lines with
-- their context, one row each, in the columns cost_lines had, for people querying the database.
ALTER TABLE cost_lines RENAME TO cost_lines_wide;
ALTER INDEX cost_lines_pkey RENAME TO cost_lines_wide_pkey;

CREATE TABLE cost_line_contexts (
	import_id           bigint  NOT NULL,
	id                  integer NOT NULL,
	billing_start_s     bigint  NOT NULL,
	billing_start_ns    integer NOT NULL,
	provider            text NOT NULL,
	billing_account     text NOT NULL,
	sub_account         text NOT NULL,
	charge_category     text NOT NULL,
	charge_class        text NOT NULL,
	charge_frequency    text NOT NULL,
	pricing_category    text NOT NULL,
	billed_currency     text NOT NULL,
	effective_currency  text NOT NULL,
	list_currency       text NOT NULL,
	contracted_currency text NOT NULL,
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
	consumed_unit       text NOT NULL,
	pricing_unit        text NOT NULL,
	tags                json NOT NULL,
	extra               json NOT NULL
);

-- The 8-byte columns come first, so that no column is padded.
CREATE TABLE cost_lines (
	import_id         bigint  NOT NULL,
	charge_start_s    bigint  NOT NULL,
	charge_end_s      bigint  NOT NULL,
	billed_nanos      bigint  NOT NULL,
	effective_nanos   bigint  NOT NULL,
	list_nanos        bigint  NOT NULL,
	contracted_nanos  bigint  NOT NULL,
	consumed_quantity double precision NOT NULL,
	pricing_quantity  double precision NOT NULL,
	line              bigint  NOT NULL,
	rows              bigint  NOT NULL,
	seq               integer NOT NULL,
	context_id        integer NOT NULL,
	charge_start_ns   integer NOT NULL,
	charge_end_ns     integer NOT NULL
);

-- The stored lines move over: each import's distinct contexts, found by hashing (every string
-- compared byte by byte, the maps by their JSON text, which was written with sorted keys) and
-- numbered from 0, then every line with the number of its context, in the order of the old
-- primary key. The primary keys are built once the rows are in. The sorts and the hashes get
-- more memory than the default 4 MB, and the lines find their contexts by a hash join: the
-- planner, guessing the 33 columns of the join far more selective than they are, would sort
-- every old row by all of them for a merge join (17 s for 300,000 lines here, against 2.6).
SET LOCAL work_mem = '256MB';
SET LOCAL maintenance_work_mem = '512MB';
SET LOCAL enable_mergejoin = off;
SET LOCAL enable_nestloop = off;
CREATE TEMPORARY TABLE migrated_contexts AS
SELECT row_number() OVER (PARTITION BY import_id) - 1 AS id, d.*
FROM (SELECT DISTINCT import_id,
		billing_start_s, billing_start_ns, provider, billing_account, sub_account, charge_category, charge_class,
		charge_frequency, pricing_category, billed_currency, effective_currency, list_currency, contracted_currency,
		commitment_id, commitment_status, commitment_type, commitment_category, resource_id, resource_name, resource_type,
		instance_type, service_name, service_category, region_id, availability_zone, sku_id, sku_price_id,
		charge_description, consumed_unit, pricing_unit,
		tags::text AS tags, extra::text AS extra
	FROM cost_lines_wide) d;
ANALYZE migrated_contexts;

INSERT INTO cost_line_contexts (import_id, id,
		billing_start_s, billing_start_ns, provider, billing_account, sub_account, charge_category, charge_class,
		charge_frequency, pricing_category, billed_currency, effective_currency, list_currency, contracted_currency,
		commitment_id, commitment_status, commitment_type, commitment_category, resource_id, resource_name, resource_type,
		instance_type, service_name, service_category, region_id, availability_zone, sku_id, sku_price_id,
		charge_description, consumed_unit, pricing_unit,
		tags, extra)
SELECT import_id, id,
		billing_start_s, billing_start_ns, provider, billing_account, sub_account, charge_category, charge_class,
		charge_frequency, pricing_category, billed_currency, effective_currency, list_currency, contracted_currency,
		commitment_id, commitment_status, commitment_type, commitment_category, resource_id, resource_name, resource_type,
		instance_type, service_name, service_category, region_id, availability_zone, sku_id, sku_price_id,
		charge_description, consumed_unit, pricing_unit,
		tags::json, extra::json
FROM migrated_contexts;

INSERT INTO cost_lines (import_id, charge_start_s, charge_end_s, billed_nanos, effective_nanos, list_nanos, contracted_nanos,
	consumed_quantity, pricing_quantity, line, rows, seq, context_id, charge_start_ns, charge_end_ns)
SELECT w.import_id, w.charge_start_s, w.charge_end_s, w.billed_nanos, w.effective_nanos, w.list_nanos, w.contracted_nanos,
	w.consumed_quantity, w.pricing_quantity, w.line, w.rows, w.seq, c.id, w.charge_start_ns, w.charge_end_ns
FROM cost_lines_wide w JOIN migrated_contexts c ON c.import_id = w.import_id AND
	c.billing_start_s = w.billing_start_s AND c.billing_start_ns = w.billing_start_ns AND
	c.provider = w.provider AND c.billing_account = w.billing_account AND c.sub_account = w.sub_account AND
	c.charge_category = w.charge_category AND c.charge_class = w.charge_class AND
	c.charge_frequency = w.charge_frequency AND c.pricing_category = w.pricing_category AND
	c.billed_currency = w.billed_currency AND c.effective_currency = w.effective_currency AND
	c.list_currency = w.list_currency AND c.contracted_currency = w.contracted_currency AND
	c.commitment_id = w.commitment_id AND c.commitment_status = w.commitment_status AND
	c.commitment_type = w.commitment_type AND c.commitment_category = w.commitment_category AND
	c.resource_id = w.resource_id AND c.resource_name = w.resource_name AND
	c.resource_type = w.resource_type AND c.instance_type = w.instance_type AND
	c.service_name = w.service_name AND c.service_category = w.service_category AND
	c.region_id = w.region_id AND c.availability_zone = w.availability_zone AND c.sku_id = w.sku_id AND
	c.sku_price_id = w.sku_price_id AND c.charge_description = w.charge_description AND
	c.consumed_unit = w.consumed_unit AND c.pricing_unit = w.pricing_unit AND c.tags = w.tags::text AND
	c.extra = w.extra::text
ORDER BY w.import_id, w.seq;

SET LOCAL enable_mergejoin TO DEFAULT;
SET LOCAL enable_nestloop TO DEFAULT;
DROP TABLE migrated_contexts;
DROP TABLE cost_lines_wide;
ALTER TABLE cost_line_contexts ADD PRIMARY KEY (import_id, id);
ALTER TABLE cost_lines ADD PRIMARY KEY (import_id, seq);

CREATE VIEW cost_lines_full AS
SELECT l.import_id, l.seq, c.provider, c.billing_account, c.sub_account, c.billing_start_s, c.billing_start_ns,
	l.charge_start_s, l.charge_start_ns, l.charge_end_s, l.charge_end_ns, c.charge_category, c.charge_class,
	c.charge_frequency, c.pricing_category, l.billed_nanos, c.billed_currency, l.effective_nanos, c.effective_currency,
	l.list_nanos, c.list_currency, l.contracted_nanos, c.contracted_currency, c.commitment_id, c.commitment_status,
	c.commitment_type, c.commitment_category, c.resource_id, c.resource_name, c.resource_type, c.instance_type,
	c.service_name, c.service_category, c.region_id, c.availability_zone, c.sku_id, c.sku_price_id,
	c.charge_description, l.consumed_quantity, c.consumed_unit, l.pricing_quantity, c.pricing_unit, c.tags, c.extra,
	l.line, l.rows
FROM cost_lines l JOIN cost_line_contexts c ON c.import_id = l.import_id AND c.id = l.context_id;
