//go:build unix

package wal

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"

	"github.com/gpucost/gpucost"
)

// lockDir takes an exclusive lock on dir's LOCK file, so that two servers never append to the
// same log; the lock goes with the process, a killed one too.
func lockDir(dir string) (*os.File, error) {
	f, err := os.OpenFile(filepath.Join(dir, "LOCK"), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("lock the write-ahead log: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, gpucost.Errorf(gpucost.EInvalid, "--wal %s is in use by another gpucost serve: give each server its own --wal directory", dir)
		}
		return nil, fmt.Errorf("lock the write-ahead log: %w", err)
	}
	return f, nil
}
