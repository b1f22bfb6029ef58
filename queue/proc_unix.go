//go:build unix

package queue

import (
	"os/exec"
	"syscall"
)

// inGroup starts cmd in a process group of its own and makes cancelling it kill the whole
// group, so that what a timed-out command started (a shell's children, a sleep) ends with it.
func inGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
}
