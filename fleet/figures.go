package fleet

import (
	"cmp"
	"encoding/json"
	"slices"
	"strings"
	"time"

	"github.com/gpucost/gpucost"
)

// FleetGroup names the totals of the whole fleet.
const FleetGroup = "(fleet)"

// Group names for charges without a value for the dimension.
const (
	UntaggedName    = "(untagged)"      // team, project, tag:KEY: no tag or label names one
	NoTelemetryName = "(no telemetry)"  // a telemetry dimension of billed time no telemetry covers
	NotBilled       = "(not billed)"    // a bill dimension of GPU time no bill line covers
	NoneName        = "(none)"          // any other dimension without a value
	IdleCapacity    = "(idle capacity)" // a telemetry dimension of a Tally's idle capacity
)

// Figures are one group's GPU time and spend in one currency over a snapshot's period. Every
// figure gpucost shows is one of its methods, defined once here:
//
//   - GPU-hours: the hours a GPU was held, from telemetry coverage (a MIG instance counts as its
//     share of the GPU), plus billed GPU time no telemetry covers, which is neither used nor idle.
//   - used GPU-hours: Σ held time × utilisation; idle GPU-hours: held time − used time.
//   - the price of a GPU-hour: the bill's effective cost where a bill line covers it (the line's
//     EffectiveCost ÷ its billed GPU-hours, per resource and charge period), the catalog's
//     on-demand price only where none does; Source says which.
//   - GPU cost = used cost + idle cost + no-telemetry cost, each Σ hours × price, in exact
//     nano-units; a bill line's cost is split between its hours by largest remainder, so the
//     parts add up to the line.
//   - idle % = idle cost ÷ GPU cost; $/GPU-h = GPU cost ÷ GPU-hours; $/used GPU-h = GPU cost,
//     idle included, ÷ used GPU-hours; utilisation = used ÷ the GPU-hours telemetry covers.
//   - idle belongs to the group that held the GPU: the series' labels name it, the bill's
//     tags complete it.
type Figures struct {
	Group    string
	Currency string
	Source   Source // where the GPU-hours' prices came from

	UsedCost        gpucost.Money // used GPU time × price
	IdleCost        gpucost.Money // idle GPU time × price, charged to the group that held the GPU
	NoTelemetryCost gpucost.Money // billed GPU time no telemetry covers
	OtherCost       gpucost.Money // bill lines that pay for no GPU time (storage, network, CPU)
	BilledCost      gpucost.Money // what the invoice says of all the above (BilledCost, not amortised)
	IdleBilled      gpucost.Money

	Jobs  int             // distinct job labels that used the group's GPUs
	Daily []gpucost.Money // GPU and other cost per day of the period's Days

	held, used, noTel int64 // GPU time, units
	jobs              map[string]bool
}

// GPUHours is the group's GPU time: held (with telemetry) plus billed without telemetry.
func (f Figures) GPUHours() float64 { return unitHours(f.held + f.noTel) }

// UsedGPUHours is Σ held time × utilisation.
func (f Figures) UsedGPUHours() float64 { return unitHours(f.used) }

// IdleGPUHours is held time − used time.
func (f Figures) IdleGPUHours() float64 { return unitHours(f.held - f.used) }

// NoTelemetryGPUHours is billed GPU time no telemetry covers.
func (f Figures) NoTelemetryGPUHours() float64 { return unitHours(f.noTel) }

// Utilisation is used GPU-hours ÷ the GPU-hours telemetry covers, in percent; 0 without any.
func (f Figures) Utilisation() float64 {
	if f.held == 0 {
		return 0
	}
	return 100 * float64(f.used) / float64(f.held)
}

// GPUCost is Σ GPU-hours × price: used cost + idle cost + no-telemetry cost.
func (f Figures) GPUCost() gpucost.Money {
	return gpucost.Money{Nanos: f.UsedCost.Nanos + f.IdleCost.Nanos + f.NoTelemetryCost.Nanos, Currency: f.Currency}
}

// TotalCost is GPU cost + other cost: all the group's spend.
func (f Figures) TotalCost() gpucost.Money {
	return gpucost.Money{Nanos: f.GPUCost().Nanos + f.OtherCost.Nanos, Currency: f.Currency}
}

// IdlePercent is idle cost ÷ GPU cost, in percent; 0 without GPU cost.
func (f Figures) IdlePercent() float64 { return IdleShare(f.IdleCost, f.GPUCost()) }

