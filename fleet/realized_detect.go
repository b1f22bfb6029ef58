package fleet

import (
	"cmp"
	"fmt"
	"maps"
	"math"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/recommend"
)

// Kinds of change the bill shows (DetectedChange.Kind).
const (
	ChangeInstanceType = "instance-type"
	ChangeSpot         = "spot"
	ChangeFewerGPUs    = "fewer-gpus"
	ChangeCommitment   = "commitment"
)

// The rule of a fall in a workload's billed GPU-hours (docs/architecture.md "Realized savings").
const (
	// FallBeforeDays is the fewest days before a fall's first day: it and the day before it
	// are each compared with the same weekday a week earlier.
	FallBeforeDays = 8
	// FallAfterDays is the fewest days the GPU-hours must stay down, to the workload's last
	// billed day: one short day at the end of a bill, or a weekend, is not a fall.
	FallAfterDays = 3
	// FallShare is the share of the GPU-hours before that the days after reach at most: the
	// first day against its weekday a week before, all of them against their weekdays' means.
	FallShare = 0.8
)

// DetectedChange is a change of a workload that its bill lines show: from a day on, its GPU
// lines name none of the instance types it ran on at first, all of them are spot, a
// commitment covers them, or they bill fewer GPU-hours.
type DetectedChange struct {
	Namespace string    `json:"namespace"`
	Provider  string    `json:"provider"`
	Kind      string    `json:"kind"`
	From      string    `json:"from"` // instance types, pricing or GPUs before (billed GPU-hours ÷ 24 a day: see fall)
	To        string    `json:"to"`   // and after; for a commitment, its discount ids
	At        time.Time `json:"at"`   // the midnight starting the first day of the change
	How       string    `json:"how"`  // for AppliedStep.How: "detected: pricing became spot"
	// InstanceTypes are the types of the lines a commitment covers, or that were billed before
	// GPUs were released: the plan groups the change is about.
	InstanceTypes string `json:"instance_types,omitempty"`
}

// workloadKey is a workload the bill and telemetry show: a namespace on a provider.
type workloadKey struct{ namespace, provider string }

// dayLines is what a workload's GPU lines of one day name.
type dayLines struct {
	types          map[string]bool
	spot, paid     int
	gpuTime        int64           // billed GPU time, units
	commitments    map[string]bool // the commitment discount ids that cover a line
	committedTypes map[string]bool // the instance types of those lines
}

// DetectChanges finds the changes that the snapshot's bill shows for each namespace its
// telemetry names (docs/architecture.md "Realized savings"): changes of instance type, moves to
// spot, commitments that appear and falls in billed GPU-hours, in order of day and namespace.
// A workload without telemetry is not followed: nothing ties its new machines to its old ones.
// A line the telemetry of several namespaces shows is each one's.
func (s *Snapshot) DetectChanges() []DetectedChange {
	lines := map[workloadKey]map[*Line]bool{}
	billFrom := map[string]time.Time{} // each provider's first day of bill lines
	for c := range s.All() {
		if c.Line == nil || c.Line.Start().Before(s.Period.Start) {
			continue // a line that starts before the period bills a day only partly in it
		}
		provider := strings.ToLower(c.Line.Provider)
		if d, ok := billFrom[provider]; !ok || c.Line.Start().Before(d) {
			billFrom[provider] = c.Line.Start().Truncate(oneDay)
		}
		if c.Kind != GPUTime || c.Owner.Namespace == "" {
			continue
		}
		k := workloadKey{c.Owner.Namespace, provider}
		if lines[k] == nil {
			lines[k] = map[*Line]bool{}
		}
		lines[k][c.Line] = true
	}
	var out []DetectedChange
	for k, ls := range lines {
		days := byDay(ls)
		order := slices.SortedFunc(maps.Keys(days), func(a, b time.Time) int { return a.Compare(b) })
		out = append(out, detect(k, order, days, billFrom[k.provider])...)
	}
	slices.SortFunc(out, func(a, b DetectedChange) int {
		return cmp.Or(a.At.Compare(b.At), cmp.Compare(a.Namespace, b.Namespace), cmp.Compare(a.Kind, b.Kind))
	})
	return out
}

// byDay sums a workload's lines per day.
func byDay(ls map[*Line]bool) map[time.Time]*dayLines {
	days := map[time.Time]*dayLines{}
	for ln := range ls {
		d := ln.Start().Truncate(oneDay)
		dl := days[d]
		if dl == nil {
			dl = &dayLines{types: map[string]bool{}, commitments: map[string]bool{}, committedTypes: map[string]bool{}}
			days[d] = dl
		}
		dl.types[ln.InstanceType] = true
		dl.paid++
		if isSpot(ln.Pricing) {
			dl.spot++
		}
		dl.gpuTime += ln.units()
		if id := ln.commitmentID(); id != "" {
			dl.commitments[id] = true
			dl.committedTypes[ln.InstanceType] = true
		}
	}
	return days
}

