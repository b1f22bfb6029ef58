//go:build !unix

package wal

import (
	"fmt"
	"os"
	"path/filepath"
)

// lockDir creates dir's LOCK file; where flock(2) is missing, nothing stops a second server
// from using the same log.
func lockDir(dir string) (*os.File, error) {
	f, err := os.OpenFile(filepath.Join(dir, "LOCK"), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("lock the write-ahead log: %w", err)
	}
	return f, nil
}