// IdleShare is the idle % of figures summed elsewhere (the overview's month): idle cost ÷ GPU
// cost, in percent; 0 without GPU cost.
func IdleShare(idle, gpuCost gpucost.Money) float64 {
	if gpuCost.Nanos == 0 {
		return 0
	}
	return 100 * float64(idle.Nanos) / float64(gpuCost.Nanos)
}

// PerGPUHour is GPU cost ÷ GPU-hours ($/GPU-h); zero without GPU-hours.
func (f Figures) PerGPUHour() gpucost.Money {
	if f.held+f.noTel == 0 {
		return gpucost.Money{Currency: f.Currency}
	}
	return scale(f.GPUCost(), unitsPerHour, f.held+f.noTel)
}

// PerUsedGPUHour is the group's GPU cost, idle included, ÷ its used GPU-hours ($/used GPU-h);
// zero without used time.
func (f Figures) PerUsedGPUHour() gpucost.Money {
	if f.used == 0 {
		return gpucost.Money{Currency: f.Currency}
	}
	return scale(f.GPUCost(), unitsPerHour, f.used)
}

// MarshalJSON writes the figures with every derived one, so each output shows the same numbers
// (docs/architecture.md "Figures"): billed_cost is the group's share of the bill's BilledCost, idle
// included, and cost_less_idle is total_cost − idle_cost, the API's and dashboard's figures too.
func (f Figures) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Group               string          `json:"group"`
		Currency            string          `json:"currency"`
		Source              Source          `json:"price_source"`
		GPUHours            float64         `json:"gpu_hours"`
		UsedGPUHours        float64         `json:"used_gpu_hours"`
		IdleGPUHours        float64         `json:"idle_gpu_hours"`
		NoTelemetryGPUHours float64         `json:"no_telemetry_gpu_hours"`
		Utilisation         float64         `json:"util_pct"`
		GPUCost             gpucost.Money   `json:"gpu_cost"`
		UsedCost            gpucost.Money   `json:"used_cost"`
		IdleCost            gpucost.Money   `json:"idle_cost"`
		NoTelemetryCost     gpucost.Money   `json:"no_telemetry_cost"`
		OtherCost           gpucost.Money   `json:"other_cost"`
		TotalCost           gpucost.Money   `json:"total_cost"`
		CostLessIdle        gpucost.Money   `json:"cost_less_idle"` // total less idle: report cost's Cost column
		BilledCost          gpucost.Money   `json:"billed_cost"`
		IdlePercent         float64         `json:"idle_pct"`
		PerGPUHour          gpucost.Money   `json:"cost_per_gpu_hour"`
		PerUsedGPUHour      gpucost.Money   `json:"cost_per_used_gpu_hour"`
		Jobs                int             `json:"jobs"`
		Daily               []gpucost.Money `json:"daily,omitempty"`
	}{f.Group, f.Currency, f.Source, f.GPUHours(), f.UsedGPUHours(), f.IdleGPUHours(), f.NoTelemetryGPUHours(),
		f.Utilisation(), f.GPUCost(), f.UsedCost, f.IdleCost, f.NoTelemetryCost, f.OtherCost, f.TotalCost(), f.TotalCost().Sub(f.IdleCost), f.BilledCost,
		f.IdlePercent(), f.PerGPUHour(), f.PerUsedGPUHour(), f.Jobs, f.Daily})
}

// add adds one charge.
func (f *Figures) add(c *Charge, day int) {
	f.Source = f.Source.with(c.Source)
	f.BilledCost.Nanos += c.Billed.Nanos
	f.IdleBilled.Nanos += c.IdleBilled.Nanos
	switch c.Kind {
	case GPUTime:
		f.held += c.held
		f.used += c.used
		f.UsedCost.Nanos += c.Cost.Nanos - c.IdleCost.Nanos
		f.IdleCost.Nanos += c.IdleCost.Nanos
		if c.used > 0 && c.Owner.Job != "" {
			if f.jobs == nil {
				f.jobs = map[string]bool{}
			}
			f.jobs[c.Owner.Job] = true
		}
	case NoTelemetry:
		f.noTel += c.held
		f.NoTelemetryCost.Nanos += c.Cost.Nanos
	case Other:
		f.OtherCost.Nanos += c.Cost.Nanos
	}
	if day >= 0 && day < len(f.Daily) {
		f.Daily[day].Nanos += c.Cost.Nanos
	}
}

// Group sums the charges keep accepts (all where keep is nil) by d, one Figures per group and
// currency, ordered by currency and then by total cost, largest first.
func (s *Snapshot) Group(d Dimension, keep func(*Charge) bool) []Figures {
	g := newGroups(s.Period)
	for i := range s.Charges {
		if c := &s.Charges[i]; keep == nil || keep(c) {
			g.add(d.Key(c), c)
		}
	}
	s.groupBare(g, d, keep)
	return g.sorted()
}

