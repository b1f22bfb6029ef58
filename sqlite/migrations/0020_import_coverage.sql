-- What each bill import covers, which makes two imports the same bill whatever their files are
-- called (gpucost.BillIdentity): its providers (a JSON array; NULL until computed from the
-- stored lines of an import stored before this migration, when the store is next opened, see
-- sqlite/costs_coverage.go), the span of its charge periods (RFC 3339, '' without lines), the
-- files it was read from (a JSON array of {name, checksum}; '' for one file, its name and
-- checksum) and, in cost_import_coverage, its (billing account, billing period start) pairs. An
-- import whose pairs a stored import shares is refused unless it replaces that import; the
-- index on (account, period) finds those.
ALTER TABLE cost_imports ADD COLUMN providers TEXT;
ALTER TABLE cost_imports ADD COLUMN charge_from TEXT NOT NULL DEFAULT '';
ALTER TABLE cost_imports ADD COLUMN charge_to TEXT NOT NULL DEFAULT '';
ALTER TABLE cost_imports ADD COLUMN files TEXT NOT NULL DEFAULT '';

CREATE TABLE cost_import_coverage (
	import_id INTEGER NOT NULL REFERENCES cost_imports (id) ON DELETE CASCADE,
	account   TEXT    NOT NULL,
	period    TEXT    NOT NULL,
	PRIMARY KEY (import_id, account, period)
) WITHOUT ROWID;
CREATE INDEX cost_import_coverage_pair ON cost_import_coverage (account, period);
