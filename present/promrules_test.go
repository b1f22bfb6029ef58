package present

import (
	"strings"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/analyze"
	"go.yaml.in/yaml/v3"
)

// TestPrometheusRules reads the export back: one alerting rule per gpucost rule with its for
// and severity, the power rule one term per model with a TDP, and the no data rule only where
// asked.
func TestPrometheusRules(t *testing.T) {
	rules := analyze.DefaultRules()
	analyze.RuleByName(rules, analyze.RuleUnderutilized).AlertOnNoData = true
	models := []gpucost.GPUModel{
		{Name: "H100-SXM", Aliases: []string{"NVIDIA H100 80GB HBM3"}, TDPW: 700},
		{Name: "T4", Aliases: []string{"Tesla T4"}, TDPW: 70},
		{Name: "Mystery"}, // no TDP: not watched by the power rule
	}
	b, err := PrometheusRules(rules, models)
	if err != nil {
		t.Fatal(err)
	}
	var f promRuleFile
	if err := yaml.Unmarshal(b, &f); err != nil {
		t.Fatalf("PrometheusRules wrote YAML that does not parse: %v\n%s", err, b)
	}
	if len(f.Groups) != 1 || len(f.Groups[0].Rules) != len(rules)+1 {
		t.Fatalf("PrometheusRules: %d groups, want 1 with %d rules:\n%s", len(f.Groups), len(rules)+1, b)
	}
	got := map[string]promRule{}
	for _, r := range f.Groups[0].Rules {
		got[r.Alert] = r
	}
	for _, r := range rules {
		p, ok := got[r.Name]
		if !ok {
			t.Errorf("rule %s not exported", r.Name)
			continue
		}
		if p.For != promDuration(r.For) || p.Labels["severity"] != string(r.Severity) {
			t.Errorf("rule %s: for %s severity %s, want %s and %s", r.Name, p.For, p.Labels["severity"], promDuration(r.For), r.Severity)
		}
	}
	power := got[analyze.RulePowerHigh].Expr
	for _, want := range []string{`modelName=~"(?i)(H100-SXM|NVIDIA H100 80GB HBM3)"}[1m]) / 700 * 100 > 90`, `modelName=~"(?i)(T4|Tesla T4)"}[1m]) / 70 * 100 > 90`} {
		if !strings.Contains(power, want) {
			t.Errorf("power_high expr %q lacks %q", power, want)
		}
	}
	if strings.Contains(power, "Mystery") {
		t.Errorf("power_high expr %q watches a model without a TDP", power)
	}
	if nd := got[analyze.RuleUnderutilized+"_no_data"]; nd.For != "25m" || !strings.Contains(nd.Expr, "unless DCGM_FI_DEV_GPU_UTIL") {
		t.Errorf("gpu_underutilized_no_data: for %q expr %q; want 25m (30m less the 5m staleness) and the unless", nd.For, nd.Expr)
	}
	if _, err := PrometheusRules(rules, models[2:]); err == nil {
		t.Errorf("PrometheusRules with no model TDP: no error; the power rule would watch nothing")
	}
}

func TestPromDuration(t *testing.T) {
	for d, want := range map[time.Duration]string{0: "0s", 30 * time.Minute: "30m", time.Hour: "1h", 90 * time.Minute: "1h30m", 25 * time.Second: "25s"} {
		if got := promDuration(d); got != want {
			t.Errorf("promDuration(%v) = %q, want %q", d, got, want)
		}
	}
}