// groups sums charges into Figures by group and currency.
type groups struct {
	p     Period
	days  int
	first time.Time // the UTC midnight of the period's first day
	// first and the period's end in Unix nanoseconds, where the period lies well inside the
	// years they hold (nanoDays)
	firstNano, endNano int64
	nanoDays           bool
	idx                map[[2]string]int
	out                []Figures
	last               int             // the index in out of the group the last charge went to, -1 before the first
	zero               []gpucost.Money // zeroDays
}

func newGroups(p Period) *groups {
	g := &groups{p: p, days: len(p.Days()), first: p.Start.UTC().Truncate(24 * time.Hour), idx: map[[2]string]int{}, last: -1}
	if g.nanoDays = g.first.Year() >= 1700 && p.End.Year() <= 2200; g.nanoDays {
		g.firstNano, g.endNano = g.first.UnixNano(), p.End.UnixNano()
	}
	return g
}

// dayIndex is Period.dayIndex with the first day worked out once.
func (g *groups) dayIndex(t time.Time) int {
	if t.Before(g.first) || !t.Before(g.p.End) {
		return -1
	}
	return int(t.Sub(g.first) / (24 * time.Hour))
}

func (g *groups) add(key string, c *Charge) {
	cur := c.Cost.Currency
	if j := g.last; j >= 0 && g.out[j].Group == key && g.out[j].Currency == cur {
		// the group of the charge before: the fleet's every time, a resource's over its lines
		g.out[j].add(c, g.dayIndex(c.Start))
		return
	}
	j := g.at(key, c)
	g.last = j
	g.out[j].add(c, g.dayIndex(c.Start))
}

// at returns the index in out of the group of key and c's currency, made for c if new.
func (g *groups) at(key string, c *Charge) int {
	cur := c.Cost.Currency
	k := [2]string{key, cur}
	j, ok := g.idx[k]
	if !ok {
		j = len(g.out)
		g.idx[k] = j
		m := gpucost.Money{Currency: cur}
		f := Figures{Group: key, Currency: cur, UsedCost: m, IdleCost: m, NoTelemetryCost: m, OtherCost: m,
			BilledCost: gpucost.Money{Currency: c.Billed.Currency}, IdleBilled: gpucost.Money{Currency: c.Billed.Currency},
			Daily: make([]gpucost.Money, g.days)}
		copy(f.Daily, g.zeroDays(cur))
		g.out = append(g.out, f)
	}
	return j
}

// zeroDays is a day of zero in currency cur for each of the period's days, which a new
// group's Daily is copied from: 10,000 groups of a year's days were 3.65 M currencies set one
// by one.
func (g *groups) zeroDays(cur string) []gpucost.Money {
	if len(g.zero) == 0 || g.zero[0].Currency != cur {
		g.zero = make([]gpucost.Money, g.days)
		for n := range g.zero {
			g.zero[n].Currency = cur
		}
	}
	return g.zero
}

func (g *groups) sorted() []Figures {
	out := g.out
	for i := range out {
		out[i].Jobs = len(out[i].jobs)
	}
	slices.SortFunc(out, func(a, b Figures) int {
		return cmp.Or(cmp.Compare(a.Currency, b.Currency), cmp.Compare(b.TotalCost().Nanos, a.TotalCost().Nanos), cmp.Compare(a.Group, b.Group))
	})
	return out
}

// Fleet sums every charge keep accepts: one Figures per currency, named FleetGroup.
func (s *Snapshot) Fleet(keep func(*Charge) bool) []Figures {
	return s.Group(Dimension{name: "fleet"}, keep)
}

// GPUOnly keeps the charges of GPU time: it leaves out the lines that pay for no GPU.
func GPUOnly(c *Charge) bool { return c.Kind != Other }

// Dimension is what charges are grouped by: an owner (team, project, namespace, pod, job), a
// telemetry field (gpu, host, model, label:KEY) or a bill field (provider, region, pricing,
// service, resource, account, sku, charge, tag:KEY).
type Dimension struct {
	name, key string
}

// dimensions lists the names ParseDimension accepts besides label:KEY and tag:KEY.
var dimensions = []string{"team", "project", "namespace", "pod", "job", "gpu", "host", "model", "gpu-model",
	"provider", "region", "pricing", "service", "resource", "account", "sku", "charge"}

