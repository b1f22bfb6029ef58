package present

import (
	"bytes"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/analyze"
	"go.yaml.in/yaml/v3"
)

// PrometheusGroup is the name of the rule group PrometheusRules writes.
const PrometheusGroup = "gpucost"

// dcgm-exporter's series the rules read (telemetry/dcgmfields names them) and the label that
// carries the GPU model.
const (
	dcgmUtil        = "DCGM_FI_DEV_GPU_UTIL"
	dcgmFBUsed      = "DCGM_FI_DEV_FB_USED"
	dcgmFBFree      = "DCGM_FI_DEV_FB_FREE"
	dcgmTemp        = "DCGM_FI_DEV_GPU_TEMP"
	dcgmPower       = "DCGM_FI_DEV_POWER_USAGE"
	dcgmSMOccupancy = "DCGM_FI_PROF_SM_OCCUPANCY"
	dcgmModelLabel  = "modelName"
)

// promRuleFile is the file format of `promtool check rules`.
type promRuleFile struct {
	Groups []promGroup `yaml:"groups"`
}

type promGroup struct {
	Name  string     `yaml:"name"`
	Rules []promRule `yaml:"rules"`
}

type promRule struct {
	Alert       string            `yaml:"alert"`
	Expr        string            `yaml:"expr"`
	For         string            `yaml:"for,omitempty"`
	Labels      map[string]string `yaml:"labels"`
	Annotations map[string]string `yaml:"annotations"`
	// comment is written above the rule: what in gpucost it corresponds to.
	comment string
}

// PrometheusRules writes rules as Prometheus alerting rules over dcgm-exporter's series, one
// group, for a Prometheus that scrapes dcgm-exporter itself. gpucost evaluates each rule over
// its minute rollups (report alerts); here the rollup's one-minute mean or peak is the same
// function over the last minute of samples, and the rule's For is Prometheus' `for`. The power
// rule compares with each model's TDP, so it gets one term per model of models that has a TDP,
// matched on dcgm-exporter's modelName label by the model's name and aliases (the names NVML
// reports); a GPU of another model is not watched by it. With AlertOnNoData a rule also gets a
// RULE_no_data alert for a GPU whose series stopped (see analyze.Rule.NoDataAfter).
func PrometheusRules(rules []analyze.Rule, models []gpucost.GPUModel) ([]byte, error) {
	g := promGroup{Name: PrometheusGroup}
	for _, r := range rules {
		expr, err := promExpr(r, models)
		if err != nil {
			return nil, err
		}
		g.Rules = append(g.Rules, promRule{Alert: r.Name, Expr: expr, For: promDuration(r.For),
			Labels: map[string]string{"severity": string(r.Severity), "source": "gpucost"},
			Annotations: map[string]string{"summary": r.Summary,
				"description": fmt.Sprintf("GPU {{ $labels.UUID }} on {{ $labels.Hostname }} reads {{ $value | printf \"%%.1f\" }}: %s.", r.Expr())},
			comment: fmt.Sprintf("gpucost rule %s: %s (%s; gpucost report alerts evaluates it over minute rollups).", r.Name, r.Expr(), ruleOrigin(r))})
		if r.AlertOnNoData {
			g.Rules = append(g.Rules, noDataRule(r))
		}
	}
	return marshalRules(promRuleFile{Groups: []promGroup{g}})
}

// ruleOrigin says where a rule comes from: analyze.DefaultRules as they are, changed by a rules
// file (--rules), or added by one.
func ruleOrigin(r analyze.Rule) string {
	switch d := analyze.RuleByName(analyze.DefaultRules(), r.Name); {
	case d == nil:
		return "added by a --rules file"
	case *d != r:
		return "analyze.DefaultRules, changed by a --rules file"
	}
	return "analyze.DefaultRules"
}

// noDataRule fires for a GPU whose metric was reported within the last hour (or the rule's
// window) and has stopped for longer than the rule's NoDataAfter; Prometheus marks a series
// stale 5 minutes after its last sample, so `for` is what remains of NoDataAfter.
func noDataRule(r analyze.Rule) promRule {
	metric := promMetric(r.Metric)
	window := max(time.Hour, 2*r.NoDataAfter())
	wait := max(0, r.NoDataAfter()-5*time.Minute)
	return promRule{Alert: r.Name + "_no_data",
		Expr: fmt.Sprintf("present_over_time(%s[%s]) unless %s", metric, promDuration(window), metric), For: promDuration(wait),
		Labels: map[string]string{"severity": string(r.Severity), "source": "gpucost"},
		Annotations: map[string]string{"summary": fmt.Sprintf("GPU stopped reporting %s for over %s: check its agent or dcgm-exporter", metric, promDuration(r.NoDataAfter())),
			"description": "GPU {{ $labels.UUID }} on {{ $labels.Hostname }} has no " + metric + " sample since it went stale."},
		comment: fmt.Sprintf("gpucost rule %s with alert_on_no_data: a series silent for longer than %s raises a no data alert.", r.Name, promDuration(r.NoDataAfter()))}
}

