//go:build unix

package httpapi

import "syscall"

// freeSpace returns the bytes free to an unprivileged user on the file system of dir.
func freeSpace(dir string) (int64, bool) {
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		return 0, false
	}
	return int64(st.Bavail) * int64(st.Bsize), true
}
