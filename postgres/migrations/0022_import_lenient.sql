-- Whether each bill import was read with gpucost import billing --lenient (gpucost.CostImport
-- Lenient): export focus --all reads the import's kept source the same way, so that the
-- amounts and dates the import coerced are written in canonical FOCUS form rather than
-- refused. Imports stored before this migration were read strictly.
ALTER TABLE cost_imports ADD COLUMN lenient boolean NOT NULL DEFAULT false;