// ParseDimension parses a --by value. It returns an EInvalid error naming the values it takes.
func ParseDimension(by string) (Dimension, error) {
	by = strings.TrimSpace(by)
	for _, p := range []string{"label", "tag"} {
		if key, ok := strings.CutPrefix(by, p+":"); ok {
			if key == "" || strings.ContainsAny(key, ",= \t\r\n") {
				return Dimension{}, gpucost.Errorf(gpucost.EInvalid, "group by %q: the key must be non-empty without spaces, ',' or '='", by)
			}
			if p == "label" {
				key = strings.ToLower(key)
			}
			return Dimension{name: p, key: key}, nil
		}
	}
	low := strings.ToLower(by)
	if low == "gpu-model" {
		low = "model"
	}
	if slices.Contains(dimensions, low) {
		return Dimension{name: low}, nil
	}
	return Dimension{}, gpucost.Errorf(gpucost.EInvalid, "group by %q: use %s, label:KEY or tag:KEY", by, strings.Join(dimensions, ", "))
}

// String returns the form ParseDimension reads.
func (d Dimension) String() string {
	if d.key != "" {
		return d.name + ":" + d.key
	}
	return d.name
}

// Telemetry reports whether the dimension is read from telemetry labels and fields.
func (d Dimension) Telemetry() bool {
	switch d.name {
	case "namespace", "pod", "job", "gpu", "host", "label":
		return true
	}
	return false
}

// Key names the group of c: its value, or, where it has none, "(untagged)" for team, project
// and tag:KEY, "(no telemetry)" for a telemetry dimension of time no telemetry covers, "(no
// KEY label)" for telemetry without that label (namespace, pod, job, label:KEY), "(not
// billed)" for a bill field of GPU time no bill line covers, else "(none)".
func (d Dimension) Key(c *Charge) string {
	if d.name == "fleet" {
		return FleetGroup
	}
	v, ok := d.value(c)
	switch {
	case v != "":
		return v
	case d.name == "team" || d.name == "project" || d.name == "tag":
		return UntaggedName
	case d.Telemetry() && c.idleCapacity:
		return IdleCapacity
	case d.Telemetry() && c.Kind != GPUTime:
		return NoTelemetryName
	case d.name == "label":
		return "(no " + d.key + " label)"
	case d.name == "namespace" || d.name == "pod" || d.name == "job":
		return "(no " + d.name + " label)"
	case !ok:
		return NotBilled
	}
	return NoneName
}

// value returns c's raw value for d; ok is false for a bill field of a charge without a line.
func (d Dimension) value(c *Charge) (v string, ok bool) {
	switch d.name {
	case "team":
		return c.Owner.Team, true
	case "project":
		return c.Owner.Project, true
	case "namespace":
		return c.Owner.Namespace, true
	case "pod":
		return c.Owner.Pod, true
	case "job":
		return c.Owner.Job, true
	case "model":
		return c.Model, true
	case "gpu", "host", "label":
		if c.Series == nil {
			return "", true
		}
		switch d.name {
		case "gpu":
			return c.Series.GPU.UUID, true
		case "host":
			return c.Series.GPU.Host, true
		}
		return c.Series.Labels[d.key], true
	}
	if c.Line == nil {
		return "", false
	}
	l := c.Line
	switch d.name {
	case "tag":
		return l.Tags[d.key], true
	case "provider":
		return l.Provider, true
	case "region":
		return l.Region, true
	case "pricing":
		return l.Pricing, true
	case "service":
		return l.Service, true
	case "resource":
		return l.ResourceID, true
	case "account":
		return l.Account, true
	case "sku":
		return l.SKU, true
	case "charge":
		return l.Category, true
	}
	return "", true
}

// Match returns a keep function for Group that accepts the charges matching every filter: a
// dimension by its value (model by either name, host by telemetry host or the bill's resource
// name), any other key by the series' label or the line's tag of that name.
func Match(filter map[string]string) func(*Charge) bool {
	if len(filter) == 0 {
		return nil
	}
	return func(c *Charge) bool {
		for k, want := range filter {
			if !matches(c, k, want) {
				return false
			}
		}
		return true
	}
}

