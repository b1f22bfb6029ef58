package awscur

import (
	"errors"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/billing/internal/jsontext"
	"github.com/gpucost/gpucost/billing/internal/readerr"
)

// missingColumns reports the required columns a file lacks.
func missingColumns(dialect string, cols []string) error {
	return readerr.MissingColumns("",
		&readerr.Missing{Dialect: dialect, Lead: dialect + " file lacks required column(s)", Columns: cols},
		"export the CUR with all line item columns (AWS Data Exports, table COST_AND_USAGE_REPORT)")
}

// notCUR reports a header that is no CUR's.
func notCUR(names []string) error {
	return gpucost.Errorf(gpucost.EInvalid,
		"not an AWS Cost and Usage Report: no line_item_* (or lineItem/*) columns among %q; choose the right --format or file",
		readerr.Shown(names))
}

// cellError describes a bad value at where (file:line, or file: row n) in column, as
// readerr.Column names it.
func cellError(where, column, value, want string, cause error) error {
	if errors.Is(cause, jsontext.ErrSyntax) {
		cause = nil // the wanted shape says enough
	}
	return readerr.Cell(where, column, value, want, cause, "correct the value or re-export the file")
}

// what each kind of cell must be, for messages.
var wants = [...]string{
	kString:   "text",
	kTime:     "a timestamp like 2024-09-01T00:00:00Z",
	kQuantity: "a number",
	kAmount:   "a decimal amount",
	kMap:      `a JSON object of strings like {"user_team":"ml"}`,
}
