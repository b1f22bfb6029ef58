package analyze

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gpucost/gpucost"
)

// Severity says how urgent an alert is.
type Severity string

// Severities, least urgent first.
const (
	SeverityInfo     Severity = "info"
	SeverityWarning  Severity = "warning"
	SeverityCritical Severity = "critical"
)

func (s Severity) rank() int {
	switch s {
	case SeverityCritical:
		return 2
	case SeverityWarning:
		return 1
	}
	return 0
}

// Metric is the per-minute reading an alert rule compares with its threshold. Every metric is
// taken from one minute rollup.
type Metric string

// Metrics an alert rule can watch.
const (
	MetricUtil        Metric = "util"             // mean GPU utilisation of the minute, %
	MetricUtilMax     Metric = "util_max"         // highest GPU utilisation sample of the minute, %
	MetricMemUsed     Metric = "mem_used_pct"     // peak memory in use over framebuffer size, %
	MetricTemp        Metric = "temp_c"           // highest temperature of the minute, °C
	MetricPower       Metric = "power_tdp_pct"    // mean power draw over the model's TDP, %
	MetricSMOccupancy Metric = "sm_occupancy_pct" // mean SM occupancy (DCGM profiling), %
)

// metricInfo says how a metric reads in expressions and evidence.
var metricInfo = map[Metric]struct{ expr, label, unit string }{
	MetricUtil:        {"avg_over_time(util[1m])", "GPU util (1-min mean)", "%"},
	MetricUtilMax:     {"max_over_time(util[1m])", "GPU util (1-min max)", "%"},
	MetricMemUsed:     {"max_over_time(fb_used[1m]) / fb_total * 100", "memory in use (1-min peak)", "% of total"},
	MetricTemp:        {"max_over_time(gpu_temp[1m])", "temperature (1-min max)", " °C"},
	MetricPower:       {"avg_over_time(power[1m]) / tdp * 100", "power (1-min mean)", "% of TDP"},
	MetricSMOccupancy: {"avg_over_time(sm_occupancy[1m]) * 100", "SM occupancy (1-min mean)", "%"},
}

// Metrics returns the metrics a rule can watch, sorted by name.
func Metrics() []Metric {
	return slices.Sorted(maps.Keys(metricInfo))
}

// Known reports whether m is a metric a rule can watch.
func (m Metric) Known() bool { return metricInfo[m].expr != "" }

// Rule is an alert rule as data: the condition "Metric above (or below) Threshold", checked on
// every minute rollup, must hold for For before the alert fires (Prometheus' `for`). Thresholds,
// durations and severities can be changed on the values DefaultRules returns.
type Rule struct {
	Name      string        `json:"name"`
	Severity  Severity      `json:"severity"`
	Summary   string        `json:"summary"` // what it means, for people
	Metric    Metric        `json:"metric"`
	Above     bool          `json:"above"`     // fire when the value is above Threshold; below it when false
	Threshold float64       `json:"threshold"` // in the metric's unit
	For       time.Duration `json:"-"`         // JSON writes it in seconds, for_s (MarshalJSON)

	// MinUtil, when above zero, restricts the rule to minutes whose mean utilisation is at least
	// MinUtil %: other minutes break the condition. It makes "while training" rules.
	MinUtil float64 `json:"min_util"`

	// AlertOnNoData (alert_on_no_data) raises a "no data" alert on any series whose metric
	// stops for longer than NoDataAfter, firing or not: a dead agent alerts. Without it only a firing
	// alert goes "no data".
	AlertOnNoData bool `json:"alert_on_no_data"`
}

// NoDataAfter is how long the rule's data may be missing before its alert goes "no data" (once
// the silence is longer): its For, and at least Staleness.
func (r Rule) NoDataAfter() time.Duration { return max(r.For, Staleness) }

// Rule names of DefaultRules.
const (
	RuleUnderutilized  = "gpu_underutilized"
	RuleAtCapacity     = "gpu_at_capacity"
	RuleVRAMOOMRisk    = "vram_oom_risk"
	RuleHot            = "gpu_hot"
	RulePowerHigh      = "power_high"
	RuleLowSMOccupancy = "low_sm_occupancy"
)

