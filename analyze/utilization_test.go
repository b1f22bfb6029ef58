package analyze

import (
	"encoding/json"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
)

func TestVerdictFor(t *testing.T) {
	tests := []struct {
		mean float64
		want Verdict
	}{
		{0, Overprovisioned},
		{24.9, Overprovisioned},
		{25, Underutilized},
		{59.9, Underutilized},
		{60, WellUtilized},
		{100, WellUtilized},
		{math.NaN(), NoData},
	}
	for _, tt := range tests {
		if got := VerdictFor(tt.mean); got != tt.want {
			t.Errorf("VerdictFor(%v) = %q, want %q", tt.mean, got, tt.want)
		}
	}
}

// utilize runs rollups through a Utilization with opts.
func utilize(opts Options, rs ...[]*gpucost.Rollup) Report {
	u := NewUtilization(opts)
	for _, part := range rs {
		for _, r := range part {
			u.Add(r)
		}
	}
	return u.Result()
}

func TestUtilizationIdleCostExact(t *testing.T) {
	// Two hours: 30 busy minutes, then 90 idle minutes running across the hour boundary.
	s := series("GPU-1", "node-a", "V100", nil)
	rs := hourRollups(s, t0, join(repeat(80, 30), repeat(0, 90)))
	rep := utilize(Options{Price: priceAll(usd("3.06")), IdleThreshold: testIdleBelow}, rs)

	g := rep.Fleet
	checks := []struct {
		what      string
		got, want any
	}{
		{"GPUHours", g.GPUHours, 2.0},
		{"IdleGPUHours", g.IdleGPUHours, 1.5},
		{"IdlePct", g.IdlePct, Stat(75)},
		{"IdleCost", g.IdleCost, usd("4.59")},
		{"Cost", g.Cost, usd("6.12")},
		{"SustainedIdleGPUHours", g.SustainedIdleGPUHours, 1.5},
		{"SustainedIdleCost", g.SustainedIdleCost, usd("4.59")},
		{"UtilMean", g.UtilMean, Stat(20)},
		{"Verdict", g.Verdict, Overprovisioned},
		{"Currency", rep.Currency, "USD"},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("Utilization(90 idle minutes at $3.06).Fleet.%s = %v, want %v", c.what, c.got, c.want)
		}
	}
}

func TestUtilizationGroupByLabel(t *testing.T) {
	a1 := series("GPU-a1", "node-a", "NVIDIA A100-SXM4-80GB", gpucost.Labels{"team": "search", "pod": "p1"})
	a2 := series("GPU-a2", "node-a", "NVIDIA A100-SXM4-80GB", gpucost.Labels{"team": "search", "pod": "p2"})
	b1 := series("GPU-b1", "node-b", "NVIDIA H100 80GB HBM3", gpucost.Labels{"team": "ads"})
	n1 := series("GPU-n1", "node-c", "Tesla T4", nil)
	n2 := series("GPU-n2", "node-c", "Tesla T4", gpucost.Labels{"pod": "x"})
	prices := map[string]string{"GPU-a1": "4", "GPU-a2": "4", "GPU-b1": "10", "GPU-n1": "0.5"} // n2 unpriced
	price := func(s *gpucost.Series) (gpucost.Money, bool) {
		p, ok := prices[s.GPU.UUID]
		if !ok {
			return gpucost.Money{}, false
		}
		return usd(p), true
	}
	rep := utilize(Options{By: GroupBy{Kind: ByLabel, Label: "team"}, Price: price},
		hourRollups(a1, t0, repeat(0, 120)),                      // 2 idle hours at $4
		hourRollups(a2, t0, join(repeat(0, 30), repeat(90, 30))), // 30 idle minutes at $4
		hourRollups(b1, t0, join(repeat(1, 15), repeat(70, 45))), // 15 idle minutes at $10
		hourRollups(n1, t0, repeat(0, 60)),                       // 1 idle hour at $0.50
		hourRollups(n2, t0, repeat(2, 60)),                       // 1 idle hour, unpriced
	)
	type row struct {
		key                 string
		gpus, series        int
		gpuHours, idleHours float64
		idleCost, cost      string
		unpriced            float64
		model, host         string
	}
	want := []row{
		{"search", 2, 2, 3, 2.5, "10", "12", 0, "NVIDIA A100-SXM4-80GB", "node-a"},
		{"ads", 1, 1, 1, 0.25, "2.5", "10", 0, "NVIDIA H100 80GB HBM3", "node-b"},
		{NoneGroup, 2, 2, 2, 2, "0.5", "0.5", 1, "Tesla T4", "node-c"},
	}
	var got []row
	for _, g := range rep.Groups {
		got = append(got, row{g.Key, g.GPUs, g.Series, g.GPUHours, g.IdleGPUHours, g.IdleCost.Decimal(),
			g.Cost.Decimal(), g.UnpricedGPUHours, g.Model, g.Host})
	}
	if !slices.Equal(got, want) {
		t.Errorf("Utilization(by label:team).Groups =\n%+v\nwant (by idle cost)\n%+v", got, want)
	}
	if f := rep.Fleet; f.GPUs != 5 || f.GPUHours != 6 || f.IdleCost != usd("13") || f.UnpricedGPUHours != 1 ||
		f.Model != "" || f.Host != "" {
		t.Errorf("Utilization(by label:team).Fleet = %+v, want 5 GPUs, 6 GPU-hours, $13 idle, 1 unpriced GPU-hour, no single model or host", f)
	}
}

