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
	extra               json NOT NULL,
	PRIMARY KEY (import_id, id)
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
	charge_end_ns     integer NOT NULL,
	PRIMARY KEY (import_id, seq)
);

-- The stored lines move over: each import's distinct contexts numbered in one order, the maps
-- compared by their JSON text (written with sorted keys), every string byte by byte.
CREATE TEMPORARY TABLE ranked_lines AS
SELECT w.*, dense_rank() OVER (PARTITION BY import_id ORDER BY
	billing_start_s, billing_start_ns, provider COLLATE "C", billing_account COLLATE "C", sub_account COLLATE "C",
	charge_category COLLATE "C", charge_class COLLATE "C", charge_frequency COLLATE "C", pricing_category COLLATE "C",
	billed_currency COLLATE "C", effective_currency COLLATE "C", list_currency COLLATE "C", contracted_currency COLLATE "C",
	commitment_id COLLATE "C", commitment_status COLLATE "C", commitment_type COLLATE "C", commitment_category COLLATE "C",
	resource_id COLLATE "C", resource_name COLLATE "C", resource_type COLLATE "C", instance_type COLLATE "C",
	service_name COLLATE "C", service_category COLLATE "C", region_id COLLATE "C", availability_zone COLLATE "C",
	sku_id COLLATE "C", sku_price_id COLLATE "C", charge_description COLLATE "C", consumed_unit COLLATE "C",
	pricing_unit COLLATE "C", tags::text COLLATE "C", extra::text COLLATE "C") - 1 AS context_id
FROM cost_lines_wide w;

INSERT INTO cost_line_contexts
SELECT DISTINCT ON (import_id, context_id) import_id, context_id, billing_start_s, billing_start_ns, provider, billing_account,
	sub_account, charge_category, charge_class, charge_frequency, pricing_category, billed_currency, effective_currency,
	list_currency, contracted_currency, commitment_id, commitment_status, commitment_type, commitment_category, resource_id,
	resource_name, resource_type, instance_type, service_name, service_category, region_id, availability_zone, sku_id,
	sku_price_id, charge_description, consumed_unit, pricing_unit, tags, extra
FROM ranked_lines ORDER BY import_id, context_id;

INSERT INTO cost_lines (import_id, charge_start_s, charge_end_s, billed_nanos, effective_nanos, list_nanos, contracted_nanos,
	consumed_quantity, pricing_quantity, line, rows, seq, context_id, charge_start_ns, charge_end_ns)
SELECT import_id, charge_start_s, charge_end_s, billed_nanos, effective_nanos, list_nanos, contracted_nanos,
	consumed_quantity, pricing_quantity, line, rows, seq, context_id, charge_start_ns, charge_end_ns
FROM ranked_lines ORDER BY import_id, seq;

DROP TABLE ranked_lines;
DROP TABLE cost_lines_wide;

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