// DefaultRules returns the monitoring thresholds of docs/architecture.md's reference facts ("mean GPU util
// < 40% for 30 min (overprovisioned/idle); peak > 95% for 1 h (at capacity); VRAM > 85%
// sustained (OOM risk); temperature > 83 °C; power > 90% TDP; SM occupancy < 50% in training").
// docs/architecture.md gives no duration for the last four; those chosen here are noted on each rule.
func DefaultRules() []Rule {
	return []Rule{
		{Name: RuleUnderutilized, Severity: SeverityWarning, Metric: MetricUtil, Threshold: 40, For: 30 * time.Minute,
			Summary: "GPU utilisation stayed low: the GPU is idle or overprovisioned"},
		// "Peak > 95% for 1 h" is read as the minute's mean above 95% for an hour: a minute max
		// would count one busy second a minute as saturation. MetricUtilMax gives the other reading.
		{Name: RuleAtCapacity, Severity: SeverityWarning, Metric: MetricUtil, Above: true, Threshold: 95, For: time.Hour,
			Summary: "GPU saturated for an hour: work is queueing; scale out or move to a larger GPU"},
		// "Sustained" is taken as 15 minutes.
		{Name: RuleVRAMOOMRisk, Severity: SeverityCritical, Metric: MetricMemUsed, Above: true, Threshold: 85,
			For:     15 * time.Minute,
			Summary: "GPU memory nearly full: a larger batch or input risks an out-of-memory failure"},
		// Five minutes keeps one hot reading from alerting.
		{Name: RuleHot, Severity: SeverityCritical, Metric: MetricTemp, Above: true, Threshold: 83, For: 5 * time.Minute,
			Summary: "GPU running hot: it may throttle its clocks; check cooling and airflow"},
		{Name: RulePowerHigh, Severity: SeverityWarning, Metric: MetricPower, Above: true, Threshold: 90, For: 15 * time.Minute,
			Summary: "GPU drawing near its board power limit: it may throttle"},
		// "In training" is read as utilisation of at least 40% (the underutilisation line).
		{Name: RuleLowSMOccupancy, Severity: SeverityInfo, Metric: MetricSMOccupancy, Threshold: 50, For: 30 * time.Minute,
			MinUtil: 40, Summary: "GPU busy but SMs poorly occupied: kernels are small or memory-bound; larger batches may help"},
	}
}

// RuleByName returns the rule named name in rules, to change its threshold or duration, and nil
// if there is none.
func RuleByName(rules []Rule, name string) *Rule {
	for i := range rules {
		if rules[i].Name == name {
			return &rules[i]
		}
	}
	return nil
}

// Expr returns the rule's condition in a PromQL-like form over per-minute values, such as
// "avg_over_time(util[1m]) < 40 for 30m".
func (r Rule) Expr() string {
	var b strings.Builder
	b.WriteString(metricInfo[r.Metric].expr)
	b.WriteString(r.op() + formatFloat(r.Threshold))
	if r.MinUtil > 0 {
		b.WriteString(" and " + metricInfo[MetricUtil].expr + " >= " + formatFloat(r.MinUtil))
	}
	b.WriteString(" for " + formatDuration(r.For))
	return b.String()
}

// Condition says the rule's condition in words, such as "temperature (1-min max) above 83 °C".
func (r Rule) Condition() string {
	dir := "below"
	if r.Above {
		dir = "above"
	}
	info := metricInfo[r.Metric]
	return fmt.Sprintf("%s %s %s%s", info.label, dir, formatFloat(r.Threshold), info.unit)
}

func (r Rule) op() string {
	if r.Above {
		return " > "
	}
	return " < "
}

// holds reports whether the condition is true for value v in a minute of mean utilisation util.
func (r *Rule) holds(v, util float64) bool {
	if r.MinUtil > 0 && !(util >= r.MinUtil) {
		return false
	}
	if r.Above {
		return v > r.Threshold
	}
	return v < r.Threshold
}

// worse reports whether v is further past the threshold than w.
func (r *Rule) worse(v, w float64) bool {
	if r.Above {
		return v > w
	}
	return v < w
}

// check returns an error naming what is wrong with the rule.
func (r Rule) check() error {
	switch {
	case r.Name == "":
		return gpucost.Errorf(gpucost.EInvalid, "alert rule with metric %q: the name is empty", r.Metric)
	case metricInfo[r.Metric].expr == "":
		return gpucost.Errorf(gpucost.EInvalid, "alert rule %s: unknown metric %q", r.Name, r.Metric)
	case r.For < 0:
		return gpucost.Errorf(gpucost.EInvalid, "alert rule %s: for %v is negative", r.Name, r.For)
	case r.Threshold != r.Threshold:
		return gpucost.Errorf(gpucost.EInvalid, "alert rule %s: the threshold is not a number", r.Name)
	}
	return nil
}

func formatFloat(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

// formatDuration writes whole hours and minutes compactly: "30m", "1h", "1h30m", "0m"; other
// durations as time.Duration does.
func formatDuration(d time.Duration) string {
	if d < 0 || d%time.Minute != 0 {
		return d.String()
	}
	h, m := int(d/time.Hour), int(d%time.Hour/time.Minute)
	switch {
	case h == 0:
		return fmt.Sprintf("%dm", m)
	case m == 0:
		return fmt.Sprintf("%dh", h)
	}
	return fmt.Sprintf("%dh%dm", h, m)
}

// ruleJSON is a Rule as JSON writes it: For in seconds (docs/architecture.md "Output
// conventions").
type ruleJSON struct {
	For gpucost.Duration `json:"for_s"`
}

// MarshalJSON writes the rule with For in seconds.
func (r Rule) MarshalJSON() ([]byte, error) {
	type plain Rule
	return json.Marshal(struct {
		plain
		ruleJSON
	}{plain(r), ruleJSON{gpucost.Duration(r.For)}})
}

// UnmarshalJSON reads what MarshalJSON writes.
func (r *Rule) UnmarshalJSON(b []byte) error {
	type plain Rule
	var v struct {
		plain
		ruleJSON
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*r = Rule(v.plain)
	r.For = v.ruleJSON.For.D()
	return nil
}
