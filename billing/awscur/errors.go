package awscur

import (
	"errors"
	"fmt"
	"strings"

	"github.com/gpucost/gpucost"
)

// missingError lists the required columns a file lacks.
type missingError struct {
	dialect string
	columns []string
}

func (e *missingError) Error() string {
	return fmt.Sprintf("%s file lacks required column(s) %s", e.dialect, strings.Join(e.columns, ", "))
}

func missingColumns(dialect string, cols []string) error {
	return gpucost.Errorf(gpucost.EInvalid,
		"%w; export the CUR with all line item columns (AWS Data Exports, table COST_AND_USAGE_REPORT)",
		&missingError{dialect: dialect, columns: cols})
}

func asMissing(err error, target **missingError) bool { return errors.As(err, target) }

// notCUR reports a header that is no CUR's.
func notCUR(names []string) error {
	shown := names
	if len(shown) > 6 {
		shown = shown[:6]
	}
	return gpucost.Errorf(gpucost.EInvalid,
		"not an AWS Cost and Usage Report: no line_item_* (or lineItem/*) columns among %q; choose the right --format or file",
		shown)
}

// cellError describes a bad value at a place in a file.
func cellError(where, column, value, want string, cause error) error {
	v := value
	if len(v) > 80 {
		v = v[:77] + "..."
	}
	msg := fmt.Sprintf("%s: column %s: %q is not %s", where, column, v, want)
	if cause != nil && !errors.Is(cause, errJSONMap) {
		msg += " (" + cause.Error() + ")"
	}
	return gpucost.Errorf(gpucost.EInvalid, "%s; correct the value or re-export the file", msg)
}

// what each kind of cell must be, for messages.
var wants = [...]string{
	kString:   "text",
	kTime:     "a timestamp like 2024-09-01T00:00:00Z",
	kQuantity: "a number",
	kAmount:   "a decimal amount",
	kMap:      `a JSON object of strings like {"user_team":"ml"}`,
}
