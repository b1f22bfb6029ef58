package analyze

import (
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
)

// allocCase is one cost line allocated over some telemetry.
type allocCase struct {
	name    string
	policy  string
	weight  float64
	rollups []*gpucost.Rollup
	line    gpucost.CostLine
	res     Resource
	want    []string // "owner billed GPU-hours", in emit order; see allocString
	stats   AllocStats
}

// allocString is an allocation as tests compare it: owner, billed cost and GPU-hours to 4 places.
func allocString(al *gpucost.Allocation) string {
	o := al.Owner
	var parts []string
	for _, f := range [][2]string{{"team", o.Team}, {"project", o.Project}, {"ns", o.Namespace}, {"pod", o.Pod}, {"job", o.Job}} {
		if f[1] != "" {
			parts = append(parts, f[0]+"="+f[1])
		}
	}
	who := strings.Join(parts, ",")
	if al.Idle {
		who = "idle(" + who + ")"
	} else if who == "" {
		who = "-"
	}
	return fmt.Sprintf("%s %s %.4f", who, al.BilledCost.Decimal(), al.GPUHours)
}

// allocate runs one case and checks the invariants every allocation keeps.
func allocate(t *testing.T, tc allocCase) ([]string, AllocStats) {
	t.Helper()
	a, err := NewAllocator(AllocOptions{Policy: tc.policy, Weight: tc.weight})
	if err != nil {
		t.Fatalf("NewAllocator: %v", err)
	}
	for _, r := range tc.rollups {
		a.AddRollup(r)
	}
	var got []string
	var billed, effective int64
	st := a.Allocate(&tc.line, tc.res, func(al *gpucost.Allocation) {
		got = append(got, allocString(al))
		billed += al.BilledCost.Nanos
		effective += al.EffectiveCost.Nanos
		if al.Line != &tc.line || al.ResourceID != tc.line.ResourceID || !al.Start.Equal(tc.line.ChargePeriodStart) {
			t.Errorf("allocation %s does not name its line, resource and period", allocString(al))
		}
		if al.GPUHours < 0 || al.UsedGPUHours < 0 || al.UsedGPUHours > al.GPUHours+1e-9 && al.Policy == gpucost.PolicyUsed {
			t.Errorf("allocation %s: GPU-hours %v, used %v", allocString(al), al.GPUHours, al.UsedGPUHours)
		}
		if al.BilledCost.Currency != tc.line.BilledCost.Currency || al.EffectiveCost.Currency != tc.line.EffectiveCost.Currency {
			t.Errorf("allocation %s: currencies %q, %q; want the line's", allocString(al), al.BilledCost.Currency, al.EffectiveCost.Currency)
		}
	})
	if billed != tc.line.BilledCost.Nanos || effective != tc.line.EffectiveCost.Nanos {
		t.Errorf("allocations add up to billed %d, effective %d nanos; want the line's %d, %d",
			billed, effective, tc.line.BilledCost.Nanos, tc.line.EffectiveCost.Nanos)
	}
	return got, st
}

func checkAllocCases(t *testing.T, cases []allocCase) {
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, st := allocate(t, tc)
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("Allocate(%s) =\n  %s\nwant\n  %s", tc.policy, strings.Join(got, "\n  "), strings.Join(tc.want, "\n  "))
			}
			if !closeStats(st, tc.stats) {
				t.Errorf("Allocate(%s) stats = %+v, want %+v", tc.policy, st, tc.stats)
			}
		})
	}
}

func closeStats(a, b AllocStats) bool {
	near := func(x, y float64) bool { return math.Abs(x-y) < 1e-6 }
	return a.Matched == b.Matched && near(a.HeldGPUHours, b.HeldGPUHours) && near(a.UsedGPUHours, b.UsedGPUHours) &&
		near(a.CapacityGPUHours, b.CapacityGPUHours)
}

// hourLine is a line billing cost for the hour at start, both billed and effective.
func hourLine(cost string, start time.Time) gpucost.CostLine {
	return gpucost.CostLine{ResourceID: "i-0abc", BilledCost: usd(cost), EffectiveCost: usd(cost),
		ChargePeriodStart: start, ChargePeriodEnd: start.Add(time.Hour), ConsumedQuantity: 1, ConsumedUnit: "Hrs"}
}

func pod(ns, name string) gpucost.Labels {
	return gpucost.Labels{gpucost.LabelNamespace: ns, gpucost.LabelPod: name}
}

