package spotrisk

import (
	"cmp"
	"maps"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/gpucost/gpucost"
)

// Sources of an exposure.
const (
	FromRuns = "runs" // gpucost run's events
	FromBill = "bill" // the stored bill's spot lines
)

// ReplaceWithin is how soon after a spot instance's end another instance of the same workload
// must start for the bill to count the end as an interruption.
const ReplaceWithin = time.Hour

// Bill gathers the spot instances a bill shows, line by line (Add), and turns them into
// exposures with the ends that look like interruptions (Exposures; docs/architecture.md "Spot
// risk"). A spot instance is a resource whose usage lines are priced Dynamic in hours; its run
// is its lines' charge periods, one run per stretch without a gap.
type Bill struct {
	res     map[string]*billResource
	end     map[string]time.Time // per provider and billing account: the latest charge period end of any line
	Lines   int                  // spot usage lines read
	Skipped int                  // spot usage lines without a resource ID, an instance type or hours
}

type billResource struct {
	id       string
	account  string // the provider and billing account whose bill shows it
	pool     Pool
	workload string
	periods  map[time.Time]billPeriod
}

type billPeriod struct {
	start, end time.Time
	hours      float64
}

// Add reads one stored bill line. Lines of every kind are read, since the latest charge period
// of a billing account's lines says when its bill stops, and an instance running then has not
// ended.
func (b *Bill) Add(c *gpucost.CostLine) {
	prov := NormalizeProvider(c.Provider)
	account := prov + "\x00" + c.BillingAccountID
	if b.end == nil {
		b.end, b.res = map[string]time.Time{}, map[string]*billResource{}
	}
	if c.ChargePeriodEnd.After(b.end[account]) {
		b.end[account] = c.ChargePeriodEnd
	}
	if c.PricingCategory != "Dynamic" || !strings.EqualFold(c.ChargeCategory, "Usage") {
		return
	}
	hours, ok := lineHours(c)
	if !ok {
		return // storage, transfer and other quantities of a spot instance
	}
	b.Lines++
	length := c.ChargePeriodEnd.Sub(c.ChargePeriodStart)
	if c.ResourceID == "" || c.InstanceType == "" || hours <= 0 || length <= 0 {
		b.Skipped++
		return
	}
	key := InstanceKey(c.ResourceID)
	r := b.res[key]
	if r == nil {
		r = &billResource{id: c.ResourceID, account: account, periods: map[time.Time]billPeriod{},
			pool:     Pool{Provider: prov, InstanceType: c.InstanceType, Region: c.RegionID, Zone: c.AvailabilityZone},
			workload: workloadKey(prov, c.RegionID, c.InstanceType, c.Tags)}
		b.res[key] = r
	}
	// One instance-hour line per period: a second line of the same period (another SKU of the
	// instance's hours) would count its time twice, so the larger is kept.
	p := r.periods[c.ChargePeriodStart]
	p.start, p.end = c.ChargePeriodStart, c.ChargePeriodEnd
	p.hours = min(max(p.hours, hours), length.Hours())
	r.periods[c.ChargePeriodStart] = p
}

// lineHours returns the line's usage in hours, when its consumed or pricing unit is hours.
func lineHours(c *gpucost.CostLine) (float64, bool) {
	for _, q := range []struct {
		n    float64
		unit string
	}{{c.ConsumedQuantity, c.ConsumedUnit}, {c.PricingQuantity, c.PricingUnit}} {
		switch strings.ToLower(strings.TrimSpace(q.unit)) {
		case "h", "hr", "hrs", "hour", "hours", "1 hour":
			return q.n, true
		}
	}
	return 0, false
}

// NormalizeProvider names a bill's ProviderName as the runner's events name the cloud.
func NormalizeProvider(p string) string {
	switch s := strings.ToLower(strings.TrimSpace(p)); {
	case s == "aws" || strings.HasPrefix(s, "amazon"):
		return "aws"
	case s == "gcp" || strings.HasPrefix(s, "google"):
		return "gcp"
	case s == "azure" || strings.HasPrefix(s, "microsoft"):
		return "azure"
	default:
		return s
	}
}

// workloadKey is what two instances share when one may replace the other: provider, region,
// instance type and the resource tags (but Name, which fleets often set per instance).
func workloadKey(prov, region, typ string, tags gpucost.Labels) string {
	var b strings.Builder
	b.WriteString(prov + "\x00" + region + "\x00" + typ)
	for _, k := range slices.Sorted(maps.Keys(tags)) {
		if k != "Name" {
			b.WriteString("\x00" + k + "=" + tags[k])
		}
	}
	return b.String()
}

// billRun is one stretch of a resource's lines without a gap, with when it started and ended
// as far as the lines tell: each an interval [from, to], a point where the lines pin it down.
type billRun struct {
	res                *billResource
	hours              float64
	startFrom, startTo time.Time
	endFrom, endTo     time.Time
	ended              bool // the bill goes on past the run's last period
	replaced           bool // another run of the workload started within ReplaceWithin of its end
}

// runs splits r's periods into runs at gaps and bounds each run's start and end. A run is taken
// to be continuous, so one over several periods ran across each boundary: it started h₁ hours
// before its first period's end and ended hₙ hours into its last (h its hours there). A run
// within one period of length L started in [start, end − h] and ended h later, in
// [start + h, end]; a whole period pins both. A run whose last period reaches its billing
// account's last charge period has not ended.
func (r *billResource) runs(billEnd time.Time) []*billRun {
	ps := slices.SortedFunc(maps.Values(r.periods), func(a, b billPeriod) int { return a.start.Compare(b.start) })
	var out []*billRun
	for i := 0; i < len(ps); {
		j := i + 1
		for j < len(ps) && ps[j].start.Equal(ps[j-1].end) {
			j++
		}
		out = append(out, boundRun(r, ps[i:j], billEnd))
		i = j
	}
	return out
}

