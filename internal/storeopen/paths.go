package storeopen

import (
	"os"
	"path/filepath"
)

// DefaultPath returns the store a command opens without --db: $GPUCOST_DB, else gpucost.db in
// DataDir. getenv looks the variables up: the command's environment.
func DefaultPath(getenv func(string) string) string {
	if p := getenv("GPUCOST_DB"); p != "" {
		return p
	}
	return filepath.Join(DataDir(getenv), "gpucost.db")
}

// DataDir returns gpucost's folder in DataHome, which holds the default SQLite store and queue
// serve's data.
func DataDir(getenv func(string) string) string {
	return filepath.Join(DataHome(getenv), "gpucost")
}

// DataHome returns $XDG_DATA_HOME, else ~/.local/share.
func DataHome(getenv func(string) string) string {
	if dir := getenv("XDG_DATA_HOME"); dir != "" {
		return dir
	}
	home := getenv("HOME")
	if home == "" {
		home, _ = os.UserHomeDir()
	}
	return filepath.Join(home, ".local", "share")
}
