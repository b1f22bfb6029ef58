package focus

import (
	"time"

	"github.com/gpucost/gpucost/billing/internal/lenient"
)

// typedCol is a column of a RowReader's file that Read reads as an amount or a date: the
// columns Options.Lenient may coerce.
type typedCol struct {
	col  int
	kind kind // kMoney or kTime
}

// SetLenient makes r read rows as Read does with Options.Lenient (gpucost import billing
// --lenient): an amount or date of a column Read reads (BilledCost, EffectiveCost, ListCost,
// ContractedCost, BillingPeriodStart, ChargePeriodStart, ChargePeriodEnd) that a strict read
// refuses but billing/internal/lenient reads is given by Values, ChargePeriodStart and Costs in
// canonical FOCUS form: a plain decimal ("$10,000.00" is 10000.00) or an RFC 3339 time in UTC
// ("2025/10/01" is 2025-10-01T00:00:00Z). Values a strict read takes, and every other column,
// are given as written. It is how export focus --all reads the kept source of an import made
// with --lenient, so that importing the export strictly gives the same lines.
func (r *RowReader) SetLenient(on bool) { r.lenient = on }

// coerce rewrites, reading leniently, the typed values of the row read that a strict read
// refuses and the lenient one reads; a value neither reads is left for ChargePeriodStart and
// Costs to refuse, or, in a column they do not read, to be written as it is.
func (r *RowReader) coerce() {
	if !r.lenient {
		return
	}
	for _, c := range r.typed {
		v := trimSpace(r.vals[c.col])
		if isNull(v) || strictValue(v, c.kind) {
			continue
		}
		if out, err := lenientValue(r.scratch[c.col][:0], v, c.kind); err == nil {
			r.scratch[c.col] = out
			r.vals[c.col] = out
		}
	}
}

// strictValue reports whether a strict read takes v as a value of kind k.
func strictValue(v []byte, k kind) bool {
	if k == kTime {
		_, ok := parseTime(v)
		return ok
	}
	_, err := parseNanos(v)
	return err == nil
}

// lenientValue appends to dst the canonical text of v, an amount or date that a lenient read
// takes (billing/internal/lenient), and returns it: the plain decimal of an amount, RFC 3339 in
// UTC of a date.
func lenientValue(dst, v []byte, k kind) ([]byte, error) {
	switch k {
	case kMoney:
		text, _, err := lenient.Amount(dst, v)
		if err == nil {
			_, err = parseNanos(text)
		}
		return text, err
	case kTime:
		t, err := lenient.Time(v)
		if err != nil {
			return dst, err
		}
		return t.UTC().AppendFormat(dst, time.RFC3339Nano), nil
	}
	return dst, lenient.ErrNotAmount
}

// kindOfColumn is how Read reads the column called name: kMoney, kTime, or another kind.
func kindOfColumn(name string) kind {
	if c := lookupSpec(name); c != nil {
		return kindOf(c.field)
	}
	return kSkip
}
