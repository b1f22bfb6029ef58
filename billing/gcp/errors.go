package gcp

import (
	"errors"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/billing/internal/readerr"
)

// missingColumns reports the required columns a file lacks.
func missingColumns(name, dialect string, cols []string) error {
	return readerr.MissingColumns("read GCP billing export "+name+": ",
		&readerr.Missing{Dialect: dialect, Lead: "a " + dialect + " lacking required column(s)", Columns: cols},
		"export every column of the table (SELECT *), flattening records to service.description or service_description columns")
}

// notExport reports a header that is no GCP billing export's.
func notExport(name string, names []string) error {
	return gpucost.Errorf(gpucost.EInvalid,
		"read GCP billing export %s: not a Cloud Billing export: no cost and usage_start_time columns among %q; choose the right --format or file",
		name, readerr.Shown(names))
}

// cellError describes a bad value at a place in a file.
func cellError(where, column, value, want string, cause error) error {
	var je *jsonError
	if !errors.As(cause, &je) && !errors.Is(cause, errJSONEnd) {
		cause = nil // only JSON faults add to the wanted shape
	}
	return readerr.Cell(where, column, value, want, cause, "correct the value or export the table again")
}

// wantOf says what a field's values must be, for messages.
func wantOf(f field) string {
	switch f.kind() {
	case kTime:
		return `a timestamp like "2024-06-03 14:00:00 UTC"`
	case kAmount:
		return "a decimal amount"
	case kQuantity:
		return "a number"
	case kRepeated:
		return `a JSON array like [{"key":"team","value":"ml"}]`
	case kCredits:
		return `a JSON array like [{"name":"…","amount":-1.5,"type":"SUSTAINED_USAGE_DISCOUNT"}]`
	}
	if f == fInvoiceMonth {
		return `a month like "202406"`
	}
	return "text"
}
