package analyze

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
)

// episode is an alert's place: rule, state, minutes from t0 and length in minutes.
type episode struct {
	rule    string
	state   AlertState
	from    int
	minutes int
}

// evaluate runs minute readings of one A100 (TDP 400 W) through the default rules, with now at
// the end of the data plus after.
func evaluate(t *testing.T, ms []minute, after time.Duration) AlertReport {
	t.Helper()
	s := series("GPU-1", "node-a", "NVIDIA A100-SXM4-80GB", gpucost.Labels{"pod": "train-1"})
	tdp := func(model string) (float64, bool) { return 400, strings.Contains(model, "A100") }
	e, err := EvaluateAlerts(DefaultRules(), t0.Add(time.Duration(len(ms))*time.Minute+after), tdp)
	if err != nil {
		t.Fatalf("EvaluateAlerts(DefaultRules()) error: %v", err)
	}
	for _, r := range minuteRollups(s, t0, ms) {
		e.Add(r)
	}
	return e.Result()
}

func episodes(rep AlertReport) []episode {
	var out []episode
	for _, a := range rep.Alerts {
		out = append(out, episode{a.Rule.Name, a.State, int(a.Start.Sub(t0) / time.Minute), int(a.Duration.D() / time.Minute)})
	}
	return out
}

// busy returns n minutes at 70% util with the given changes.
func busy(n int, change func(*minute)) []minute {
	out := make([]minute, n)
	for i := range out {
		out[i] = minute{util: 70, memPct: 50, temp: 60, powerW: 250, smOcc: 0.7}
		if change != nil {
			change(&out[i])
		}
	}
	return out
}

func TestAlertRules(t *testing.T) {
	gap := []minute{{util: math.NaN()}}
	util := func(u float64) func(*minute) { return func(m *minute) { m.util = u } }
	tests := []struct {
		name string
		ms   []minute
		want []episode
	}{
		{"30 low minutes fire a 30m rule", join3(busy(10, nil), busy(30, util(39))),
			[]episode{{RuleUnderutilized, Firing, 10, 30}}},
		{"a 29-minute dip does not", join3(busy(10, nil), busy(29, util(10)), busy(10, nil)), nil},
		{"exactly at the threshold does not", busy(120, util(40)), nil},
		{"resolved when util recovers", join3(busy(45, util(0)), busy(10, nil)),
			[]episode{{RuleUnderutilized, Resolved, 0, 45}}},
		{"a gap resets the pending state", join3(busy(20, util(5)), gap, busy(20, util(5)), busy(5, nil)), nil},
		{"a gap resolves a firing alert", join3(busy(35, util(5)), gap, busy(10, nil)),
			[]episode{{RuleUnderutilized, Resolved, 0, 35}}},
		{"at capacity needs an hour above 95", join3(busy(60, util(95.5)), busy(1, nil)),
			[]episode{{RuleAtCapacity, Resolved, 0, 60}}},
		{"95% exactly is not above", busy(120, util(95)), nil},
		{"59 minutes at capacity do not fire", join3(busy(59, util(100)), busy(5, nil)), nil},
		{"VRAM above 85% for 15 minutes", busy(15, func(m *minute) { m.memPct = 86 }),
			[]episode{{RuleVRAMOOMRisk, Firing, 0, 15}}},
		{"VRAM at 85% exactly", busy(60, func(m *minute) { m.memPct = 85 }), nil},
		{"hot for 5 minutes", join3(busy(5, func(m *minute) { m.temp = 84 }), busy(1, nil)),
			[]episode{{RuleHot, Resolved, 0, 5}}},
		{"hot for 4 minutes", join3(busy(4, func(m *minute) { m.temp = 90 }), busy(1, nil)), nil},
		{"83 °C exactly", busy(30, func(m *minute) { m.temp = 83 }), nil},
		{"power above 90% of TDP", busy(15, func(m *minute) { m.powerW = 361 }),
			[]episode{{RulePowerHigh, Firing, 0, 15}}},
		{"power at 90% of TDP", busy(30, func(m *minute) { m.powerW = 360 }), nil},
		{"low SM occupancy while busy", busy(30, func(m *minute) { m.smOcc = 0.49 }),
			[]episode{{RuleLowSMOccupancy, Firing, 0, 30}}},
		{"busy counts from 40% util", busy(30, func(m *minute) { m.smOcc, m.util = 0.2, 40 }),
			[]episode{{RuleLowSMOccupancy, Firing, 0, 30}}},
		{"low SM occupancy while idle is not", busy(60, func(m *minute) { m.smOcc, m.util = 0.1, 39.9 }),
			[]episode{{RuleUnderutilized, Firing, 0, 60}}},
		{"no profiling metrics", busy(60, func(m *minute) { m.smOcc = math.NaN() }), nil},
		{"a missing temperature does not resolve a hot episode", join3(busy(6, func(m *minute) { m.temp = 90 }),
			busy(1, func(m *minute) { m.temp = math.NaN() })), []episode{{RuleHot, Firing, 0, 6}}},
		{"nor does a gap shorter than the rule's for", join3(busy(6, func(m *minute) { m.temp = 90 }), busy(3, func(m *minute) { m.temp = math.NaN() }),
			busy(4, func(m *minute) { m.temp = 90 }), busy(1, nil)), []episode{{RuleHot, Resolved, 0, 13}}},
		{"a gap longer than the rule's for turns it no data", join3(busy(6, func(m *minute) { m.temp = 90 }), busy(6, func(m *minute) { m.temp = math.NaN() }),
			busy(1, nil)), []episode{{RuleHot, AlertNoData, 0, 6}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rep := evaluate(t, tt.ms, 0)
			if got := episodes(rep); !slices.Equal(got, tt.want) {
				t.Errorf("EvaluateAlerts(%s) = %+v, want %+v", tt.name, got, tt.want)
				for _, a := range rep.Alerts {
					t.Logf("  %s", a.Evidence)
				}
			}
		})
	}
}

