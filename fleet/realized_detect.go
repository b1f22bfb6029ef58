package fleet

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/recommend"
)

// Kinds of change the bill shows (DetectedChange.Kind).
const (
	ChangeInstanceType = "instance-type"
	ChangeSpot         = "spot"
)

// DetectedChange is a change of a workload that its bill lines show: from a day on, its GPU
// lines name none of the instance types it ran on at first, or all of them are spot.
type DetectedChange struct {
	Namespace string    `json:"namespace"`
	Provider  string    `json:"provider"`
	Kind      string    `json:"kind"`
	From      string    `json:"from"` // instance types, or pricing, before
	To        string    `json:"to"`
	At        time.Time `json:"at"`  // the midnight starting the first day of the change
	How       string    `json:"how"` // for AppliedStep.How: "detected: pricing became spot"
}

// workloadKey is a workload the bill and telemetry show: a namespace on a provider.
type workloadKey struct{ namespace, provider string }

// dayLines is what a workload's GPU lines of one day name.
type dayLines struct {
	types      map[string]bool
	spot, paid int
}

// DetectChanges finds the changes of instance type and moves to spot that the snapshot's bill
// shows for each namespace its telemetry names (docs/architecture.md "Realized savings"), in
// order of day and namespace. A workload without telemetry is not followed: nothing ties its
// new machines to its old ones.
func (s *Snapshot) DetectChanges() []DetectedChange {
	ofLine := map[*Line]workloadKey{}
	for i := range s.Charges {
		if c := &s.Charges[i]; c.Kind == GPUTime && c.Line != nil && c.Owner.Namespace != "" {
			ofLine[c.Line] = workloadKey{c.Owner.Namespace, strings.ToLower(c.Line.Provider)}
		}
	}
	byDay := map[workloadKey]map[time.Time]*dayLines{}
	for ln, k := range ofLine {
		if byDay[k] == nil {
			byDay[k] = map[time.Time]*dayLines{}
		}
		d := ln.Start.UTC().Truncate(oneDay)
		dl := byDay[k][d]
		if dl == nil {
			dl = &dayLines{types: map[string]bool{}}
			byDay[k][d] = dl
		}
		dl.types[ln.InstanceType] = true
		dl.paid++
		if isSpot(ln.Pricing) {
			dl.spot++
		}
	}
	var out []DetectedChange
	for k, days := range byDay {
		order := slices.SortedFunc(maps.Keys(days), func(a, b time.Time) int { return a.Compare(b) })
		out = append(out, detect(k, order, days)...)
	}
	slices.SortFunc(out, func(a, b DetectedChange) int {
		return cmp.Or(a.At.Compare(b.At), cmp.Compare(a.Namespace, b.Namespace), cmp.Compare(a.Kind, b.Kind))
	})
	return out
}

func isSpot(pricing string) bool {
	return strings.EqualFold(pricing, "Dynamic") || strings.EqualFold(pricing, "spot")
}

// detect finds a workload's changes over its days, oldest first.
func detect(k workloadKey, order []time.Time, days map[time.Time]*dayLines) []DetectedChange {
	if len(order) < 2 {
		return nil
	}
	var out []DetectedChange
	first, last := days[order[0]], days[order[len(order)-1]]
	if !overlaps(first.types, last.types) {
		// The change is the first day from which no first-day type is billed again.
		at := len(order) - 1
		for at > 0 && !overlaps(days[order[at-1]].types, first.types) {
			at--
		}
		from, to := sortedKeys(first.types), sortedKeys(last.types)
		out = append(out, DetectedChange{Namespace: k.namespace, Provider: k.provider, Kind: ChangeInstanceType,
			From: from, To: to, At: order[at], How: fmt.Sprintf("%s instance type changed %s→%s", gpucost.AppliedDetected, from, to)})
	}
	allSpot := func(d *dayLines) bool { return d.paid > 0 && d.spot == d.paid }
	if !allSpot(first) && allSpot(last) {
		at := len(order) - 1
		for at > 0 && allSpot(days[order[at-1]]) {
			at--
		}
		out = append(out, DetectedChange{Namespace: k.namespace, Provider: k.provider, Kind: ChangeSpot,
			From: "on-demand", To: "spot", At: order[at], How: gpucost.AppliedDetected + " pricing became spot"})
	}
	return out
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

// Step finds the step of p, a plan of the fleet v before the change, that the change made: on
// the group of the workload's machines of the old instance type, its spot step for a move to
// spot; for a change of instance type, the step whose target is the new type.
func (c DetectedChange) Step(p recommend.Plan, v recommend.FleetView) (recommend.PlanStep, bool) {
	ns := map[string]recommend.Resource{}
	for _, r := range v.Resources {
		ns[r.ID] = r
	}
	for _, g := range p.Groups {
		if len(g.Resources) == 0 {
			continue
		}
		r := ns[g.Resources[0]]
		if r.Namespace != c.Namespace || !strings.EqualFold(r.Provider, c.Provider) {
			continue
		}
		if c.Kind == ChangeInstanceType && !slices.Contains(strings.Split(c.From, "+"), r.InstanceType) {
			continue
		}
		for _, s := range g.Steps {
			target := s.ID[strings.LastIndex(s.ID, "/")+1:]
			switch {
			case c.Kind == ChangeSpot && s.Lever == recommend.LeverSpot:
				return s, true
			case c.Kind == ChangeInstanceType && s.Lever != recommend.LeverSpot && strings.EqualFold(target, c.To):
				return s, true
			}
		}
	}
	return recommend.PlanStep{}, false
}
