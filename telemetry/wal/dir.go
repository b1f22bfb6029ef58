package wal

import (
	"crypto/sha256"
	"encoding/hex"
	"net/url"
	"path/filepath"
)

// PostgresDir returns the folder of the log of samples pushed to the PostgreSQL database at
// dbURL: one per database under dataHome/gpucost, named by a hash of the URL's host and path,
// so that the password and the connection settings do not change which log a database has.
func PostgresDir(dbURL, dataHome string) string {
	id := dbURL
	if u, err := url.Parse(dbURL); err == nil {
		id = u.Host + u.Path
	}
	sum := sha256.Sum256([]byte(id))
	return filepath.Join(dataHome, "gpucost", "ingest-wal-"+hex.EncodeToString(sum[:6]))
}
