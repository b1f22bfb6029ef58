-- The bytes of each imported bill file, zstd-compressed and cut into chunks of at most 1 MiB
-- (internal/storeutil/billsource.go), addressed by the file's SHA-256: what gpucost export
-- focus --all gives back row by row, where cost_lines hold aggregated lines. A source lives
-- as long as an import of that checksum: deleting the last one (RemoveCosts, or PutCosts
-- replacing it) deletes it in the same transaction. Measured: the 1,000-row FOCUS sample
-- (755 KB) keeps 85 KB; a generated 1 M-row FOCUS CSV (711 MB) 38 MB.
CREATE TABLE bill_sources (
	checksum text NOT NULL,
	seq      integer NOT NULL,
	data     bytea NOT NULL,
	PRIMARY KEY (checksum, seq)
);
ALTER TABLE bill_sources ALTER COLUMN data SET STORAGE EXTERNAL;

CREATE FUNCTION bill_sources_unreferenced() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	IF NOT EXISTS (SELECT 1 FROM cost_imports WHERE checksum = OLD.checksum) THEN
		DELETE FROM bill_sources WHERE checksum = OLD.checksum;
	END IF;
	RETURN NULL;
END;
$$;

CREATE TRIGGER bill_sources_unreferenced AFTER DELETE ON cost_imports
FOR EACH ROW EXECUTE FUNCTION bill_sources_unreferenced();
