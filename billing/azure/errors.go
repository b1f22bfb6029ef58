package azure

import (
	"errors"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/billing/internal/jsontext"
	"github.com/gpucost/gpucost/billing/internal/readerr"
)

// missingColumns reports the required columns a file lacks.
func missingColumns(schema string, cols []string) error {
	return readerr.MissingColumns("",
		&readerr.Missing{Dialect: schema, Lead: schema + " cost details file lacks required column(s)", Columns: cols},
		"export the cost details again with all columns (Cost Management exports, \"Cost and usage details\"), or give the billing currency if only it is missing")
}

// notAzure reports a header that is no cost details file's.
func notAzure(names []string) error {
	return gpucost.Errorf(gpucost.EInvalid,
		"not an Azure cost details file: no cost, date and meter columns (CostInBillingCurrency, Date, MeterCategory, …) among %q; choose the right --format or file",
		readerr.Shown(names))
}

// cellError describes a bad value at where (file:line) in column, as readerr.Column names it.
func cellError(where, column, value, want string, cause error) error {
	if errors.Is(cause, jsontext.ErrSyntax) {
		cause = nil // the wanted shape says enough
	}
	return readerr.Cell(where, column, value, want, cause, "correct the value or export the file again")
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