func matches(c *Charge, k, want string) bool {
	switch k {
	case "model", "gpu-model":
		return strings.EqualFold(c.Model, want) || strings.EqualFold(c.Model, canonical(want))
	case "host":
		if c.Series != nil {
			return strings.EqualFold(c.Series.GPU.Host, want)
		}
		return c.Line != nil && (strings.EqualFold(c.Line.ResourceID, want) || strings.EqualFold(c.Line.ResourceName, want))
	case "gpu":
		return c.Series != nil && (strings.EqualFold(c.Series.GPU.UUID, want) || strings.EqualFold(c.Series.GPU.Parent, want))
	}
	if d, err := ParseDimension(k); err == nil {
		v, _ := d.value(c)
		return v == want
	}
	key := strings.TrimPrefix(strings.TrimPrefix(k, "label:"), "tag:")
	if c.Series != nil && c.Series.Labels[key] == want {
		return true
	}
	return c.Line != nil && c.Line.Tags[key] == want
}

// GPUResources returns a keep function for Group that accepts GPU time and the other lines of
// the resources that have GPU lines (a GCP VM's cores and memory, billed apart from its GPUs).
func (s *Snapshot) GPUResources() func(*Charge) bool {
	res := map[string]bool{}
	for i := range s.Charges {
		if c := &s.Charges[i]; c.Kind != Other && c.Line != nil && c.Line.ResourceID != "" {
			res[c.Line.ResourceID] = true
		}
	}
	// The bare lines' NoTelemetry charges (All): their resource ids are their LineResources',
	// each asked once.
	seen := make([]bool, s.resources) // by LineResource.seq
	for cl := range s.cells.all() {
		if r := cl.line.LineResource; cl.line.bare() && !seen[r.seq] {
			seen[r.seq] = true
			if r.ResourceID != "" {
				res[r.ResourceID] = true
			}
		}
	}
	return func(c *Charge) bool { return c.Kind != Other || (c.Line.ResourceID != "" && res[c.Line.ResourceID]) }
}

// Reconcile returns, per currency in order, the effective cost the bill priced in the charges
// and the bill lines read, and whether the two agree to the nano-unit: the check that every
// report's money adds up to the stored bill.
func (s *Snapshot) Reconcile() (charged, bill []gpucost.Money, ok bool) {
	sums := map[string]int64{}
	for i := range s.Charges {
		if c := &s.Charges[i]; (c.Source == SourceBill || c.Kind == Other) && !c.outside {
			sums[c.Cost.Currency] += c.Cost.Nanos
		}
	}
	s.bareSums(sums)
	for _, t := range s.Stats.Totals.Sorted() {
		bill = append(bill, t.EffectiveCost)
		charged = append(charged, gpucost.Money{Nanos: sums[t.Currency], Currency: t.Currency})
		delete(sums, t.Currency)
	}
	return charged, bill, len(sums) == 0 && slices.Equal(charged, bill)
}

// CatalogCost returns, per currency, the cost of the GPU time no bill line covers, priced at
// catalog on-demand prices.
func (s *Snapshot) CatalogCost() []gpucost.Money {
	// Only Charges hold GPU time the catalog prices: All's other charges are bare lines'.
	g := newGroups(s.Period)
	for i := range s.Charges {
		if c := &s.Charges[i]; c.Source == SourceCatalog {
			g.add(FleetGroup, c)
		}
	}
	var out []gpucost.Money
	for _, f := range g.sorted() {
		out = append(out, f.GPUCost())
	}
	return out
}

// Resource names what a charge paid for: the bill's resource id, or the telemetry host of GPU
// time no bill line covers.
func (c *Charge) Resource() string {
	switch {
	case c.Line != nil:
		return c.Line.ResourceID
	case c.Series != nil:
		return c.Series.GPU.Host
	}
	return ""
}

// SKU is the bill line's SKU, "(catalog)" for GPU time no bill line covers.
func (c *Charge) SKU() string {
	if c.Line == nil {
		return "(catalog)"
	}
	return c.Line.SKU
}

// MatchSeries returns whether a series matches every filter: host, gpu (the UUID or a MIG
// instance's parent) and model (either name) by the GPU, any other key (or label:KEY) by the
// series' labels; nil without filters.
func MatchSeries(filter map[string]string) func(*gpucost.Series) bool {
	if len(filter) == 0 {
		return nil
	}
	return func(s *gpucost.Series) bool {
		for k, want := range filter {
			var ok bool
			switch k {
			case "host":
				ok = strings.EqualFold(s.GPU.Host, want)
			case "gpu":
				ok = strings.EqualFold(s.GPU.UUID, want) || strings.EqualFold(s.GPU.Parent, want)
			case "model":
				ok = strings.EqualFold(s.GPU.Model, want) || strings.EqualFold(canonical(s.GPU.Model), want)
			default:
				ok = s.Labels[strings.TrimPrefix(k, "label:")] == want
			}
			if !ok {
				return false
			}
		}
		return true
	}
}
