package azure

import (
	"errors"
	"fmt"
	"strings"

	"github.com/gpucost/gpucost"
)

// missingError lists the required columns a file lacks.
type missingError struct {
	schema  string
	columns []string
}

func (e *missingError) Error() string {
	return fmt.Sprintf("%s cost details file lacks required column(s) %s", e.schema, strings.Join(e.columns, ", "))
}

func missingColumns(schema string, cols []string) error {
	return gpucost.Errorf(gpucost.EInvalid,
		"%w; export the cost details again with all columns (Cost Management exports, \"Cost and usage details\"), or give the billing currency if only it is missing",
		&missingError{schema: schema, columns: cols})
}

// notAzure reports a header that is no cost details file's.
func notAzure(names []string) error {
	shown := names
	if len(shown) > 6 {
		shown = shown[:6]
	}
	return gpucost.Errorf(gpucost.EInvalid,
		"not an Azure cost details file: no cost, date and meter columns (CostInBillingCurrency, Date, MeterCategory, …) among %q; choose the right --format or file",
		shown)
}

// cellError describes a bad value at a place in a file.
func cellError(where, column, value, want string, cause error) error {
	v := value
	if len(v) > 80 {
		v = v[:77] + "..."
	}
	msg := fmt.Sprintf("%s: column %s: %q is not %s", where, column, v, want)
	if cause != nil && !errors.Is(cause, errJSON) {
		msg += " (" + cause.Error() + ")"
	}
	return gpucost.Errorf(gpucost.EInvalid, "%s; correct the value or export the file again", msg)
}

// what each kind of cell must be, for messages.
var wants = [...]string{
	kString:   "text",
	kTime:     "a date like 2024-09-01 or 09/01/2024 (MM/DD/YYYY)",
	kQuantity: "a number",
	kAmount:   "a decimal amount",
	kPrice:    "a decimal price",
}

// wantTags is what a Tags cell must be.
const wantTags = `a JSON object of tags like {"team": "ml"} or "team": "ml"`

func asMissing(err error, target **missingError) bool { return errors.As(err, target) }
