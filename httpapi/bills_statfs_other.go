//go:build !unix

package httpapi

// freeSpace reports that free space is not known here: the bill's disk checks are skipped.
func freeSpace(dir string) (int64, bool) { return 0, false }
