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

// Off is the serve --wal value that turns the log off.
const Off = "off"

// Dir returns the folder of the log of samples pushed to a store, from serve's --wal value
// flag: flag itself where it names one, "" for Off; by default beside a SQLite file
// (file.ingest-wal), or under dataHome for the PostgreSQL database at postgresURL
// (PostgresDir); "" for a store that is neither. file is the SQLite file, "" for PostgreSQL.
func Dir(flag, file, postgresURL, dataHome string) string {
	switch {
	case file != "" && flag == "":
		return file + ".ingest-wal"
	case flag == Off:
		return ""
	case flag != "":
		return flag
	case postgresURL == "":
		return ""
	}
	return PostgresDir(postgresURL, dataHome)
}
