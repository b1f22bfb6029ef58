package demo

import (
	"os"
	"path/filepath"
	"strings"
)

// FilesFor names the demo's files for the store at dbPath (FilesAt): beside a SQLite file, named
// after it, and in the temporary folder for a PostgreSQL store (postgres), which has no folder.
func FilesFor(dbPath string, postgres bool) Files {
	if postgres {
		return FilesAt(filepath.Join(os.TempDir(), "gpucost-demo"))
	}
	return FilesAt(strings.TrimSuffix(dbPath, filepath.Ext(dbPath)))
}