func boundRun(r *billResource, ps []billPeriod, billEnd time.Time) *billRun {
	run := &billRun{res: r}
	for _, p := range ps {
		run.hours += p.hours
	}
	first, last := ps[0], ps[len(ps)-1]
	dur := func(h float64) time.Duration { return time.Duration(h * float64(time.Hour)).Round(time.Second) }
	run.startFrom, run.startTo = first.start, first.end.Add(-dur(first.hours))
	run.endFrom, run.endTo = last.start.Add(dur(last.hours)), last.end
	if len(ps) > 1 { // it ran across the first period's end and into the last one
		run.startFrom = run.startTo
		run.endTo = run.endFrom
	}
	run.ended = last.end.Before(billEnd)
	return run
}

// Exposures returns the exposure of each spot instance the bill shows, but those in counted
// (the instance IDs gpucost run's events recorded, whose runs already count them; compared as
// InstanceKey), and the number left out for that. An instance's hours are its lines' hours; its interruptions are its ends before the
// bill's last period that another instance of the same workload (provider, region, instance
// type, tags) started within ReplaceWithin of, each start taken by one end at most, earliest
// end first; Ends counts every end before the bill's last period, which bounds the
// interruptions from above, since every interruption ends an instance.
func (b *Bill) Exposures(counted map[string]bool) ([]Exposure, int) {
	recorded := make(map[string]bool, len(counted))
	for id, ok := range counted {
		if ok {
			recorded[InstanceKey(id)] = true
		}
	}
	var runs []*billRun
	left := 0
	for _, key := range slices.Sorted(maps.Keys(b.res)) {
		r := b.res[key]
		if recorded[key] {
			left++
			continue
		}
		runs = append(runs, r.runs(b.end[r.account])...)
	}
	markReplaced(runs)
	var out []Exposure
	idx := map[*billResource]int{}
	for _, run := range runs {
		i, ok := idx[run.res]
		if !ok {
			i = len(out)
			idx[run.res] = i
			out = append(out, Exposure{Pool: run.res.pool, Source: FromBill, Resources: 1})
		}
		e := &out[i]
		e.Hours += run.hours
		if run.ended {
			e.Ends++
		}
		if run.replaced {
			e.Interruptions++
		}
	}
	return out, left
}

// markReplaced pairs ended runs with the starts of other runs of the same workload that may
// have begun within ReplaceWithin after the end: start interval [S1, S2] and end interval
// [E1, E2] allow it when S2 ≥ E1 and S1 ≤ E2 + ReplaceWithin. Ends are taken earliest first,
// each with the earliest start it can have that no earlier end took.
func markReplaced(runs []*billRun) {
	byWork := map[string][]*billRun{}
	for _, r := range runs {
		byWork[r.res.workload] = append(byWork[r.res.workload], r)
	}
	for _, rs := range byWork {
		ends := slices.DeleteFunc(slices.Clone(rs), func(r *billRun) bool { return !r.ended })
		slices.SortStableFunc(ends, func(a, b *billRun) int { return cmp.Or(a.endFrom.Compare(b.endFrom), a.endTo.Compare(b.endTo)) })
		starts := slices.Clone(rs)
		slices.SortStableFunc(starts, func(a, b *billRun) int { return cmp.Or(a.startFrom.Compare(b.startFrom), a.startTo.Compare(b.startTo)) })
		taken := map[*billRun]bool{}
		for _, e := range ends {
			for _, s := range starts {
				if s == e || taken[s] || s.startTo.Before(e.endFrom) || s.startFrom.After(e.endTo.Add(ReplaceWithin)) {
					continue
				}
				taken[s], e.replaced = true, true
				break
			}
		}
	}
}

// gcpInstance matches a Compute Engine VM's full resource name or its relative one:
// [//compute.googleapis.com/]projects/PROJECT/zones/ZONE/instances/INSTANCE.
var gcpInstance = regexp.MustCompile(`^(?://compute\.googleapis\.com/)?projects/([^/]+)/zones/([^/]+)/instances/([^/]+)$`)

// InstanceKey is what a runner's recorded instance ID and a bill line's resource ID are
// compared by, so the two name one instance alike (docs/architecture.md "Spot risk"):
//
//   - AWS: the instance ID (i-0abc…), also out of an ARN (arn:aws:ec2:…:instance/i-0abc…);
//   - GCP: a VM's full resource name (resource.global_name) as zone and number, since the
//     number names one VM in every project and exports may write the project by ID or by
//     number; a VM named by its name keeps its project;
//   - Azure: the ARM resource ID in lower case, as Azure's exports vary its case.
//
// Other IDs are kept as they are, trimmed.
func InstanceKey(id string) string {
	id = strings.TrimSpace(id)
	lower := strings.ToLower(id)
	switch {
	case strings.HasPrefix(lower, "/subscriptions/"):
		return strings.TrimRightFunc(lower, func(r rune) bool { return r == '/' || unicode.IsSpace(r) })
	case strings.HasPrefix(lower, "arn:aws:ec2:"):
		if i := strings.Index(lower, ":instance/"); i >= 0 {
			return InstanceKey(lower[i+len(":instance/"):])
		}
	case strings.HasPrefix(lower, "i-"):
		return lower
	}
	if g := gcpInstance.FindStringSubmatch(lower); g != nil {
		if isDigits(g[3]) {
			return "gce:" + g[2] + "/" + g[3]
		}
		return "gce:" + g[1] + "/" + g[2] + "/" + g[3]
	}
	return id
}

func isDigits(s string) bool {
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return s != ""
}
