-- Settings are the store's own key/value facts, such as the idle threshold rollups were made with.
CREATE TABLE settings (
	key   TEXT PRIMARY KEY,
	value TEXT NOT NULL
) WITHOUT ROWID;