func TestUtilizationGroupByModelNormalised(t *testing.T) {
	normalize := func(m string) string {
		if strings.Contains(m, "A100") {
			return "A100-80GB"
		}
		return m
	}
	rep := utilize(Options{By: GroupBy{Kind: ByModel}, Normalize: normalize},
		hourRollups(series("GPU-1", "h1", "NVIDIA A100-SXM4-80GB", nil), t0, repeat(10, 60)),
		hourRollups(series("GPU-2", "h2", "NVIDIA A100 80GB PCIe", nil), t0, repeat(30, 60)),
		hourRollups(series("GPU-3", "h3", "", nil), t0, repeat(30, 60)),
	)
	var keys []string
	for _, g := range rep.Groups {
		keys = append(keys, g.Key)
		if g.Key == "A100-80GB" && (g.GPUs != 2 || g.UtilMean != 20 || g.Model != "A100-80GB" || g.Host != "") {
			t.Errorf("Utilization(by model).Groups[A100-80GB] = %+v, want 2 GPUs, mean 20, model A100-80GB, mixed hosts", g)
		}
	}
	slices.Sort(keys)
	if want := []string{"(none)", "A100-80GB"}; !slices.Equal(keys, want) {
		t.Errorf("Utilization(by model) group keys = %q, want %q", keys, want)
	}
}

func TestUtilizationMIG(t *testing.T) {
	// One A100 split into a 3g and a 4g instance, both idle for an hour, and a whole GPU idle
	// for an hour; every GPU at $7 an hour, so a 3g hour costs $3.
	m3 := migSeries("MIG-3", "GPU-p", "3g.40gb", gpucost.Labels{"namespace": "a"})
	m4 := migSeries("MIG-4", "GPU-p", "4g.40gb", gpucost.Labels{"namespace": "b"})
	whole := series("GPU-w", "host-m", "NVIDIA A100-SXM4-80GB", gpucost.Labels{"namespace": "a"})
	rep := utilize(Options{By: GroupBy{Kind: ByLabel, Label: "namespace"}, Price: priceAll(usd("7"))},
		hourRollups(m3, t0, repeat(0, 60)), hourRollups(m4, t0, repeat(0, 60)), hourRollups(whole, t0, repeat(0, 60)))
	byKey := map[string]GroupStats{}
	for _, g := range rep.Groups {
		byKey[g.Key] = g
	}
	tests := []struct {
		key      string
		gpus     int
		gpuHours float64
		idleCost gpucost.Money
	}{
		{"a", 2, 1 + 3.0/7, usd("10")},
		{"b", 1, 4.0 / 7, usd("4")},
		{FleetGroup, 2, 2, usd("14")},
	}
	for _, tt := range tests {
		g := byKey[tt.key]
		if tt.key == FleetGroup {
			g = rep.Fleet
		}
		if g.GPUs != tt.gpus || math.Abs(g.GPUHours-tt.gpuHours) > 1e-12 || g.IdleCost != tt.idleCost {
			t.Errorf("Utilization(MIG).%s = %d GPUs, %v GPU-hours, idle %s; want %d, %v, %s",
				tt.key, g.GPUs, g.GPUHours, g.IdleCost.Decimal(), tt.gpus, tt.gpuHours, tt.idleCost.Decimal())
		}
	}
}

