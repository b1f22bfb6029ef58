package main

import (
	"os"
	"path/filepath"

	"github.com/gpucost/gpucost/internal/storeopen"
	"github.com/gpucost/gpucost/telemetry/wal"
)

// walOff is the --wal value that turns the write-ahead log off.
const walOff = "off"

// walDir returns the directory of the write-ahead log of pushed samples to db: --wal if given,
// else beside the SQLite file (FILE.ingest-wal), or for PostgreSQL in the data directory, one
// per database. It is "" with --wal off, and for a store that is neither.
func (e *env) walDir(flag string, db storeDB) string {
	if f := db.File(); f != "" && flag == "" {
		return f + ".ingest-wal"
	}
	switch {
	case flag == walOff:
		return ""
	case flag != "":
		return flag
	case !storeopen.IsPostgres(e.dbPath):
		return ""
	}
	dataHome := e.getenv("XDG_DATA_HOME")
	if dataHome == "" {
		home := e.getenv("HOME")
		if home == "" {
			home, _ = os.UserHomeDir()
		}
		dataHome = filepath.Join(home, ".local", "share")
	}
	return wal.PostgresDir(e.dbPath, dataHome)
}
