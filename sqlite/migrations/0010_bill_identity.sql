-- A bill's identity key (gpucost.BillIdentity.Key: format, providers, billing accounts and
-- billing periods of its lines, and the export's base file name) is unique among the stored
-- imports, as the checksum is, so two imports of one bill made at once cannot both land.
-- Imports stored before the key was kept get NULL here and have their key computed from their
-- lines when the store is next opened (sqlite/costs_identity.go); '' marks an import that has
-- no key (its key is another import's, an older double count), which blocks nothing.
ALTER TABLE cost_imports ADD COLUMN identity TEXT;
CREATE UNIQUE INDEX cost_imports_identity ON cost_imports (identity) WHERE identity <> '';

-- Import ids are never used twice, so the audit log's "import 12" names one import for good:
-- cost_import_seq keeps the highest id given (PutCosts gives the next above it and above every
-- stored id), where INTEGER PRIMARY KEY alone would give a removed import's id again.
CREATE TABLE cost_import_seq (last INTEGER NOT NULL);
INSERT INTO cost_import_seq (last) SELECT coalesce(max(id), 0) FROM cost_imports;
