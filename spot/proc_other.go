//go:build !unix

package spot

import (
	"os"
	"syscall"
)

// procAttr has nothing to set where there are no process groups.
func procAttr() *syscall.SysProcAttr { return nil }

// signalGroup sends sig to p; without process groups only p itself hears it.
func signalGroup(p *os.Process, sig os.Signal) error { return p.Signal(sig) }

// killGroup ends p at once.
func killGroup(p *os.Process) { p.Kill() }