// migA100 is an A100 split 3g+2g+1g+1g, each instance busy for the hour at the given utilisation.
func migA100(utils [4]float64) []*gpucost.Rollup {
	profiles := []string{"3g.40gb", "2g.20gb", "1g.10gb", "1g.10gb"}
	var rs []*gpucost.Rollup
	for i, p := range profiles {
		s := migSeries(fmt.Sprintf("GPU-a/%d", i+1), "GPU-a", p, pod("infer", fmt.Sprintf("m%d", i)))
		rs = append(rs, hour(s, t0, repeat(utils[i], 60)...))
	}
	return rs
}

func TestAllocateMIG(t *testing.T) {
	rs := migA100([4]float64{50, 100, 0, 20})
	line := hourLine("7", t0)
	line.Tags = gpucost.Labels{"team": "platform"}
	res := Resource{Hosts: []string{"host-m"}, GPUs: 1}
	checkAllocCases(t, []allocCase{
		{name: "requested: by slices", policy: gpucost.PolicyRequested, rollups: rs, line: line, res: res,
			want: []string{"team=platform,ns=infer,pod=m0 3 0.4286", "team=platform,ns=infer,pod=m1 2 0.2857",
				"team=platform,ns=infer,pod=m2 1 0.1429", "team=platform,ns=infer,pod=m3 1 0.1429", "idle(team=platform) 0 0.0000"},
			stats: AllocStats{Matched: true, HeldGPUHours: 1, UsedGPUHours: 3.7 / 7, CapacityGPUHours: 1}},
		{name: "used: slices × utilisation", policy: gpucost.PolicyUsed, rollups: rs, line: line, res: res,
			want: []string{"team=platform,ns=infer,pod=m0 1.5 0.2143", "team=platform,ns=infer,pod=m1 2 0.2857",
				"team=platform,ns=infer,pod=m3 0.2 0.0286", "idle(team=platform) 3.3 0.4714"},
			stats: AllocStats{Matched: true, HeldGPUHours: 1, UsedGPUHours: 3.7 / 7, CapacityGPUHours: 1}},
		{name: "weighted: half and half", policy: gpucost.PolicyWeighted, rollups: rs, line: line, res: res,
			want: []string{"team=platform,ns=infer,pod=m0 2.25 0.3214", "team=platform,ns=infer,pod=m1 2 0.2857",
				"team=platform,ns=infer,pod=m2 0.5 0.0714", "team=platform,ns=infer,pod=m3 0.6 0.0857", "idle(team=platform) 1.65 0.2357"},
			stats: AllocStats{Matched: true, HeldGPUHours: 1, UsedGPUHours: 3.7 / 7, CapacityGPUHours: 1}},
		{name: "weighted 0.8 by held time", policy: gpucost.PolicyWeighted, weight: 0.8, rollups: rs, line: line, res: res,
			want: []string{"team=platform,ns=infer,pod=m0 2.7 0.3857", "team=platform,ns=infer,pod=m1 2 0.2857",
				"team=platform,ns=infer,pod=m2 0.8 0.1143", "team=platform,ns=infer,pod=m3 0.84 0.1200", "idle(team=platform) 0.66 0.0943"},
			stats: AllocStats{Matched: true, HeldGPUHours: 1, UsedGPUHours: 3.7 / 7, CapacityGPUHours: 1}},
		{name: "requested: a credit splits like a charge", policy: gpucost.PolicyRequested, rollups: rs,
			line: hourLine("-7", t0), res: res,
			want: []string{"ns=infer,pod=m0 -3 0.4286", "ns=infer,pod=m1 -2 0.2857", "ns=infer,pod=m2 -1 0.1429",
				"ns=infer,pod=m3 -1 0.1429", "idle() 0 0.0000"},
			stats: AllocStats{Matched: true, HeldGPUHours: 1, UsedGPUHours: 3.7 / 7, CapacityGPUHours: 1}},
		{name: "requested: one instance unused is idle", policy: gpucost.PolicyRequested, rollups: rs[:3], line: line, res: res,
			want: []string{"team=platform,ns=infer,pod=m0 3 0.4286", "team=platform,ns=infer,pod=m1 2 0.2857",
				"team=platform,ns=infer,pod=m2 1 0.1429", "idle(team=platform) 1 0.1429"},
			stats: AllocStats{Matched: true, HeldGPUHours: 6.0 / 7, UsedGPUHours: 3.5 / 7, CapacityGPUHours: 1}},
	})
}

func TestAllocateTimeSliced(t *testing.T) {
	a := series("GPU-t", "node-t", "NVIDIA L4", pod("web", "a"))
	b := series("GPU-t", "node-t", "NVIDIA L4", pod("web", "b"))
	// a runs the whole hour at 60%; b joins for the first half hour at 60%.
	partly := []*gpucost.Rollup{hour(a, t0, repeat(60, 60)...), hour(b, t0, repeat(60, 30)...)}
	// Both for the whole hour, each reporting the device's 60%: the GPU was busy 36 minutes.
	both := []*gpucost.Rollup{hour(a, t0, repeat(60, 60)...), hour(b, t0, repeat(60, 60)...)}
	line := hourLine("6", t0)
	res := Resource{Hosts: []string{"node-t"}, GPUs: 1}
	checkAllocCases(t, []allocCase{
		{name: "requested: shared minutes split", policy: gpucost.PolicyRequested, rollups: partly, line: line, res: res,
			want:  []string{"ns=web,pod=a 4.5 0.7500", "ns=web,pod=b 1.5 0.2500", "idle() 0 0.0000"},
			stats: AllocStats{Matched: true, HeldGPUHours: 1, UsedGPUHours: 0.6, CapacityGPUHours: 1}},
		{name: "used: held × utilisation", policy: gpucost.PolicyUsed, rollups: partly, line: line, res: res,
			want:  []string{"ns=web,pod=a 2.7 0.4500", "ns=web,pod=b 0.9 0.1500", "idle() 2.4 0.4000"},
			stats: AllocStats{Matched: true, HeldGPUHours: 1, UsedGPUHours: 0.6, CapacityGPUHours: 1}},
		{name: "used: device utilisation reported twice is not counted twice", policy: gpucost.PolicyUsed, rollups: both,
			line: line, res: res,
			want:  []string{"ns=web,pod=a 1.8 0.3000", "ns=web,pod=b 1.8 0.3000", "idle() 2.4 0.4000"},
			stats: AllocStats{Matched: true, HeldGPUHours: 1, UsedGPUHours: 0.6, CapacityGPUHours: 1}},
		{name: "weighted", policy: gpucost.PolicyWeighted, rollups: partly, line: line, res: res,
			want:  []string{"ns=web,pod=a 3.6 0.6000", "ns=web,pod=b 1.2 0.2000", "idle() 1.2 0.2000"},
			stats: AllocStats{Matched: true, HeldGPUHours: 1, UsedGPUHours: 0.6, CapacityGPUHours: 1}},
	})
}

// node4 is a 4-GPU node: GPUs 0 and 1 run pod train-0 of namespace ml at 90%, GPU 2 pod nb of
// namespace lab at 10%, GPU 3 sends nothing.
func node4() []*gpucost.Rollup {
	var rs []*gpucost.Rollup
	for g, l := range []gpucost.Labels{pod("ml", "train-0"), pod("ml", "train-0"), pod("lab", "nb")} {
		util := 90.0
		if g == 2 {
			util = 10
		}
		s := series(fmt.Sprintf("GPU-n%d", g), "node-4", "NVIDIA A10G", l)
		s.GPU.Index = g
		rs = append(rs, hour(s, t0, repeat(util, 60)...))
	}
	return rs
}

func TestAllocateWholeGPUs(t *testing.T) {
	line := hourLine("12", t0)
	line.Tags = gpucost.Labels{"user:team": "ops", "Project": "cluster"}
	checkAllocCases(t, []allocCase{
		{name: "requested: one allocation per pod, the silent GPU idle", policy: gpucost.PolicyRequested, rollups: node4(),
			line: line, res: Resource{Hosts: []string{"node-4"}, GPUs: 4},
			want: []string{"team=ops,project=cluster,ns=lab,pod=nb 3 1.0000", "team=ops,project=cluster,ns=ml,pod=train-0 6 2.0000",
				"idle(team=ops,project=cluster) 3 1.0000"},
			stats: AllocStats{Matched: true, HeldGPUHours: 3, UsedGPUHours: 1.9, CapacityGPUHours: 4}},
		{name: "used", policy: gpucost.PolicyUsed, rollups: node4(), line: line, res: Resource{Hosts: []string{"node-4"}, GPUs: 4},
			want: []string{"team=ops,project=cluster,ns=lab,pod=nb 0.3 0.1000", "team=ops,project=cluster,ns=ml,pod=train-0 5.4 1.8000",
				"idle(team=ops,project=cluster) 6.3 2.1000"},
			stats: AllocStats{Matched: true, HeldGPUHours: 3, UsedGPUHours: 1.9, CapacityGPUHours: 4}},
		{name: "GPUs unknown: the GPUs seen", policy: gpucost.PolicyRequested, rollups: node4(), line: line,
			res: Resource{Hosts: []string{"node-4"}},
			want: []string{"team=ops,project=cluster,ns=lab,pod=nb 4 1.0000", "team=ops,project=cluster,ns=ml,pod=train-0 8 2.0000",
				"idle(team=ops,project=cluster) 0 0.0000"},
			stats: AllocStats{Matched: true, HeldGPUHours: 3, UsedGPUHours: 1.9, CapacityGPUHours: 3}},
		{name: "more held than billed: capacity grows", policy: gpucost.PolicyRequested, rollups: node4(), line: line,
			res: Resource{Hosts: []string{"node-4", "node-4"}, GPUs: 2},
			want: []string{"team=ops,project=cluster,ns=lab,pod=nb 4 1.0000", "team=ops,project=cluster,ns=ml,pod=train-0 8 2.0000",
				"idle(team=ops,project=cluster) 0 0.0000"},
			stats: AllocStats{Matched: true, HeldGPUHours: 3, UsedGPUHours: 1.9, CapacityGPUHours: 3}},
	})
}

func TestAllocatePartialCoverage(t *testing.T) {
	s := series("GPU-p", "node-p", "NVIDIA H100 80GB HBM3", gpucost.Labels{"namespace": "etl", "job": "1234", "team": "data"})
	rs := []*gpucost.Rollup{
		hour(s, t0, join(repeat(80, 45), repeat(math.NaN(), 15))...), // 45 minutes of the first hour
		hour(s, t0.Add(time.Hour), repeat(40, 60)...),
	}
	half := hourLine("1", t0.Add(30*time.Minute)) // 00:30–01:30: 15 covered minutes, then 30
	half.ConsumedQuantity = 0
	day := gpucost.CostLine{ResourceID: "i-p", BilledCost: usd("24"), EffectiveCost: usd("20"),
		ChargePeriodStart: t0, ChargePeriodEnd: t0.Add(24 * time.Hour), ConsumedQuantity: 2, ConsumedUnit: "Hours"}
	res := Resource{Hosts: []string{"node-p"}, GPUs: 1}
	checkAllocCases(t, []allocCase{
		{name: "requested: covered minutes", policy: gpucost.PolicyRequested, rollups: rs, line: hourLine("1", t0), res: res,
			want:  []string{"team=data,ns=etl,job=1234 0.75 0.7500", "idle() 0.25 0.2500"},
			stats: AllocStats{Matched: true, HeldGPUHours: 0.75, UsedGPUHours: 0.6, CapacityGPUHours: 1}},
		{name: "a period across an hour boundary", policy: gpucost.PolicyRequested, rollups: rs, line: half, res: res,
			want:  []string{"team=data,ns=etl,job=1234 0.75 0.7500", "idle() 0.25 0.2500"},
			stats: AllocStats{Matched: true, HeldGPUHours: 0.75, UsedGPUHours: 15.0/60*0.8 + 0.5*0.4, CapacityGPUHours: 1}},
		{name: "a day billed for the 2 hours consumed", policy: gpucost.PolicyUsed, rollups: rs, line: day, res: res,
			want:  []string{"team=data,ns=etl,job=1234 12 1.0000", "idle() 12 1.0000"},
			stats: AllocStats{Matched: true, HeldGPUHours: 1.75, UsedGPUHours: 1, CapacityGPUHours: 2}},
	})
}

func TestAllocateWithoutTelemetry(t *testing.T) {
	s := series("GPU-x", "node-x", "NVIDIA L4", pod("a", "b"))
	rs := []*gpucost.Rollup{hour(s, t0, repeat(50, 60)...)}
	line := hourLine("3.06", t0.Add(2*time.Hour)) // telemetry has only the first hour
	line.Tags = gpucost.Labels{"user_team": "search", "Project": "ranker"}
	empty := hourLine("1", t0)
	empty.ChargePeriodEnd = t0
	checkAllocCases(t, []allocCase{
		{name: "another hour: the whole cost to the tags' owner", policy: gpucost.PolicyUsed, rollups: rs, line: line,
			res:   Resource{Hosts: []string{"node-x"}, GPUs: 1},
			want:  []string{"team=search,project=ranker 3.06 1.0000"},
			stats: AllocStats{CapacityGPUHours: 1}},
		{name: "another host", policy: gpucost.PolicyRequested, rollups: rs, line: hourLine("2", t0),
			res: Resource{Hosts: []string{"node-y"}, GPUs: 8}, want: []string{"- 2 8.0000"}, stats: AllocStats{CapacityGPUHours: 8}},
		{name: "no hosts, GPUs unknown", policy: gpucost.PolicyRequested, rollups: rs, line: hourLine("2", t0),
			want: []string{"- 2 0.0000"}},
		{name: "an empty period", policy: gpucost.PolicyRequested, rollups: rs, line: empty,
			res: Resource{Hosts: []string{"node-x"}, GPUs: 1}, want: []string{"- 1 0.0000"}},
	})
}

func TestAllocateRounding(t *testing.T) {
	var rs []*gpucost.Rollup
	for i := range 3 {
		s := series(fmt.Sprintf("GPU-r%d", i), "node-r", "NVIDIA T4", pod("ns", fmt.Sprintf("p%d", i)))
		rs = append(rs, hour(s, t0, repeat(100, 60)...))
	}
	penny := hourLine("0.01", t0)
	zero := hourLine("0", t0)
	checkAllocCases(t, []allocCase{
		{name: "a cent over three users", policy: gpucost.PolicyRequested, rollups: rs, line: penny,
			res: Resource{Hosts: []string{"node-r"}, GPUs: 3},
			want: []string{"ns=ns,pod=p0 0.003333334 1.0000", "ns=ns,pod=p1 0.003333333 1.0000", "ns=ns,pod=p2 0.003333333 1.0000",
				"idle() 0 0.0000"},
			stats: AllocStats{Matched: true, HeldGPUHours: 3, UsedGPUHours: 3, CapacityGPUHours: 3}},
		{name: "zero cost", policy: gpucost.PolicyUsed, rollups: rs, line: zero, res: Resource{Hosts: []string{"node-r"}, GPUs: 4},
			want:  []string{"ns=ns,pod=p0 0 1.0000", "ns=ns,pod=p1 0 1.0000", "ns=ns,pod=p2 0 1.0000", "idle() 0 1.0000"},
			stats: AllocStats{Matched: true, HeldGPUHours: 3, UsedGPUHours: 3, CapacityGPUHours: 4}},
	})
}

func TestAllocateOwners(t *testing.T) {
	tagged := series("GPU-o1", "node-o", "NVIDIA L4", gpucost.Labels{"namespace": "web", "pod_uid": "8c2e-…", "label_team": "frontend"})
	slurm := series("GPU-o2", "node-o", "NVIDIA L4", gpucost.Labels{"job": "77", "project": "weather"})
	plain := series("GPU-o3", "node-o", "NVIDIA L4", nil)
	rs := []*gpucost.Rollup{hour(tagged, t0, repeat(10, 60)...), hour(slurm, t0, repeat(10, 60)...), hour(plain, t0, repeat(10, 60)...)}
	line := hourLine("3", t0)
	line.Tags = gpucost.Labels{"Team": "research", "user:project": "infra"}
	checkAllocCases(t, []allocCase{
		{name: "labels first, then the line's tags", policy: gpucost.PolicyRequested, rollups: rs, line: line,
			res: Resource{Hosts: []string{"node-o"}, GPUs: 3},
			want: []string{"team=frontend,project=infra,ns=web,pod=8c2e-… 1 1.0000", "team=research,project=infra 1 1.0000",
				"team=research,project=weather,job=77 1 1.0000", "idle(team=research,project=infra) 0 0.0000"},
			stats: AllocStats{Matched: true, HeldGPUHours: 3, UsedGPUHours: 0.3, CapacityGPUHours: 3}},
	})
}

func TestAllocateEffectiveCost(t *testing.T) {
	// A reserved instance: billed nothing per hour, its amortised cost in euros.
	line := hourLine("0", t0)
	line.BilledCost, line.EffectiveCost = gpucost.Money{Currency: "EUR"}, gpucost.Money{Nanos: 10_000_000_001, Currency: "EUR"}
	a, err := NewAllocator(AllocOptions{Policy: gpucost.PolicyRequested})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range node4() {
		a.AddRollup(r)
	}
	var got []string
	a.Allocate(&line, Resource{Hosts: []string{"node-4"}, GPUs: 4}, func(al *gpucost.Allocation) {
		got = append(got, al.EffectiveCost.Currency+" "+al.EffectiveCost.Decimal()+" "+al.BilledCost.Decimal())
	})
	want := []string{"EUR 2.5 0", "EUR 5.000000001 0", "EUR 2.5 0"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("Allocate(amortised) = %q, want %q", got, want)
	}
}
