package spot

import "syscall"

// procAttr puts the command in its own process group, so signals meant for the runner (a
// terminal's Ctrl-C) reach it only through the runner, and has the kernel kill it if the runner
// dies: a command left running without its runner would write checkpoints nobody uploads.
func procAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
