package fleet

import (
	"cmp"
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/recommend"
)

// gpuAcc sums one GPU's hour rollups for the recommender.
type gpuAcc struct {
	utilSum        float64
	samples        int
	hist           [101]uint64
	vramMaxMiB     float64
	idle, covered  [7][24]float64 // minutes
	utilHour       [7][24]float64 // Σ utilisation of the samples in each hour of the week
	samplesHour    [7][24]int
	idleMin, cover int
}

// billLines are the stored lines of one resource and SKU.
type billLines struct {
	lines int // source rows
	sum   gpucost.Money
}

// hostAcc is one telemetry host: its GPUs and the labels its series carried.
type hostAcc struct {
	gpus      map[string]*gpuAcc
	namespace string
	hours     map[int64]bool // the hours (Unix hours) with samples
}

// FleetView builds what the recommender reads from the store: each billed GPU machine of the
// period with its cost (from the bill) and its GPUs' usage (from telemetry).
func (s *Split) FleetView(ctx context.Context) (recommend.FleetView, error) {
	hosts, err := s.hostUsage(ctx)
	if err != nil {
		return recommend.FleetView{}, err
	}
	weeks := s.Period.End.Sub(s.Period.Start).Hours() / (7 * 24)
	byID := map[string]*recommend.Resource{}
	var order []string
	bills := map[[2]string]*billLines{} // by resource and SKU
	var billOrder [][2]string
	err = s.store.ScanCosts(ctx, s.filter(), func(l *gpucost.CostLine) error {
		gpu, ok := s.lineGPU(l)
		if !ok || l.ChargeCategory != "Usage" || l.ResourceID == "" {
			return nil
		}
		r := byID[l.ResourceID]
		if r == nil {
			r = &recommend.Resource{ID: l.ResourceID, Provider: strings.ToLower(l.Provider), Region: l.RegionID,
				InstanceType: gpu.InstanceType, GPUModel: gpu.Model, GPUs: max(1, int(gpu.GPUs)),
				Monthly: gpucost.Money{Currency: l.BillingCurrency()}, Pricing: pricingModel(l.PricingCategory),
				Owner: s.owners.Of(l.Tags).Team}
			r.Hourly, _ = s.onDemand(r.Provider, r.Region, r.InstanceType)
			hs := s.resource(l, gpu).Hosts
			for _, h := range hs {
				addHost(r, hosts[h], weeks)
			}
			if len(hs) == 1 {
				r.ID = hs[0] // people know a machine by its host name; the bill's id is in the evidence
			}
			byID[l.ResourceID] = r
			order = append(order, l.ResourceID)
		}
		r.Monthly = r.Monthly.Add(l.EffectiveCost)
		k := [2]string{l.ResourceID, cmp.Or(l.SkuID, l.ChargeDescription)}
		b := bills[k]
		if b == nil {
			b = &billLines{sum: gpucost.Money{Currency: l.BillingCurrency()}}
			bills[k] = b
			billOrder = append(billOrder, k)
		}
		b.lines += max(1, l.Rows)
		b.sum = b.sum.Add(l.EffectiveCost)
		return nil
	})
	for _, k := range billOrder {
		if r := byID[k[0]]; r != nil {
			b := bills[k]
			r.CostLines = append(r.CostLines, fmt.Sprintf("%s SKU %s: %d bill rows, %s", k[0], k[1], b.lines, b.sum))
		}
	}
	if err != nil {
		return recommend.FleetView{}, err
	}
	v := recommend.FleetView{From: s.Period.Start, To: s.Period.End, Zone: "UTC"}
	perMonth := recommend.HoursPerMonth / s.Period.End.Sub(s.Period.Start).Hours()
	for _, id := range order {
		r := byID[id]
		r.Monthly = r.Monthly.MulFloat(perMonth)
		v.Resources = append(v.Resources, *r)
	}
	return v, nil
}

// hostUsage reads the period's hour rollups per host and GPU.
func (s *Split) hostUsage(ctx context.Context) (map[string]*hostAcc, error) {
	hosts := map[string]*hostAcc{}
	err := s.store.ScanRollups(ctx, time.Hour, gpucost.RollupFilter{From: s.Period.Start, To: s.Period.End}, func(r *gpucost.Rollup) error {
		h := hosts[r.Series.GPU.Host]
		if h == nil {
			h = &hostAcc{gpus: map[string]*gpuAcc{}, hours: map[int64]bool{}, namespace: r.Series.Labels[gpucost.LabelNamespace]}
			hosts[r.Series.GPU.Host] = h
		}
		s.hosts[r.Series.GPU.Host] = true
		g := h.gpus[r.Series.GPU.UUID]
		if g == nil {
			g = &gpuAcc{}
			h.gpus[r.Series.GPU.UUID] = g
		}
		t := r.Start.UTC()
		wd, hr := t.Weekday(), t.Hour()
		covered := float64(r.GPUHours() * 60)
		g.utilSum += r.UtilSum
		g.samples += r.Samples
		for i, n := range r.UtilHist {
			g.hist[i] += uint64(n)
		}
		g.vramMaxMiB = max(g.vramMaxMiB, r.MemMaxMiB)
		g.idle[wd][hr] += float64(r.IdleMinutes)
		g.utilHour[wd][hr] += r.UtilSum
		g.samplesHour[wd][hr] += r.Samples
		g.covered[wd][hr] += covered
		g.idleMin += r.IdleMinutes
		g.cover += int(covered)
		h.hours[t.Unix()/3600] = true
		return nil
	})
	return hosts, err
}