func TestUtilizationQuantiles(t *testing.T) {
	// 3 hours of minutes with util 0..99 cycling, plus one hour at 100: p50 and p95 must equal
	// the nearest-rank quantiles of the raw minute values.
	var utils []float64
	for i := range 180 {
		utils = append(utils, float64(i*37%100))
	}
	utils = append(utils, repeat(100, 60)...)
	rep := utilize(Options{}, hourRollups(series("GPU-1", "h", "L4", nil), t0, utils))
	sorted := slices.Sorted(slices.Values(utils))
	nearest := func(q float64) float64 { return sorted[int(math.Ceil(q*float64(len(sorted))))-1] }
	var sum float64
	for _, u := range utils {
		sum += u
	}
	g := rep.Fleet
	for _, c := range []struct {
		what      string
		got, want Stat
	}{
		{"UtilP50", g.UtilP50, Stat(nearest(0.5))},
		{"UtilP95", g.UtilP95, Stat(nearest(0.95))},
		{"UtilMax", g.UtilMax, 100},
		{"UtilMean", g.UtilMean, Stat(sum / float64(len(utils)))},
	} {
		if c.got != c.want {
			t.Errorf("Utilization(240 minutes).%s = %v, want %v", c.what, c.got, c.want)
		}
	}
}

func TestUtilizationSustainedIdle(t *testing.T) {
	nan := math.NaN()
	tests := []struct {
		name          string
		utils         []float64
		idle, sustain float64 // minutes
	}{
		{"29 idle minutes are not sustained", join(repeat(0, 29), repeat(50, 31)), 29, 0},
		{"30 idle minutes are", join(repeat(0, 30), repeat(50, 30)), 30, 30},
		{"across the hour", join(repeat(50, 45), repeat(0, 30), repeat(50, 45)), 30, 30},
		{"broken by an uncovered minute", join(repeat(0, 20), []float64{nan}, repeat(0, 20)), 40, 0},
		{"to the end of the data", join(repeat(50, 100), repeat(0, 40)), 40, 40},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rep := utilize(Options{}, hourRollups(series("GPU-1", "h", "L4", nil), t0, tt.utils))
			if got := rep.Fleet.IdleGPUHours * 60; math.Abs(got-tt.idle) > 1e-9 {
				t.Errorf("Utilization(%s).IdleGPUHours = %v minutes, want %v", tt.name, got, tt.idle)
			}
			if got := rep.Fleet.SustainedIdleGPUHours * 60; math.Abs(got-tt.sustain) > 1e-9 {
				t.Errorf("Utilization(%s).SustainedIdleGPUHours = %v minutes, want %v", tt.name, got, tt.sustain)
			}
		})
	}
	// A gap between series ends the run: two series with 20 idle minutes each are not one run.
	rep := utilize(Options{},
		hourRollups(series("GPU-1", "h", "L4", nil), t0, join(repeat(50, 40), repeat(0, 20))),
		hourRollups(series("GPU-2", "h", "L4", nil), t0.Add(time.Hour), repeat(0, 20)))
	if rep.Fleet.SustainedIdleGPUHours != 0 {
		t.Errorf("Utilization(two series, 20 idle minutes each).SustainedIdleGPUHours = %v, want 0", rep.Fleet.SustainedIdleGPUHours)
	}
}

