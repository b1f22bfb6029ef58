-- The sources of a multi-part export's parts are kept under each part's checksum (the files
-- column of cost_imports, a JSON array of {name, checksum}): deleting the last import that
-- names a part, as its checksum or among its files, deletes the part's source in the same
-- transaction, as 0015 does for one-file imports.
CREATE TRIGGER bill_source_parts_unreferenced AFTER DELETE ON cost_imports
WHEN OLD.files <> ''
BEGIN
	DELETE FROM bill_sources
	WHERE checksum IN (SELECT json_extract(p.value, '$.checksum') FROM json_each(OLD.files) AS p)
		AND NOT EXISTS (SELECT 1 FROM cost_imports i WHERE i.checksum = bill_sources.checksum)
		AND NOT EXISTS (SELECT 1 FROM cost_imports i, json_each(CASE WHEN i.files = '' THEN '[]' ELSE i.files END) AS q
			WHERE json_extract(q.value, '$.checksum') = bill_sources.checksum);
END;