// addHost adds a telemetry host's GPUs and hours to a billed machine.
func addHost(r *recommend.Resource, h *hostAcc, weeks float64) {
	if h == nil {
		return
	}
	r.Namespace = h.namespace
	r.Kind = workloadKind(h.namespace)
	r.Interruptible = r.Kind == recommend.KindExperiment || r.Kind == recommend.KindBatch
	// Experiments, batch and training may run in another region; serving stays by its users.
	r.Movable = r.Interruptible || r.Kind == recommend.KindTraining
	var held [7][24]float64
	for u := range h.hours {
		t := time.Unix(u*3600, 0).UTC()
		held[t.Weekday()][t.Hour()]++
	}
	for wd := range 7 {
		for hr := range 24 {
			r.Running[wd][hr] = min(1, held[wd][hr]/max(weeks, 1))
		}
	}
	for _, g := range h.gpus {
		u := recommend.GPUUsage{VRAMPeakGB: g.vramMaxMiB * (1 << 20) / 1e9, P95Util: histQuantile(g.hist[:], 0.95)}
		if g.samples > 0 {
			u.MeanUtil = g.utilSum / float64(g.samples)
		}
		if g.cover > 0 {
			u.IdleShare = float64(g.idleMin) / float64(g.cover)
		}
		for wd := range 7 {
			for hr := range 24 {
				if c := g.covered[wd][hr]; c > 0 {
					u.Idle[wd][hr] = g.idle[wd][hr] / c
				}
				if n := g.samplesHour[wd][hr]; n > 0 {
					u.Util[wd][hr] = g.utilHour[wd][hr] / float64(n)
				}
			}
		}
		r.Usage = append(r.Usage, u)
	}
}

// histQuantile returns the q-quantile of a 101-bin utilisation histogram.
func histQuantile(hist []uint64, q float64) float64 {
	var n uint64
	for _, c := range hist {
		n += c
	}
	if n == 0 {
		return 0
	}
	rank := uint64(q*float64(n-1)) + 1
	var seen uint64
	for i, c := range hist {
		if seen += c; seen >= rank {
			return float64(i)
		}
	}
	return 100
}

// workloadKind reads the kind of work from a namespace's usual names.
func workloadKind(ns string) string {
	ns = strings.ToLower(ns)
	for _, k := range []struct{ word, kind string }{
		{"serv", recommend.KindServing}, {"infer", recommend.KindServing}, {"train", recommend.KindTraining},
		{"research", recommend.KindExperiment}, {"experiment", recommend.KindExperiment}, {"batch", recommend.KindBatch},
		{"eval", recommend.KindEval}, {"notebook", recommend.KindNotebook}, {"jupyter", recommend.KindNotebook}, {"dev", recommend.KindDev},
	} {
		if strings.Contains(ns, k.word) {
			return k.kind
		}
	}
	return ""
}

func pricingModel(category string) gpucost.PricingModel {
	switch category {
	case "Dynamic":
		return gpucost.Spot
	case "Committed":
		return recommend.Committed
	}
	return gpucost.OnDemand
}

// onDemand returns the catalog's on-demand price of an instance type in a region.
func (s *Split) onDemand(provider, region, instanceType string) (gpucost.Money, bool) {
	for _, o := range s.cat.Offers() {
		if o.Provider == provider && o.Region == region && o.InstanceType == instanceType && o.HasOnDemand {
			return o.OnDemand, true
		}
	}
	return gpucost.Money{}, false
}

// FilterResources keeps the billed machines that match every filter: team (the owner its tags
// name), namespace, provider, region, model and host.
func FilterResources(f map[string]string, rs []recommend.Resource) ([]recommend.Resource, error) {
	if len(f) == 0 {
		return rs, nil
	}
	var out []recommend.Resource
	for _, r := range rs {
		ok := true
		for k, want := range f {
			switch k {
			case "team":
				ok = ok && r.Owner == want
			case "namespace":
				ok = ok && r.Namespace == want
			case "provider":
				ok = ok && strings.EqualFold(r.Provider, want)
			case "region":
				ok = ok && r.Region == want
			case "model":
				ok = ok && (strings.EqualFold(r.GPUModel, want) || strings.EqualFold(r.GPUModel, canonical(want)))
			case "host":
				ok = ok && r.ID == want
			default:
				return nil, gpucost.Errorf(gpucost.EInvalid, "filter %s: recommendations are filtered by team, namespace, provider, region, model or host", k)
			}
		}
		if ok {
			out = append(out, r)
		}
	}
	return out, nil
}
