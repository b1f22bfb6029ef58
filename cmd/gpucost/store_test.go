package main

import "os"

// fileExists reports whether path exists: a command that only reads must not create the store.
func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
