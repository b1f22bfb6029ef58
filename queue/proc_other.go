//go:build !unix

package queue

import "os/exec"

// inGroup leaves cmd as it is where there are no process groups: cancelling it kills only
// the command itself.
func inGroup(cmd *exec.Cmd) {}
