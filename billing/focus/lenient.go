package focus

import (
	"errors"
	"fmt"

	"github.com/gpucost/gpucost/billing/internal/csvscan"
	"github.com/gpucost/gpucost/billing/internal/lenient"
	"github.com/gpucost/gpucost/billing/internal/readerr"
)

// signAt is the currency sign a lenient read took off the amount in column col of a row.
type signAt struct {
	col  int
	sign string
}

// coerce reads field i of the current record, which the strict reading of its kind refused,
// the lenient way when Options.Lenient is set (billing/internal/lenient). It returns the error
// for a value that stays refused, naming the place and what to do: importing with --lenient,
// where that would read it.
func (b *builder) coerce(s *csvscan.Scanner, lay *layout, p *colPlan, i int) error {
	v := trimSpace(s.Field(i))
	var cause error
	fix := "fix the value in the file and import it again"
	switch p.kind {
	case kMoney:
		text, sign, err := lenient.Amount(b.scratch[:0], v)
		var n int64
		if err == nil {
			n, err = parseNanos(text)
		}
		switch {
		case err == nil && b.lenient:
			b.scratch = text
			*p.money = n
			b.set |= p.bit
			if sign != "" {
				b.signs = append(b.signs, signAt{i, sign})
			}
			b.coerced.Add(lenient.AmountKind, lenient.AmountHow, lay.names[i])
			return nil
		case err == nil:
			fix += fmt.Sprintf(", or import with --lenient, which reads it as %s", text)
		}
	case kTime:
		t, err := lenient.Time(v)
		switch {
		case err == nil && b.lenient:
			*p.tm = t
			b.set |= p.bit
			b.coerced.Add(lenient.DateKind, lenient.DateHow, lay.names[i])
			return nil
		case err == nil:
			fix += fmt.Sprintf(", or import with --lenient, which reads it as %s", t.Format("2006-01-02T15:04:05Z07:00"))
		case errors.Is(err, lenient.ErrAmbiguous):
			cause = err
		}
	}
	line, _ := s.Where(i)
	return readerr.Cell(fmt.Sprintf("%s:%d", b.file, line), readerr.Column(i+1, lay.names[i]), string(v), hint(p.kind), cause, fix)
}

// checkSigns refuses a row whose amounts, read leniently, carry a currency sign that is not
// the row's BillingCurrency: "€10.00" in a USD row is no USD amount.
func (b *builder) checkSigns(s *csvscan.Scanner, lay *layout) error {
	cur := b.line.BilledCost.Currency
	for _, sa := range b.signs {
		if cur == "" || lenient.Matches(sa.sign, cur) {
			continue
		}
		line, _ := s.Where(sa.col)
		return readerr.Cell(fmt.Sprintf("%s:%d", b.file, line), readerr.Column(sa.col+1, lay.names[sa.col]),
			string(trimSpace(s.Field(sa.col))), "an amount in "+cur+", the row's BillingCurrency", nil,
			"fix the value or the currency in the file and import it again")
	}
	return nil
}
