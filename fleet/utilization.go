package fleet

import (
	"cmp"
	"math"
	"slices"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/analyze"
)

// DimensionOf returns the Dimension that groups charges as g groups series.
func DimensionOf(g analyze.GroupBy) Dimension {
	switch g.Kind {
	case analyze.ByHost:
		return Dimension{name: "host"}
	case analyze.ByModel:
		return Dimension{name: "model"}
	case analyze.ByLabel:
		if g.Label == gpucost.LabelNamespace || g.Label == gpucost.LabelPod {
			return Dimension{name: g.Label} // the owner's, which a pod's UID names too
		}
		return Dimension{name: "label", key: g.Label}
	}
	return Dimension{name: "gpu"}
}

// Annotate puts the snapshot's figures into a utilisation report grouped by rep.By: each
// group's GPU-hours, used and idle GPU-hours, idle %, cost and idle cost become the
// snapshot's (see Figures), the report's own minutes-below-threshold measure moves to
// ZeroUtilGPUHours, and billed GPU time no telemetry covers gets its own group. Groups are
// ordered by idle cost, largest first; the fleet row holds the totals in the main currency.
func (s *Snapshot) Annotate(rep analyze.Report, keep func(*Charge) bool) analyze.Report {
	d := DimensionOf(rep.By)
	cur, best := "USD", int64(-1) // the currency of the largest GPU cost
	totals := s.Fleet(gpuOnly(keep))
	for _, f := range totals {
		if n := f.GPUCost().Nanos; n > best {
			best, cur = n, f.Currency
		}
	}
	byGroup := s.Group(d, gpuOnly(keep))
	figs := make(map[string]Figures, len(byGroup))
	for _, f := range byGroup {
		if f.Currency == cur {
			figs[f.Group] = f
		}
	}
	none := d.Key(&Charge{Kind: GPUTime, Series: &gpucost.Series{}})
	seen := make(map[string]bool, len(rep.Groups))
	shares := s.shareGroups(rep.By, d, keep)
	groups := slices.Clone(rep.Groups)
	for i := range groups {
		key := groups[i].Key
		if key == analyze.NoneGroup {
			key = none
			groups[i].Key = none
		}
		seen[key] = true
		util, verdict := groups[i].UtilMean, groups[i].Verdict
		annotate(&groups[i], figs[key], cur)
		if shares[key] { // a workload on a time-sliced GPU: its utilisation is its share of the GPU's time
			groups[i].UtilMean, groups[i].Verdict = util, verdict
		}
	}
	for _, f := range figs {
		if !seen[f.Group] && f.GPUHours() > 0 {
			g := analyze.GroupStats{Key: f.Group, UtilMean: nanStat(), UtilP50: nanStat(), UtilP95: nanStat(),
				UtilMax: nanStat(), MemPeakMiB: nanStat(), MemP95MiB: nanStat(), MemTotalMiB: nanStat(), PowerMeanW: nanStat(),
				PowerMaxW: nanStat(), TempMaxC: nanStat(), SMActive: nanStat(), SMOccupancy: nanStat(), Verdict: analyze.NoData}
			annotate(&g, f, cur)
			g.IdlePct = nanStat() // neither used nor idle: no telemetry says
			groups = append(groups, g)
		}
	}
	rep.Groups = sortGroups(groups)
	var fleet Figures
	for _, f := range totals {
		if f.Currency == cur {
			fleet = f
		}
	}
	annotate(&rep.Fleet, fleet, cur)
	rep.Fleet.UnpricedGPUHours = s.Stats.Unpriced
	rep.Currency = cur
	return rep
}

// sortGroups returns groups by idle cost, then cost, largest first, then by key. It sorts their
// indexes and moves each group once: a stable sort of 10,000 groups of several hundred bytes
// moved each many times.
func sortGroups(groups []analyze.GroupStats) []analyze.GroupStats {
	order := make([]int, len(groups))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(i, j int) int {
		a, b := &groups[i], &groups[j]
		return cmp.Or(cmp.Compare(b.IdleCost.Nanos, a.IdleCost.Nanos), cmp.Compare(b.Cost.Nanos, a.Cost.Nanos), cmp.Compare(a.Key, b.Key))
	})
	out := make([]analyze.GroupStats, len(groups))
	for i, j := range order {
		out[i] = groups[j]
	}
	return out
}

// shareGroups returns the workload groups (by is a label) whose GPU time is all time-sliced
// shares (analyze.TimeSliced): docs/architecture.md "Time-sliced GPUs: per-process samples".
func (s *Snapshot) shareGroups(by analyze.GroupBy, d Dimension, keep func(*Charge) bool) map[string]bool {
	if by.Kind != analyze.ByLabel {
		return nil
	}
	out := map[string]bool{}
	for i := range s.Charges {
		c := &s.Charges[i]
		if c.Kind != GPUTime || (keep != nil && !keep(c)) {
			continue
		}
		k := d.Key(c)
		if sliced, seen := out[k]; !seen || sliced {
			out[k] = analyze.TimeSliced(c.Series)
		}
	}
	return out
}

func annotate(g *analyze.GroupStats, f Figures, cur string) {
	g.ZeroUtilGPUHours = g.IdleGPUHours
	g.GPUHours = f.GPUHours()
	g.UsedGPUHours = f.UsedGPUHours()
	g.IdleGPUHours = f.IdleGPUHours()
	g.IdlePct = analyze.Stat(f.IdlePercent())
	if f.GPUCost().Nanos == 0 {
		g.IdlePct = nanStat()
	}
	g.Cost = f.GPUCost()
	g.IdleCost = f.IdleCost
	if g.Cost.Currency == "" {
		g.Cost.Currency, g.IdleCost.Currency = cur, cur
	}
	g.UnpricedGPUHours = 0
	g.PriceSource = string(f.Source)
	if f.UsedGPUHours()+f.IdleGPUHours() > 0 {
		g.UtilMean = analyze.Stat(f.Utilisation())
		g.Verdict = analyze.VerdictFor(f.Utilisation())
	}
}

func nanStat() analyze.Stat { return analyze.Stat(math.NaN()) }

// gpuOnly narrows keep to GPU time.
func gpuOnly(keep func(*Charge) bool) func(*Charge) bool {
	if keep == nil {
		return GPUOnly
	}
	return func(c *Charge) bool { return GPUOnly(c) && keep(c) }
}

// PriceOf returns the price of an hour of a series' whole GPU over the period: its GPU cost ÷ its
// GPU-hours (a MIG instance's scaled to its whole GPU), as analyze prices idle periods.
func (s *Snapshot) PriceOf() func(*gpucost.Series) (gpucost.Money, bool) {
	type acc struct {
		nanos, held int64
		cur         string
	}
	by := map[*gpucost.Series]*acc{}
	for i := range s.Charges {
		c := &s.Charges[i]
		if c.Kind != GPUTime || c.Source == SourceNone {
			continue
		}
		a := by[c.Series]
		if a == nil {
			a = &acc{cur: c.Cost.Currency}
			by[c.Series] = a
		}
		a.nanos += c.Cost.Nanos
		a.held += c.held * 7 / int64(analyze.MIGShare(c.Series.GPU))
	}
	return func(ser *gpucost.Series) (gpucost.Money, bool) {
		a := by[s.series[ser.Key()]]
		if a == nil || a.held == 0 {
			return gpucost.Money{}, false
		}
		return scale(gpucost.Money{Nanos: a.nanos, Currency: a.cur}, unitsPerHour, a.held), true
	}
}