func TestUtilizationPeriodAndCurrency(t *testing.T) {
	s1 := series("GPU-1", "h", "L4", nil)
	s2 := series("GPU-2", "h", "L4", nil)
	price := func(s *gpucost.Series) (gpucost.Money, bool) {
		if s.GPU.UUID == "GPU-2" {
			return gpucost.Money{Nanos: 1e9, Currency: "EUR"}, true
		}
		return gpucost.Money{Nanos: 2e9}, true // no currency means USD
	}
	rep := utilize(Options{From: t0.Add(time.Hour), To: t0.Add(3 * time.Hour), Price: price},
		hourRollups(s1, t0, repeat(0, 240)), hourRollups(s2, t0.Add(time.Hour), repeat(0, 60)))
	if rep.Rollups != 3 || rep.Outside != 2 || rep.Fleet.GPUHours != 3 {
		t.Errorf("Utilization([t0+1h, t0+3h)) counted %d rollups, %d outside, %v GPU-hours; want 3, 2, 3",
			rep.Rollups, rep.Outside, rep.Fleet.GPUHours)
	}
	if rep.Currency != "USD" || rep.ForeignCurrency != 1 || rep.Fleet.IdleCost != usd("4") || rep.Fleet.UnpricedGPUHours != 1 {
		t.Errorf("Utilization(USD and EUR prices) = currency %q, %d foreign, idle %v, %v unpriced GPU-hours; want USD, 1, USD 4.00, 1",
			rep.Currency, rep.ForeignCurrency, rep.Fleet.IdleCost, rep.Fleet.UnpricedGPUHours)
	}
}

func TestReportJSON(t *testing.T) {
	// No power, temperature or profiling readings: those statistics are absent and encode as null.
	rep := utilize(Options{Price: priceAll(usd("3.06"))}, hourRollups(series("GPU-1", "h", "L4", nil), t0, repeat(0, 90)))
	b, err := json.Marshal(rep)
	if err != nil {
		t.Fatalf("json.Marshal(Report) error: %v", err)
	}
	for _, want := range []string{`"power_mean_w":null`, `"sm_occupancy":null`, `"idle_cost":"4.59"`, `"util_mean":0,`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("json.Marshal(Report) = %s\nwant it to contain %s", b, want)
		}
	}
}

func TestUtilizationEmpty(t *testing.T) {
	rep := NewUtilization(Options{}).Result()
	if len(rep.Groups) != 0 || rep.Fleet.GPUs != 0 || rep.Fleet.Verdict != NoData || rep.Fleet.UtilP50.Valid() ||
		rep.MinIdle.D() != DefaultMinIdle {
		t.Errorf("NewUtilization().Result() = %+v, want no groups, no GPUs, no data, default MinIdle", rep)
	}
}

func TestReportMonthly(t *testing.T) {
	week := 7 * 24 * time.Hour
	tests := []struct {
		name   string
		rep    Report
		amount gpucost.Money
		want   string
	}{
		{"a week asked for", Report{From: t0, To: t0.Add(week)}, usd("168"), "730"},
		{"the data's span when open", Report{DataFrom: t0, DataTo: t0.Add(week)}, usd("168"), "730"},
		{"From and To win over the data", Report{From: t0, To: t0.Add(2 * week), DataFrom: t0, DataTo: t0.Add(week)}, usd("168"), "365"},
		{"rounded to the nano", Report{From: t0, To: t0.Add(3 * time.Hour)}, usd("1"), "243.333333333"},
		{"negative", Report{From: t0, To: t0.Add(3 * time.Hour)}, usd("-1"), "-243.333333333"},
		{"no period", Report{}, usd("5"), "0"},
	}
	for _, tt := range tests {
		if got := tt.rep.Monthly(tt.amount); got.Decimal() != tt.want || got.Currency != "USD" {
			t.Errorf("Report(%s).Monthly(%s) = %s %s, want USD %s", tt.name, tt.amount.Decimal(), got.Currency, got.Decimal(), tt.want)
		}
	}
	rep := utilize(Options{Price: priceAll(usd("1"))}, hourRollups(series("GPU-1", "h", "L4", nil), t0.Add(time.Hour), repeat(0, 120)))
	if rep.DataFrom != t0.Add(time.Hour) || rep.DataTo != t0.Add(3*time.Hour) || rep.Monthly(rep.Fleet.IdleCost) != usd("730") {
		t.Errorf("Utilization(2 idle hours at $1) data %v–%v, monthly idle %s; want %v–%v, 730", rep.DataFrom, rep.DataTo,
			rep.Monthly(rep.Fleet.IdleCost).Decimal(), t0.Add(time.Hour), t0.Add(3*time.Hour))
	}
}
