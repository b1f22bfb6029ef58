package billing

import (
	"iter"
	"time"

	"github.com/gpucost/gpucost"
)

// Coverage returns what an import covers (gpucost.BillIdentity) in few lines: one for each
// context of the lines — and each month of their charges when it has no billing period — with
// its provider, billing account and billing period, and a charge period from the earliest
// start to the latest end among them (the latest start where a line has no end). Adding these
// to a BillIdentity gives what adding every line of Lines gives, without ordering the lines or
// filling each. Only those fields are set; the *CostLine is reused.
func (a *Aggregator) Coverage() iter.Seq[*gpucost.CostLine] {
	type group struct {
		ctx   int32
		month int64 // the month the charges start in, for a context without a billing period
	}
	type span struct{ from, to int64 }
	zero := (time.Time{}).Unix()
	spans := map[group]int{}               // a group's index in order, for the contexts without a billing period
	byCtx := make([]int32, len(a.ctxList)) // a context's group's index in order + 1, for the others
	var order []group
	var ss []span
	for i := range a.ncells {
		c := a.cell(int32(i))
		if c.rows == 0 {
			continue // a hole (merge.go)
		}
		ctx := a.dimAt(c.dim).ctx
		g := group{ctx: ctx}
		var j int
		if a.ctxList[ctx].billingPeriod == zero {
			t := time.Unix(c.start, 0).UTC()
			g.month = time.Date(t.Year(), t.Month(), 1, 0, 0, 0, 0, time.UTC).Unix()
			k, ok := spans[g]
			if !ok {
				k = len(order)
				spans[g] = k
			}
			j = k
		} else {
			j = int(byCtx[ctx]) - 1
			if j < 0 {
				j = len(order)
				byCtx[ctx] = int32(j + 1)
			}
		}
		end := c.end
		if end == zero {
			end = c.start
		}
		if j == len(order) {
			order = append(order, g)
			ss = append(ss, span{c.start, end})
		}
		s := &ss[j]
		if s.from == zero || c.start != zero && c.start < s.from {
			s.from = c.start
		}
		s.to = max(s.to, end)
	}
	return func(yield func(*gpucost.CostLine) bool) {
		var l gpucost.CostLine
		for j, g := range order {
			x, s := &a.ctxList[g.ctx], ss[j]
			l = gpucost.CostLine{Provider: x.provider, BillingAccountID: x.billingAccount,
				BillingPeriodStart: unixTime(x.billingPeriod), ChargePeriodStart: unixTime(s.from), ChargePeriodEnd: unixTime(s.to)}
			if !yield(&l) {
				return
			}
		}
	}
}
