//go:build unix && !linux

package spot

import "syscall"

// procAttr puts the command in its own process group, so signals meant for the runner reach it
// only through the runner.
func procAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }
