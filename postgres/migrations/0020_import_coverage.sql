-- What each bill import covers, which makes two imports the same bill whatever their files are
-- called (gpucost.BillIdentity): its providers (a JSON array; NULL until computed from the
-- stored lines of an import stored before this migration, when the store is next opened, see
-- postgres/costs_coverage.go), the span of its charge periods (RFC 3339, '' without lines), the
-- files it was read from (a JSON array of {name, checksum}; '' for one file, its name and
-- checksum) and, in cost_import_coverage, its (billing account, billing period start) pairs. An
-- import whose pairs a stored import shares is refused unless it replaces that import; the
-- index on (account, period) finds those, and PutCostBatch holds a transaction-scoped advisory
-- lock while it checks and inserts, so two servers cannot both store one period.
ALTER TABLE cost_imports ADD COLUMN providers text;
ALTER TABLE cost_imports ADD COLUMN charge_from text NOT NULL DEFAULT '';
ALTER TABLE cost_imports ADD COLUMN charge_to text NOT NULL DEFAULT '';
ALTER TABLE cost_imports ADD COLUMN files text NOT NULL DEFAULT '';

CREATE TABLE cost_import_coverage (
	import_id bigint NOT NULL REFERENCES cost_imports (id) ON DELETE CASCADE,
	account   text   NOT NULL,
	period    text   NOT NULL,
	PRIMARY KEY (import_id, account, period)
);
CREATE INDEX cost_import_coverage_pair ON cost_import_coverage (account, period);