func isSpot(pricing string) bool {
	return strings.EqualFold(pricing, "Dynamic") || strings.EqualFold(pricing, "spot")
}

// commitmentOf is the commitment that covers a bill line: its commitment discount id, or
// "Committed" where only its pricing category says one does.
func commitmentOf(l *gpucost.CostLine) string {
	if l.CommitmentDiscountID != "" {
		return l.CommitmentDiscountID
	}
	if strings.EqualFold(l.PricingCategory, "Committed") {
		return "Committed"
	}
	return ""
}

// detect finds a workload's changes over its days, oldest first; its provider's bill starts
// on billFrom.
func detect(k workloadKey, order []time.Time, days map[time.Time]*dayLines, billFrom time.Time) []DetectedChange {
	if len(order) < 2 {
		return nil
	}
	var out []DetectedChange
	change := func(kind, from, to string, at time.Time, how string) DetectedChange {
		return DetectedChange{Namespace: k.namespace, Provider: k.provider, Kind: kind, From: from, To: to, At: at, How: how}
	}
	first, last := days[order[0]], days[order[len(order)-1]]
	retyped := time.Time{}
	if !overlaps(first.types, last.types) {
		// The change is the first day from which no first-day type is billed again.
		at := len(order) - 1
		for at > 0 && !overlaps(days[order[at-1]].types, first.types) {
			at--
		}
		from, to := sortedKeys(first.types), sortedKeys(last.types)
		retyped = order[at]
		out = append(out, change(ChangeInstanceType, from, to, order[at], fmt.Sprintf("%s instance type changed %s→%s", gpucost.AppliedDetected, from, to)))
	}
	allSpot := func(d *dayLines) bool { return d.paid > 0 && d.spot == d.paid }
	if !allSpot(first) && allSpot(last) {
		at := len(order) - 1
		for at > 0 && allSpot(days[order[at-1]]) {
			at--
		}
		out = append(out, change(ChangeSpot, "on-demand", "spot", order[at], gpucost.AppliedDetected+" pricing became spot"))
	}
	if c, ok := commitment(order, days); ok {
		c.Namespace, c.Provider = k.namespace, k.provider
		out = append(out, c)
	}
	if c, ok := fall(earliest(billFrom, order[0]), order[len(order)-1], days); ok {
		// A move to a type with fewer GPUs bills fewer GPU-hours too: the change of instance
		// type names its step.
		if retyped.IsZero() || c.At.Sub(retyped).Abs() > FallAfterDays*oneDay {
			c.Namespace, c.Provider = k.namespace, k.provider
			out = append(out, c)
		}
	}
	return out
}

// commitment finds the first day a commitment covers a workload's lines, where the first day
// had none and the last day has one.
func commitment(order []time.Time, days map[time.Time]*dayLines) (DetectedChange, bool) {
	covered := func(i int) bool { return len(days[order[i]].commitments) > 0 }
	if covered(0) || !covered(len(order)-1) {
		return DetectedChange{}, false
	}
	at := slices.IndexFunc(order, func(d time.Time) bool { return len(days[d].commitments) > 0 })
	ids, types := map[string]bool{}, map[string]bool{}
	for _, d := range order[at:] {
		maps.Copy(ids, days[d].commitments)
		maps.Copy(types, days[d].committedTypes)
	}
	var short []string
	for _, id := range slices.Sorted(maps.Keys(ids)) {
		short = append(short, path.Base(id)) // the last segment names an ARN's or a resource path's commitment
	}
	return DetectedChange{Kind: ChangeCommitment, From: "none", To: sortedKeys(ids), At: order[at], InstanceTypes: sortedKeys(types),
		How: fmt.Sprintf("%s a commitment appeared on %s (%s)", gpucost.AppliedDetected, sortedKeys(types), strings.Join(short, ", "))}, true
}

