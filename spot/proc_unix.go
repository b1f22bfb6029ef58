//go:build unix

package spot

import (
	"os"
	"syscall"
)

// signalGroup sends sig to p's process group: a shell script's children hear it too.
func signalGroup(p *os.Process, sig os.Signal) error {
	s, ok := sig.(syscall.Signal)
	if !ok {
		return p.Signal(sig)
	}
	return syscall.Kill(-p.Pid, s)
}

// killGroup ends p's process group at once.
func killGroup(p *os.Process) { syscall.Kill(-p.Pid, syscall.SIGKILL) }
