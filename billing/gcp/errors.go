package gcp

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
	return fmt.Sprintf("a %s lacking required column(s) %s", e.dialect, strings.Join(e.columns, ", "))
}

func missingColumns(name, dialect string, cols []string) error {
	return gpucost.Errorf(gpucost.EInvalid,
		"read GCP billing export %s: %w; export every column of the table (SELECT *), flattening records to service.description or service_description columns",
		name, &missingError{dialect: dialect, columns: cols})
}

// notExport reports a header that is no GCP billing export's.
func notExport(name string, names []string) error {
	shown := names
	if len(shown) > 6 {
		shown = shown[:6]
	}
	return gpucost.Errorf(gpucost.EInvalid,
		"read GCP billing export %s: not a Cloud Billing export: no cost and usage_start_time columns among %q; choose the right --format or file",
		name, shown)
}

// cellError describes a bad value at a place in a file.
func cellError(where, column, value, want string, cause error) error {
	v := value
	if len(v) > 80 {
		v = v[:77] + "..."
	}
	msg := fmt.Sprintf("%s: %s: %q is not %s", where, column, v, want)
	var je *jsonError
	if errors.As(cause, &je) || errors.Is(cause, errJSONEnd) {
		msg += " (" + cause.Error() + ")"
	}
	return gpucost.Errorf(gpucost.EInvalid, "%s; correct the value or export the table again", msg)
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