// fall finds the first day t from which a workload's billed GPU-hours fell and stayed down
// (docs/architecture.md "Realized savings"). Each day is compared with the same weekday, so a
// workload quiet at weekends does not fall every Saturday:
//   - t has FallBeforeDays days before it and FallAfterDays from it to the workload's last
//     billed day, so a short last day of the bill is no fall;
//   - day t bills at most FallShare of the GPU-hours of 7 days before, and day t−1 more than
//     FallShare of its own (a day whose weekday billed none a week before is never down);
//   - the days from t on together, and the last FallAfterDays of them, bill at most FallShare
//     of their weekdays' means over the RealizedBeforeDays days (at most) before t, so a dip
//     that recovers is no fall.
//
// Its From and To are the GPUs the days from t on held on average (billed GPU-hours ÷ 24 a
// day) at their weekdays' levels before t, and as billed. The days run from first, the first day of the provider's bill, to last, the workload's last
// billed day; a day without lines of the workload bills no GPU-hours.
func fall(first, last time.Time, days map[time.Time]*dayLines) (DetectedChange, bool) {
	n := int(last.Sub(first)/oneDay) + 1
	g := make([]int64, n)
	for d, dl := range days {
		g[int(d.Sub(first)/oneDay)] = dl.gpuTime
	}
	down := func(i int) bool { return g[i-7] > 0 && float64(g[i]) <= FallShare*float64(g[i-7]) }
	for t := FallBeforeDays; t+FallAfterDays <= n; t++ {
		if !down(t) || down(t-1) {
			continue
		}
		from := max(0, t-RealizedBeforeDays)
		var sum, count [7]int64
		for i := from; i < t; i++ {
			w := first.AddDate(0, 0, i).Weekday()
			sum[w], count[w] = sum[w]+g[i], count[w]+1
		}
		level := func(i int) float64 {
			w := first.AddDate(0, 0, i).Weekday()
			return float64(sum[w]) / float64(count[w])
		}
		var got, want, gotEnd, wantEnd float64
		for i := t; i < n; i++ {
			got, want = got+float64(g[i]), want+level(i)
			if i >= n-FallAfterDays {
				gotEnd, wantEnd = gotEnd+float64(g[i]), wantEnd+level(i)
			}
		}
		if got > FallShare*want || gotEnd > FallShare*wantEnd {
			continue
		}
		types := map[string]bool{}
		for i := from; i < t; i++ {
			if dl := days[first.AddDate(0, 0, i)]; dl != nil {
				maps.Copy(types, dl.types)
			}
		}
		// From and To compare like with like: the days after at their weekdays' levels before,
		// and as billed.
		was, is := meanGPUs(want, n-t), meanGPUs(got, n-t)
		return DetectedChange{Kind: ChangeFewerGPUs, From: was, To: is, At: first.AddDate(0, 0, t), InstanceTypes: sortedKeys(types),
			How: fmt.Sprintf("%s fewer GPUs billed, %s→%s a day on average", gpucost.AppliedDetected, was, is)}, true
	}
	return DetectedChange{}, false
}

// meanGPUs is the GPUs that units of GPU time over days hold on average: to a tenth, or
// under one GPU (a weekly job) to a thousandth.
func meanGPUs(units float64, days int) string {
	gpus, scale := units/unitsPerHour/24/float64(days), 10.0
	if gpus < 1 {
		scale = 1000
	}
	return strconv.FormatFloat(math.Round(gpus*scale)/scale, 'f', -1, 64)
}

func overlaps(a, b map[string]bool) bool {
	for k := range a {
		if b[k] {
			return true
		}
	}
	return false
}

func sortedKeys(m map[string]bool) string {
	return strings.Join(slices.Sorted(maps.Keys(m)), "+")
}

// Step finds the step of p, a plan of the fleet v before the change, that the change made, on
// the groups of the workload's namespace and provider: for a move to spot, the spot step; for a
// change of instance type, on the group of the old type, the step whose target is the new type;
// for a commitment, on the group of a type it covers, the commitment step; for fewer GPUs, on
// the group of a type billed before, the step that releases machines (releases).
func (c DetectedChange) Step(p recommend.Plan, v recommend.FleetView) (recommend.PlanStep, bool) {
	ns := map[string]recommend.Resource{}
	for _, r := range v.Resources {
		ns[r.ID] = r
	}
	types := c.InstanceTypes
	if c.Kind == ChangeInstanceType {
		types = c.From
	}
	for _, g := range p.Groups {
		if len(g.Resources) == 0 {
			continue
		}
		r := ns[g.Resources[0]]
		if r.Namespace != c.Namespace || !strings.EqualFold(r.Provider, c.Provider) {
			continue
		}
		if types != "" && !slices.Contains(strings.Split(types, "+"), r.InstanceType) {
			continue
		}
		for _, s := range g.Steps {
			switch {
			case c.Kind == ChangeSpot && s.Lever == recommend.LeverSpot,
				c.Kind == ChangeInstanceType && s.Lever != recommend.LeverSpot && strings.EqualFold(stepTarget(s), c.To),
				c.Kind == ChangeCommitment && s.Lever == recommend.LeverCommitments,
				c.Kind == ChangeFewerGPUs && releases(s):
				return s, true
			}
		}
	}
	return recommend.PlanStep{}, false
}

// stepTarget is the last part of a step's id: what the step changes to.
func stepTarget(s recommend.PlanStep) string { return s.ID[strings.LastIndex(s.ID, "/")+1:] }

// releases reports whether a step holds fewer GPUs of the same type: machines released when
// their job ends, stopped on a schedule, or autoscaled (the targets recommend/levers.go and
// recommend/autoscale.go give these steps).
func releases(s recommend.PlanStep) bool {
	switch s.Lever {
	case recommend.LeverIdle, recommend.LeverAutoscaling:
		return true
	case recommend.LeverRightSizing:
		return strings.HasPrefix(stepTarget(s), "release-on-exit")
	}
	return false
}