func join3(parts ...[]minute) []minute {
	var out []minute
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

func TestAlertDetail(t *testing.T) {
	ms := join3(busy(10, nil), busy(40, func(m *minute) { m.util = 10 }), busy(5, nil))
	ms[20].util = 2 // the worst minute
	rep := evaluate(t, ms, 0)
	if len(rep.Alerts) != 1 {
		t.Fatalf("EvaluateAlerts(40 low minutes) = %+v, want one alert", episodes(rep))
	}
	a := rep.Alerts[0]
	wantMean := (39*10 + 2) / 40.0
	if a.Start != t0.Add(10*time.Minute) || a.FiredAt != t0.Add(40*time.Minute) || a.End != t0.Add(50*time.Minute) ||
		a.Worst != 2 || math.Abs(a.Mean-wantMean) > 1e-9 || a.Series.Labels["pod"] != "train-1" {
		t.Errorf("EvaluateAlerts(40 low minutes) = %+v\nwant start t0+10m, fired t0+40m, end t0+50m, worst 2, mean %v, pod train-1", a, wantMean)
	}
	want := "GPU util (1-min mean) below 40% for 40m, from 2025-01-06 00:10 UTC to 2025-01-06 00:50 UTC: mean 9.8%, worst 2.0%"
	if a.Evidence != want {
		t.Errorf("Alert.Evidence = %q\nwant %q", a.Evidence, want)
	}
}

func TestAlertStaleness(t *testing.T) {
	hot := busy(10, func(m *minute) { m.temp = 90 })
	tests := []struct {
		name  string
		after time.Duration
		want  AlertState
	}{
		{"data up to now", 0, Firing},
		{"data within staleness", Staleness, Firing},
		{"data stopped", Staleness + time.Minute, AlertNoData},
	}
	for _, tt := range tests {
		rep := evaluate(t, hot, tt.after)
		if len(rep.Alerts) != 1 || rep.Alerts[0].State != tt.want {
			t.Errorf("EvaluateAlerts(hot, now = end + %v) = %+v, want one %s alert", tt.after, episodes(rep), tt.want)
			continue
		}
		if tt.want == AlertNoData && !strings.HasSuffix(rep.Alerts[0].Evidence, "; then no data since 2025-01-06 00:10 UTC") {
			t.Errorf("EvaluateAlerts(%s).Evidence = %q, want it to say where the data stopped", tt.name, rep.Alerts[0].Evidence)
		}
	}
}

func TestAlertSeriesAndSkips(t *testing.T) {
	a := series("GPU-a", "h", "NVIDIA A100-SXM4-80GB", nil)
	b := series("GPU-b", "h", "Mystery GPU", nil)
	now := t0.Add(time.Hour)
	e, err := EvaluateAlerts(DefaultRules(), now, func(m string) (float64, bool) { return 400, m == a.GPU.Model })
	if err != nil {
		t.Fatalf("EvaluateAlerts(DefaultRules()) error: %v", err)
	}
	// a is low for 20 minutes, then b is low for 20 minutes: a series change is not a continuation.
	for _, r := range minuteRollups(a, t0.Add(20*time.Minute), utilMinutes(repeat(1, 20))) {
		e.Add(r)
	}
	for _, r := range minuteRollups(b, t0.Add(40*time.Minute), utilMinutes(repeat(1, 20))) {
		r.PowerSamples, r.PowerSum = 1, 1000
		e.Add(r)
	}
	e.Add(hour(a, t0, repeat(0, 60)...))       // not a minute rollup
	e.Add(minuteRollup(a, now, utilMinute(0))) // at now
	rep := e.Result()
	if len(rep.Alerts) != 0 || rep.Series != 2 || rep.Minutes != 40 || rep.Skipped != 2 {
		t.Errorf("EvaluateAlerts(two series) = %+v alerts, %d series, %d minutes, %d skipped; want none, 2, 40, 2",
			episodes(rep), rep.Series, rep.Minutes, rep.Skipped)
	}
	if want := []string{"Mystery GPU"}; !slices.Equal(rep.NoTDP, want) {
		t.Errorf("EvaluateAlerts(two series).NoTDP = %q, want %q", rep.NoTDP, want)
	}
}

func TestAlertOrder(t *testing.T) {
	// Critical before warning; firing before resolved.
	ms := join3(busy(30, func(m *minute) { m.util = 1 }), busy(20, func(m *minute) { m.temp, m.memPct = 90, 90 }))
	got := episodes(evaluate(t, ms, 0))
	want := []episode{
		{RuleVRAMOOMRisk, Firing, 30, 20},
		{RuleHot, Firing, 30, 20},
		{RuleUnderutilized, Resolved, 0, 30},
	}
	if !slices.Equal(got, want) {
		t.Errorf("EvaluateAlerts(order) = %+v, want %+v", got, want)
	}
}

func TestEvaluateAlertsRejectsBadRules(t *testing.T) {
	tests := []struct {
		name   string
		change func([]Rule) []Rule
		want   string
	}{
		{"unknown metric", func(rs []Rule) []Rule { rs[0].Metric = "fan_speed"; return rs }, `unknown metric "fan_speed"`},
		{"duplicate", func(rs []Rule) []Rule { return append(rs, rs[0]) }, "given twice"},
		{"negative for", func(rs []Rule) []Rule { rs[1].For = -time.Minute; return rs }, "negative"},
		{"no name", func(rs []Rule) []Rule { rs[2].Name = ""; return rs }, "name is empty"},
		{"NaN threshold", func(rs []Rule) []Rule { rs[3].Threshold = math.NaN(); return rs }, "not a number"},
	}
	for _, tt := range tests {
		_, err := EvaluateAlerts(tt.change(DefaultRules()), t0, nil)
		if err == nil || !strings.Contains(err.Error(), tt.want) || gpucost.ErrorCode(err) != gpucost.EInvalid {
			t.Errorf("EvaluateAlerts(%s) error = %v, want an %s error containing %q", tt.name, err, gpucost.EInvalid, tt.want)
		}
	}
}

func TestRuleExpr(t *testing.T) {
	want := map[string]string{
		RuleUnderutilized:  "avg_over_time(util[1m]) < 40 for 30m",
		RuleAtCapacity:     "avg_over_time(util[1m]) > 95 for 1h",
		RuleVRAMOOMRisk:    "max_over_time(fb_used[1m]) / fb_total * 100 > 85 for 15m",
		RuleHot:            "max_over_time(gpu_temp[1m]) > 83 for 5m",
		RulePowerHigh:      "avg_over_time(power[1m]) / tdp * 100 > 90 for 15m",
		RuleLowSMOccupancy: "avg_over_time(sm_occupancy[1m]) * 100 < 50 and avg_over_time(util[1m]) >= 40 for 30m",
	}
	rules := DefaultRules()
	if len(rules) != len(want) {
		t.Errorf("DefaultRules() has %d rules, want %d", len(rules), len(want))
	}
	for _, r := range rules {
		if got := r.Expr(); got != want[r.Name] {
			t.Errorf("%s.Expr() = %q, want %q", r.Name, got, want[r.Name])
		}
		if r.Summary == "" || r.Severity == "" {
			t.Errorf("rule %s lacks a summary or severity", r.Name)
		}
	}
	RuleByName(rules, RuleHot).Threshold = 80
	RuleByName(rules, RuleHot).For = 90 * time.Minute
	if got, want := RuleByName(rules, RuleHot).Expr(), "max_over_time(gpu_temp[1m]) > 80 for 1h30m"; got != want {
		t.Errorf("overridden gpu_hot.Expr() = %q, want %q", got, want)
	}
	if RuleByName(rules, "nope") != nil {
		t.Errorf("RuleByName(nope) != nil")
	}
}

func TestAlertThresholdOverride(t *testing.T) {
	rules := DefaultRules()
	RuleByName(rules, RuleHot).Threshold = 80
	e, err := EvaluateAlerts(rules, t0.Add(10*time.Minute), nil)
	if err != nil {
		t.Fatalf("EvaluateAlerts(gpu_hot > 80) error: %v", err)
	}
	for _, r := range minuteRollups(series("GPU-1", "h", "L4", nil), t0, busy(10, func(m *minute) { m.temp = 81 })) {
		e.Add(r)
	}
	if got := episodes(e.Result()); !slices.Equal(got, []episode{{RuleHot, Firing, 0, 10}}) {
		t.Errorf("EvaluateAlerts(gpu_hot > 80, 81 °C for 10m) = %+v, want one firing gpu_hot", got)
	}
}

// TestAlertNoData: alerts whose data stops are never resolved by the silence: they keep firing
// for the rule's For, then go "no data"; a rule with AlertOnNoData raises "no data" on a series
// that stops whether it was firing or not.
func TestAlertNoData(t *testing.T) {
	low := busy(40, func(m *minute) { m.util = 5 }) // gpu_underutilized (30m) fires at minute 30
	for _, tc := range []struct {
		after    time.Duration
		want     AlertState
		evidence string
	}{
		{0, Firing, "; still true at the last minute of data"},
		{10 * time.Minute, Firing, "; still true at the last minute of data, no data since 2025-01-06 00:40 UTC"},
		{30 * time.Minute, Firing, "no data since 2025-01-06 00:40 UTC"},
		{31 * time.Minute, AlertNoData, "; then no data since 2025-01-06 00:40 UTC"},
		{72 * time.Hour, AlertNoData, "; then no data since 2025-01-06 00:40 UTC"},
	} {
		rep := evaluate(t, low, tc.after)
		if len(rep.Alerts) != 1 || rep.Alerts[0].State != tc.want || !strings.HasSuffix(rep.Alerts[0].Evidence, tc.evidence) {
			t.Errorf("EvaluateAlerts(30m rule firing, data stopped %v before now) = %+v; want one %s alert ending %q",
				tc.after, rep.Alerts, tc.want, tc.evidence)
			continue
		}
		if a := rep.Alerts[0]; a.End != t0.Add(40*time.Minute) || a.Duration.D() != 40*time.Minute || a.Worst != 5 {
			t.Errorf("EvaluateAlerts(data stopped %v before now): end %v, %v long, worst %v; want the episode as seen", tc.after, a.End, a.Duration, a.Worst)
		}
	}

	// Many GPUs, all firing, whose agent dies: every alert goes no data, none resolved.
	now := t0.Add(3 * time.Hour)
	e, err := EvaluateAlerts(DefaultRules(), now, nil)
	if err != nil {
		t.Fatal(err)
	}
	for g := range 8 {
		for _, r := range minuteRollups(series(fmt.Sprintf("GPU-%d", g), "node-a", "NVIDIA A100-SXM4-80GB", nil), t0, utilMinutes(repeat(3, 60))) {
			e.Add(r)
		}
	}
	counts := map[AlertState]int{}
	for _, a := range e.Result().Alerts {
		counts[a.State]++
	}
	if counts[AlertNoData] != 8 || len(counts) != 1 {
		t.Errorf("8 firing GPUs silent for 2h: states %v; want 8 no data", counts)
	}
}

func TestAlertOnNoData(t *testing.T) {
	rule := Rule{Name: "agent_alive", Severity: SeverityCritical, Metric: MetricUtil, Threshold: 0, For: 10 * time.Minute, AlertOnNoData: true}
	s := series("GPU-1", "node-a", "NVIDIA A100-SXM4-80GB", nil)
	run := func(now time.Time, ms []minute) []Alert {
		t.Helper()
		e, err := EvaluateAlerts([]Rule{rule}, now, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range minuteRollups(s, t0, ms) {
			e.Add(r)
		}
		return e.Result().Alerts
	}
	busy60 := utilMinutes(repeat(70, 60))
	if got := run(t0.Add(70*time.Minute), busy60); len(got) != 0 {
		t.Errorf("silent 10m, the rule's for: %+v; want no alert yet", got)
	}
	got := run(t0.Add(71*time.Minute), busy60)
	want := "GPU util (1-min mean): no data since 2025-01-06 01:00 UTC, longer than the rule's 10m"
	if len(got) != 1 || got[0].State != AlertNoData || got[0].Evidence != want || !got[0].Start.Equal(t0.Add(time.Hour)) ||
		!got[0].FiredAt.Equal(t0.Add(70*time.Minute)) || got[0].Duration.D() != 11*time.Minute {
		t.Errorf("silent 11m: %+v; want one no data alert %q from 01:00, fired 01:10, 11m long", got, want)
	}
	// A 20-minute gap in the middle of the data is a past no data episode.
	gapped := join3(utilMinutes(repeat(70, 30)), utilMinutes(repeat(math.NaN(), 20)), utilMinutes(repeat(70, 10)))
	got = run(t0.Add(60*time.Minute), gapped)
	want = "GPU util (1-min mean): no data from 2025-01-06 00:30 UTC to 2025-01-06 00:50 UTC (20m), longer than the rule's 10m"
	if len(got) != 1 || got[0].State != AlertNoData || got[0].Evidence != want || got[0].Duration.D() != 20*time.Minute {
		t.Errorf("a 20m gap: %+v; want one no data alert %q", got, want)
	}
	rule.AlertOnNoData = false
	if got := run(t0.Add(5*time.Hour), gapped); len(got) != 0 {
		t.Errorf("without AlertOnNoData: %+v; want none (the rule never fired)", got)
	}
}
