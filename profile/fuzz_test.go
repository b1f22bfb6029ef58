package profile

import (
	"fmt"
	"testing"
)

// FuzzParentPID feeds parentPID the text of /proc/<pid>/stat files, whose command name is
// whatever the process chose: spaces, parentheses, line breaks. It must never panic, and must
// find the parent PID of any stat line the kernel's format allows, whatever the name.
func FuzzParentPID(f *testing.F) {
	f.Add("400 (python) S 1 400 400 0 -1 4194560", "python", uint32(1))
	f.Add("500 (a) b) R 400 500", ") R 7 8 (", uint32(400))
	f.Add("42 (x", "", uint32(0))
	f.Add(")", "sh -c 'x)'\n", uint32(4194304))
	f.Fuzz(func(t *testing.T, stat, comm string, ppid uint32) {
		if len(stat) > 64<<10 || len(comm) > 64 {
			return
		}
		parentPID(stat) // arbitrary text: must not panic

		line := fmt.Sprintf("123 (%s) S %d 123 123 0 -1 4194560 103 0 0 0 2 1 0 0 20 0 1 0 6021\n", comm, ppid)
		if got, ok := parentPID(line); !ok || got != int(ppid) {
			t.Fatalf("parentPID(%q) = %d, %t; want %d, true", line, got, ok, ppid)
		}
	})
}
