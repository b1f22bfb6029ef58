-- The bytes of each imported bill file, zstd-compressed and cut into chunks of at most 1 MiB
-- (internal/storeutil/billsource.go), addressed by the file's SHA-256: what gpucost export
-- focus --all gives back row by row, where cost_chunks hold aggregated lines. A source lives
-- as long as an import of that checksum: deleting the last one (RemoveCosts, or PutCosts
-- replacing it) deletes it in the same transaction. Measured: the 1,000-row FOCUS sample
-- (755 KB) keeps 85 KB; a generated 1 M-row FOCUS CSV (711 MB) 38 MB.
CREATE TABLE bill_sources (
	checksum TEXT NOT NULL,
	seq      INTEGER NOT NULL,
	data     BLOB NOT NULL,
	PRIMARY KEY (checksum, seq)
);

CREATE TRIGGER bill_sources_unreferenced AFTER DELETE ON cost_imports
WHEN NOT EXISTS (SELECT 1 FROM cost_imports WHERE checksum = OLD.checksum)
BEGIN
	DELETE FROM bill_sources WHERE checksum = OLD.checksum;
END;
