-- A bill's identity key (gpucost.BillIdentity.Key: format, providers, billing accounts and
-- billing periods of its lines, and the export's base file name) is unique among the stored
-- imports, as the checksum is, so two imports of one bill made at once, by one server or by
-- several on this database, cannot both land: the second insert waits for the first
-- transaction and fails with a unique violation, which PutCosts reports as a conflict.
-- Imports stored before the key was kept get NULL here and have their key computed from their
-- lines when the store is next opened (postgres/costs_identity.go); '' marks an import that has
-- no key (its key is another import's, an older double count), which blocks nothing.
ALTER TABLE cost_imports ADD COLUMN identity text;
CREATE UNIQUE INDEX cost_imports_identity ON cost_imports (identity) WHERE identity <> '';
