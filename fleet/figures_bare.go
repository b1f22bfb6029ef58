package fleet

import (
	"time"

	"github.com/gpucost/gpucost"
)

// groupBare adds to g the NoTelemetry charge of each GPU line no telemetry covers (Line.bare),
// as Group adds the charges All yields, in one Charge set line by line: a year of daily lines
// without telemetry is millions of them (docs/architecture.md "Speed of the reports"). Every
// field Dimension.Key reads of such a charge is its LineResource's (Owner, Model, the bill's
// fields; it has no series), and so are its currencies, but where a merged line's empty
// currency reads as USD: a line's group is looked up once for each LineResource and that
// case, by the LineResource's number, and keep is asked of every line. Without a keep, a line
// whose group is known is added without a Charge, as Figures.add adds a NoTelemetry one: its
// day to the group's Daily, its sums to its LineResource's (bareGroup), which are added to
// the group's figures at the end.
func (s *Snapshot) groupBare(g *groups, d Dimension, keep func(*Charge) bool) {
	known := make([]bareGroup, 2*s.resources) // by 2 × LineResource.seq (+1: usd)
	c := Charge{Kind: NoTelemetry, Source: SourceBill}
	var res *LineResource
	for cl := range s.cells.all() {
		ln := &cl.line
		if !ln.bare() {
			continue
		}
		if keep == nil { // no charge to ask keep of: Figures.add's sums of bareCharge(ln) once its group is known
			r := ln.LineResource
			k := 2 * r.seq
			if ln.merged() && (r.currency == "" || r.billedCurrency == "") {
				k++
			}
			if bg := &known[k]; bg.j > 0 {
				bg.added = true
				bg.billed += ln.billed
				bg.units += ln.units()
				bg.eff += ln.eff
				if day := g.dayOfUnixNano(ln.start); day >= 0 && day < len(bg.daily) {
					bg.daily[day].Nanos += ln.eff
				}
				continue
			}
		}
		if ln.LineResource != res {
			res = ln.LineResource
			c.Model, c.Owner = res.Model, res.Owner
		}
		// bareCharge, field by field
		ef, bi := ln.EffectiveCost(), ln.BilledCost()
		c.Start, c.Line, c.held = ln.Start(), ln, ln.units()
		c.Cost, c.IdleCost = ef, gpucost.Money{Currency: ef.Currency}
		c.Billed, c.IdleBilled = bi, gpucost.Money{Currency: bi.Currency}
		if keep != nil && !keep(&c) {
			continue
		}
		k := 2 * res.seq
		if ln.merged() && (res.currency == "" || res.billedCurrency == "") {
			k++
		}
		j := int(known[k].j) - 1
		if j < 0 {
			j = g.at(d.Key(&c), &c)
			known[k] = bareGroup{j: int32(j + 1), daily: g.out[j].Daily}
		}
		g.out[j].add(&c, g.dayOfUnixNano(ln.start))
	}
	for i := range known {
		if bg := &known[i]; bg.added {
			f := &g.out[bg.j-1]
			f.Source = f.Source.with(SourceBill)
			f.BilledCost.Nanos += bg.billed
			f.noTel += bg.units
			f.NoTelemetryCost.Nanos += bg.eff
		}
	}
}

// bareGroup is the group of the bare lines of one LineResource (and currency case), found
// once, and the sums of those added to it without a Charge: summed apart from the group's
// Figures, 400 bytes each and one of 10,000 by resource, a line reads and writes 56 bytes.
type bareGroup struct {
	j                  int32 // 1 + the group's index in g.out; 0 until looked up
	added              bool  // a line was added to the sums
	billed, units, eff int64
	daily              []gpucost.Money // the group's Daily
}

// dayOfUnixNano is dayIndex of the time fromUnixNano(n) gives, worked out on the nanoseconds
// where it can be (groups.nanoDays).
func (g *groups) dayOfUnixNano(n int64) int {
	switch {
	case !g.nanoDays:
		return g.dayIndex(fromUnixNano(n))
	case n < g.firstNano || n >= g.endNano:
		return -1
	}
	return int((n - g.firstNano) / int64(24*time.Hour))
}

// bareSums adds to sums, by currency, the effective cost of each GPU line no telemetry covers
// (bareCharge: the whole line, priced by the bill, never outside), as adding each line's
// EffectiveCost would: the lines of a LineResource, mostly in runs, have one currency, so the
// map is added to once a run, not once a line.
func (s *Snapshot) bareSums(sums map[string]int64) {
	var cur string
	var sum int64
	run := false
	for _, bl := range s.cells.blocks {
		for i := range bl {
			ln := &bl[i].line
			if !ln.bare() {
				continue
			}
			c := ln.currency
			if c == "" && ln.merged() {
				c = "USD" // Line.money
			}
			if !run || !same(c, cur) {
				if run {
					sums[cur] += sum
				}
				cur, sum, run = c, 0, true
			}
			sum += ln.eff
		}
	}
	if run {
		sums[cur] += sum
	}
}

// PriceSource is where the prices of the GPU-hours of the charges keep accepts came from, all
// currencies together: the Source of Fleet(keep)'s figures, each added to the others' (the
// reports' price note). Every GPU line no telemetry covers is priced by the bill, so the first
// of them keep accepts says all they add: a year of daily lines is not summed for one word.
func (s *Snapshot) PriceSource(keep func(*Charge) bool) Source {
	src := SourceNone
	for i := range s.Charges {
		if c := &s.Charges[i]; keep == nil || keep(c) {
			src = src.with(c.Source)
		}
	}
	for _, bl := range s.cells.blocks {
		for i := range bl {
			if ln := &bl[i].line; ln.bare() {
				if c := bareCharge(ln); keep == nil || keep(&c) {
					return src.with(c.Source)
				}
			}
		}
	}
	return src
}
