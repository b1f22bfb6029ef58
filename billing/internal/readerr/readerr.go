// Package readerr builds the errors the bill readers return for input they cannot read: a header
// that is not the reader's, required columns that are missing, and a bad value at a place in a
// file. Each reader passes its own wording (what the file is, how to fix it), so every message
// names the file, the place and what to do, in one shape across readers. All are
// gpucost.EInvalid.
package readerr

import (
	"fmt"
	"strings"

	"github.com/gpucost/gpucost"
)

// Missing lists the required columns a file lacks.
type Missing struct {
	// Dialect is the file's dialect or schema as the reader detected it ("CUR 2.0", "EA").
	Dialect string
	// Lead says what lacks the columns, and the verb: "EA cost details file lacks required
	// column(s)".
	Lead    string
	Columns []string
}

func (e *Missing) Error() string { return e.Lead + " " + strings.Join(e.Columns, ", ") }

// MissingColumns returns m as an EInvalid error after prefix (such as "read X: ", or empty) and
// followed by fix, which says how to export a complete file.
func MissingColumns(prefix string, m *Missing, fix string) error {
	return gpucost.Errorf(gpucost.EInvalid, "%s%w; %s", prefix, m, fix)
}

// Shown returns the first column names of a header, enough to show in a message about it.
func Shown(names []string) []string {
	if len(names) > 6 {
		return names[:6]
	}
	return names
}

// Cell describes a bad value at where (file:line, or file: row n) in column (as Column names
// it, "column 7 (Cost)"): value is quoted and clipped to 80 bytes, want says what it
// must be, cause (when not nil) adds detail in brackets, and fix says what to do.
func Cell(where, column, value, want string, cause error, fix string) error {
	msg := fmt.Sprintf("%s: %s: %q is not %s", where, column, Clip(value), want)
	if cause != nil {
		msg += " (" + cause.Error() + ")"
	}
	return gpucost.Errorf(gpucost.EInvalid, "%s; %s", msg, fix)
}

// Clip shortens v to at most 80 bytes for a message, ending a shortened one in "...".
func Clip(v string) string {
	if len(v) > 80 {
		return v[:77] + "..."
	}
	return v
}

// Column names column n (from 1) of a file for messages, with its header name: "column 7
// (BilledCost)". A value without a column number (a JSON field, n 0) is "column BilledCost", one
// whose header is unknown "column 7". Every reader names a bad value's place as file:line: and
// this, never a byte offset, so a person finds the column in a spreadsheet.
func Column(n int, name string) string {
	switch {
	case n <= 0:
		return "column " + name
	case name == "":
		return fmt.Sprintf("column %d", n)
	}
	return fmt.Sprintf("column %d (%s)", n, name)
}
