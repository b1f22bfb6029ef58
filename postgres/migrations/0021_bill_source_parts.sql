-- The sources of a multi-part export's parts are kept under each part's checksum (the files
-- column of cost_imports, a JSON array of {name, checksum}): deleting the last import that
-- names a part, as its checksum or among its files, deletes the part's source in the same
-- transaction, as 0015 does for one-file imports.
CREATE FUNCTION bill_source_parts_unreferenced() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	IF OLD.files <> '' THEN
		DELETE FROM bill_sources s
		WHERE s.checksum IN (SELECT p->>'checksum' FROM jsonb_array_elements(OLD.files::jsonb) AS p)
			AND NOT EXISTS (SELECT 1 FROM cost_imports i WHERE i.checksum = s.checksum)
			AND NOT EXISTS (SELECT 1 FROM cost_imports i,
				jsonb_array_elements(CASE WHEN i.files = '' THEN '[]'::jsonb ELSE i.files::jsonb END) AS q
				WHERE q->>'checksum' = s.checksum);
	END IF;
	RETURN NULL;
END;
$$;

CREATE TRIGGER bill_source_parts_unreferenced AFTER DELETE ON cost_imports
FOR EACH ROW EXECUTE FUNCTION bill_source_parts_unreferenced();
