package main

import (
	"os"
	"strconv"

	"golang.org/x/term"
)

// tableWidth is the width tables are fitted to (present/width.go): $COLUMNS where set, else the
// terminal's when stdout is one; 0, no limit, with --wide or when stdout is a pipe or a file.
func (e *env) tableWidth() int {
	if e.wide {
		return 0
	}
	if c, err := strconv.Atoi(e.getenv("COLUMNS")); err == nil && c > 0 {
		return c
	}
	if f, ok := e.stdout.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		if w, _, err := term.GetSize(int(f.Fd())); err == nil && w > 0 {
			return w
		}
	}
	return 0
}