// promMetric is the dcgm-exporter series a gpucost metric is read from.
func promMetric(m analyze.Metric) string {
	switch m {
	case analyze.MetricMemUsed:
		return dcgmFBUsed
	case analyze.MetricTemp:
		return dcgmTemp
	case analyze.MetricPower:
		return dcgmPower
	case analyze.MetricSMOccupancy:
		return dcgmSMOccupancy
	}
	return dcgmUtil
}

// promExpr is the rule's condition in PromQL: the metric's per-minute value (as
// analyze's metricInfo defines it) compared with the threshold, and the "while busy" condition
// of MinUtil.
func promExpr(r analyze.Rule, models []gpucost.GPUModel) (string, error) {
	op := " < "
	if r.Above {
		op = " > "
	}
	th := strconv.FormatFloat(r.Threshold, 'f', -1, 64)
	var expr string
	switch r.Metric {
	case analyze.MetricUtil:
		expr = "avg_over_time(" + dcgmUtil + "[1m])" + op + th
	case analyze.MetricUtilMax:
		expr = "max_over_time(" + dcgmUtil + "[1m])" + op + th
	case analyze.MetricMemUsed:
		// DCGM's framebuffer total is used + free (+ reserved, which dcgm-exporter's default
		// counters leave out; telemetry/dcgmfields adds it when present).
		expr = "max_over_time(" + dcgmFBUsed + "[1m]) / (" + dcgmFBUsed + " + " + dcgmFBFree + ") * 100" + op + th
	case analyze.MetricTemp:
		expr = "max_over_time(" + dcgmTemp + "[1m])" + op + th
	case analyze.MetricSMOccupancy:
		expr = "avg_over_time(" + dcgmSMOccupancy + "[1m]) * 100" + op + th
	case analyze.MetricPower:
		var terms []string
		for _, m := range models {
			if m.TDPW <= 0 {
				continue
			}
			terms = append(terms, fmt.Sprintf("avg_over_time(%s{%s=~%q}[1m]) / %s * 100%s%s",
				dcgmPower, dcgmModelLabel, modelPattern(m), strconv.FormatFloat(m.TDPW, 'f', -1, 64), op, th))
		}
		if len(terms) == 0 {
			return "", gpucost.Errorf(gpucost.EInvalid, "alert rule %s: no GPU model with a TDP to compare power with", r.Name)
		}
		expr = "(" + strings.Join(terms, ")\nor (") + ")"
	default:
		return "", gpucost.Errorf(gpucost.EInvalid, "alert rule %s: metric %q has no Prometheus form", r.Name, r.Metric)
	}
	if r.MinUtil > 0 {
		expr = "(" + expr + ")\nand avg_over_time(" + dcgmUtil + "[1m]) >= " + strconv.FormatFloat(r.MinUtil, 'f', -1, 64)
	}
	return expr, nil
}

// modelPattern matches a model's name and aliases, ignoring case (Prometheus anchors it).
func modelPattern(m gpucost.GPUModel) string {
	names := append([]string{m.Name}, m.Aliases...)
	for i, n := range names {
		names[i] = regexp.QuoteMeta(n)
	}
	slices.Sort(names)
	return "(?i)(" + strings.Join(slices.Compact(names), "|") + ")"
}

// promDuration writes a duration as Prometheus reads one: "30m", "1h", "1h30m", "0s".
func promDuration(d time.Duration) string {
	if d <= 0 {
		return "0s"
	}
	var b strings.Builder
	if h := d / time.Hour; h > 0 {
		fmt.Fprintf(&b, "%dh", h)
	}
	if m := d % time.Hour / time.Minute; m > 0 {
		fmt.Fprintf(&b, "%dm", m)
	}
	if s := d % time.Minute / time.Second; s > 0 {
		fmt.Fprintf(&b, "%ds", s)
	}
	return b.String()
}

// marshalRules writes the file with each rule's comment above it.
func marshalRules(f promRuleFile) ([]byte, error) {
	var doc yaml.Node
	if err := doc.Encode(f); err != nil {
		return nil, err
	}
	// doc is the mapping {groups: [...]}; each group's rules are a sequence of mappings.
	groups := doc.Content[1]
	for gi, g := range groups.Content {
		rules := g.Content[3]
		for ri, r := range rules.Content {
			r.HeadComment = f.Groups[gi].Rules[ri].comment
		}
	}
	var b bytes.Buffer
	b.WriteString("# gpucost's alert rules as Prometheus alerting rules over dcgm-exporter's series,\n" +
		"# written by gpucost report alerts --export prometheus-rules (docs/deploy.md).\n")
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(&doc); err != nil {
		return nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}
