package rulesfile

import (
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/analyze"
)

var t0 = time.Date(2025, 1, 6, 0, 0, 0, 0, time.UTC)

const goodRules = `# rules.yaml
rules:
  - name: gpu_underutilized
    threshold: 30
    for: 1h
    alert_on_no_data: true
  - name: gpu_hot
    disabled: true
  - name: low_sm_occupancy
    severity: warning
    min_util: 60
  - name: gpu_very_hot
    metric: temp_c
    above: true
    threshold: 90
    for: 2m
    severity: critical
  - name: spot_interruptions
    threshold: 20%
    window: 3h
    min_interruptions: 3
`

func TestParse(t *testing.T) {
	set, err := Parse("rules.yaml", []byte(goodRules))
	if err != nil {
		t.Fatalf("Parse(good) error: %v", err)
	}
	want := []string{analyze.RuleUnderutilized, analyze.RuleAtCapacity, analyze.RuleVRAMOOMRisk, analyze.RulePowerHigh, analyze.RuleLowSMOccupancy, "gpu_very_hot"}
	if got := ruleNames(set.Rules); !slices.Equal(got, want) {
		t.Errorf("Parse(good) rules = %v, want %v", got, want)
	}
	u := analyze.RuleByName(set.Rules, analyze.RuleUnderutilized)
	if u.Threshold != 30 || u.For != time.Hour || !u.AlertOnNoData || u.Severity != analyze.SeverityWarning || u.Metric != analyze.MetricUtil {
		t.Errorf("Parse(good) gpu_underutilized = %+v, want threshold 30, for 1h, alert_on_no_data, the rest default", *u)
	}
	if sm := analyze.RuleByName(set.Rules, analyze.RuleLowSMOccupancy); sm.Severity != analyze.SeverityWarning || sm.MinUtil != 60 || sm.Threshold != 50 {
		t.Errorf("Parse(good) low_sm_occupancy = %+v, want warning, min_util 60, threshold 50", *sm)
	}
	hot := analyze.RuleByName(set.Rules, "gpu_very_hot")
	if hot.Metric != analyze.MetricTemp || !hot.Above || hot.Threshold != 90 || hot.For != 2*time.Minute || hot.Severity != analyze.SeverityCritical ||
		hot.Summary != "temperature (1-min max) above 90 °C" {
		t.Errorf("Parse(good) gpu_very_hot = %+v", *hot)
	}
	wantSpot := Interruptions{Window: 3 * time.Hour, Threshold: 0.2, MinInterruptions: 3}
	if set.Interruptions != wantSpot {
		t.Errorf("Parse(good) interruptions = %+v, want %+v", set.Interruptions, wantSpot)
	}
	if _, err := analyze.EvaluateAlerts(set.Rules, t0, nil); err != nil {
		t.Errorf("analyze.EvaluateAlerts(Parse(good)) error: %v", err)
	}
	// The list alone, without rules:, reads the same.
	bare, err := Parse("bare.yaml", []byte("- name: gpu_hot\n  threshold: 80\n"))
	if err != nil || analyze.RuleByName(bare.Rules, analyze.RuleHot).Threshold != 80 || len(bare.Rules) != len(analyze.DefaultRules()) {
		t.Errorf("Parse(bare list) = %+v, %v; want gpu_hot at 80 and the other defaults", bare.Rules, err)
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name, file string
		want       []string // substrings of the message
	}{
		{"empty", "", []string{"r.yaml is empty", "rules:"}},
		{"no rules", "rules: []\n", []string{"r.yaml line 1, column 1: no rules"}},
		{"top-level key", "rule:\n  - name: gpu_hot\n", []string{"line 1, column 1: rule: unknown key; the file's one key is rules"}},
		{"unknown key", "rules:\n  - name: gpu_hot\n    threshhold: 80\n",
			[]string{"r.yaml line 3, column 5: rule gpu_hot: threshhold: unknown key", "takes name, metric, above, threshold, for"}},
		{"unknown metric", "rules:\n  - name: mine\n    metric: gpu_util\n    above: true\n    threshold: 1\n",
			[]string{"line 3, column 13: rule mine: metric: \"gpu_util\" is not a metric; use one of mem_used_pct, power_tdp_pct, sm_occupancy_pct, temp_c, util, util_max"}},
		{"bad duration", "rules:\n  - name: gpu_hot\n    for: 5 minutes\n",
			[]string{"line 3, column 10: for: \"5 minutes\" is not a duration; write one such as 30m, 1h or 1h30m"}},
		{"duration without a unit", "rules:\n  - name: gpu_hot\n    for: 30\n", []string{"line 3, column 10: for: \"30\" is not a duration"}},
		{"negative duration", "rules:\n  - name: gpu_hot\n    for: -5m\n", []string{"for: \"-5m\" is not a duration"}},
		{"threshold not a number", "rules:\n  - name: gpu_hot\n    threshold: hot\n",
			[]string{"line 3, column 16: threshold: \"hot\" is not a number; write one such as threshold: 40"}},
		{"bad severity", "rules:\n  - name: gpu_hot\n    severity: page\n", []string{"line 3, column 15: rule gpu_hot: severity: \"page\": use info, warning or critical"}},
		{"disabled not a bool", "rules:\n  - name: gpu_hot\n    disabled: yes\n", []string{"line 3, column 15: disabled: \"yes\": write true or false"}},
		{"min_util out of range", "rules:\n  - name: low_sm_occupancy\n    min_util: 140\n", []string{"min_util: 140 is not a utilisation; write a percentage from 0 to 100"}},
		{"no name", "rules:\n  - threshold: 80\n", []string{"line 2, column 5: name: missing; name a default rule (gpu_underutilized,", "spot_interruptions"}},
		{"named twice", "rules:\n  - name: gpu_hot\n  - name: gpu_hot\n", []string{"line 3, column 11: name: \"gpu_hot\" is given twice"}},
		{"a name Prometheus refuses", "rules:\n  - name: gpu very hot\n    metric: temp_c\n    above: true\n    threshold: 90\n",
			[]string{"line 2, column 11: name: \"gpu very hot\": use letters, digits and underscores"}},
		{"key twice", "rules:\n  - name: gpu_hot\n    for: 1m\n    for: 2m\n", []string{"line 4, column 5: for: given twice in one rule"}},
		{"new rule without metric", "rules:\n  - name: mine\n    above: true\n    threshold: 3\n",
			[]string{"line 2, column 5: rule mine: metric: missing; no default rule is called mine", "a new rule needs metric: (one of mem_used_pct,", "above: true or false"}},
		{"a misspelt default rule", "rules:\n  - name: gpu_underutilised\n    threshold: 30\n",
			[]string{"line 2, column 5: rule gpu_underutilised: metric: missing; no default rule is called gpu_underutilised (they are gpu_underutilized, gpu_at_capacity"}},
		{"rules twice", "rules:\n  - name: gpu_hot\nrules:\n  - name: power_high\n", []string{"line 3, column 1: rules: given twice"}},
		{"new rule without direction", "rules:\n  - name: mine\n    metric: util\n    threshold: 3\n", []string{"rule mine: above: missing"}},
		{"default rule's metric changed", "rules:\n  - name: gpu_hot\n    metric: util\n",
			[]string{"line 3, column 13: rule gpu_hot: metric: a default rule keeps its metric (temp_c)"}},
		{"default rule's direction changed", "rules:\n  - name: gpu_hot\n    above: false\n", []string{"rule gpu_hot: above: a default rule keeps its direction (above: true)"}},
		{"interruption metric on a GPU rule", "rules:\n  - name: mine\n    metric: interruption_rate\n    above: true\n    threshold: 3\n",
			[]string{"metric: interruption_rate is the metric of spot_interruptions alone"}},
		{"window on a GPU rule", "rules:\n  - name: gpu_hot\n    window: 1h\n", []string{"line 3, column 5: rule gpu_hot: window: only spot_interruptions takes a window; a GPU rule's duration is for:"}},
		{"for on the spot rule", "rules:\n  - name: spot_interruptions\n    for: 6h\n", []string{"line 3, column 5: rule spot_interruptions: for: the interruption rule counts over a window:"}},
		{"unknown key on the spot rule", "rules:\n  - name: spot_interruptions\n    severity: critical\n",
			[]string{"rule spot_interruptions: severity: unknown key; spot_interruptions takes name, threshold, window, min_interruptions, disabled"}},
		{"spot threshold not positive", "rules:\n  - name: spot_interruptions\n    threshold: 0\n", []string{"line 3, column 16: threshold: \"0\" is not a positive percentage; write one such as threshold: 25"}},
		{"spot window zero", "rules:\n  - name: spot_interruptions\n    window: 0s\n", []string{"window: 0 holds no interruption"}},
		{"spot window bad", "rules:\n  - name: spot_interruptions\n    window: 6 hours\n", []string{"window: \"6 hours\" is not a duration; write one such as 6h or 90m"}},
		{"min_interruptions not a count", "rules:\n  - name: spot_interruptions\n    min_interruptions: 1.5\n", []string{"min_interruptions: \"1.5\" is not a count"}},
		{"a rule that is not a mapping", "rules:\n  - gpu_hot\n", []string{"line 2, column 5: a rule is a mapping of keys such as name: and threshold:, not \"gpu_hot\""}},
		{"rules not a list", "rules:\n  name: gpu_hot\n", []string{"line 2, column 3: rules: not a list"}},
		{"syntax", "rules:\n  - name: [gpu_hot\n", []string{"r.yaml line", "check the indentation and brackets there"}},
		{"too large", "rules:\n" + strings.Repeat("#", MaxSize), []string{"over the 1048576 bytes a rules file may hold"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse("r.yaml", []byte(tt.file))
			if err == nil {
				t.Fatalf("Parse(%q) = nil error, want %q", tt.file, tt.want)
			}
			if gpucost.ErrorCode(err) != gpucost.EInvalid {
				t.Errorf("Parse(%q) error code %q, want %q", tt.file, gpucost.ErrorCode(err), gpucost.EInvalid)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("Parse(%q) error\n  %v\nwant it to contain\n  %s", tt.file, err, w)
				}
			}
		})
	}
}

// TestOverridesEvaluation evaluates the same minutes of one GPU under the default rules and
// under a rules file: 40 minutes at 35% fire the default gpu_underutilized (< 40% for 30m) but
// not the file's (< 30% for 1h); 10 minutes at 88 °C then fire gpu_hot (> 83 °C for 5m), which
// the file disables, and the file's gpu_very_hot (> 85 °C for 5m).
func TestOverridesEvaluation(t *testing.T) {
	set, err := Parse("rules.yaml", []byte("rules:\n  - name: gpu_underutilized\n    threshold: 30\n    for: 1h\n"+
		"  - name: gpu_hot\n    disabled: true\n  - name: gpu_very_hot\n    metric: temp_c\n    above: true\n    threshold: 85\n    for: 5m\n"))
	if err != nil {
		t.Fatal(err)
	}
	s := &gpucost.Series{GPU: gpucost.GPU{UUID: "GPU-1", Host: "node-a", Model: "NVIDIA A100-SXM4-80GB"}}
	var minutes []*gpucost.Rollup
	for i := range 50 {
		util, temp := 35.0, 60.0
		if i >= 40 {
			util, temp = 70, 88
		}
		minutes = append(minutes, &gpucost.Rollup{Series: s, Start: t0.Add(time.Duration(i) * time.Minute), Width: time.Minute,
			Samples: 1, Coverage: 1, UtilSum: util, UtilMax: util, UtilP50: util, UtilP95: util, TempMaxC: temp,
			MemMaxMiB: math.NaN(), MemP95MiB: math.NaN(), MemTotalMiB: math.NaN(), PowerMax: math.NaN()})
	}
	type episode struct {
		rule  string
		state analyze.AlertState
		from  int
	}
	run := func(rules []analyze.Rule) []episode {
		e, err := analyze.EvaluateAlerts(rules, t0.Add(50*time.Minute), nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range minutes {
			e.Add(r)
		}
		var out []episode
		for _, a := range e.Result().Alerts {
			out = append(out, episode{a.Rule.Name, a.State, int(a.Start.Sub(t0) / time.Minute)})
		}
		return out
	}
	if got, want := run(analyze.DefaultRules()), []episode{{analyze.RuleHot, analyze.Firing, 40}, {analyze.RuleUnderutilized, analyze.Resolved, 0}}; !slices.Equal(got, want) {
		t.Errorf("default rules: episodes %v, want %v", got, want)
	}
	if got, want := run(set.Rules), []episode{{"gpu_very_hot", analyze.Firing, 40}}; !slices.Equal(got, want) {
		t.Errorf("rules file: episodes %v, want %v", got, want)
	}
}

// TestReadFile reads examples/alerts/rules.yaml, and refuses a file over MaxSize and one that
// is not there.
func TestReadFile(t *testing.T) {
	set, err := ReadFile("../../examples/alerts/rules.yaml")
	if err != nil {
		t.Fatalf("ReadFile(examples/alerts/rules.yaml): %v", err)
	}
	if analyze.RuleByName(set.Rules, "gpu_very_hot") == nil || analyze.RuleByName(set.Rules, analyze.RuleLowSMOccupancy) != nil ||
		set.Interruptions.Window != 3*time.Hour || set.Interruptions.Threshold != 0.2 {
		t.Errorf("ReadFile(examples/alerts/rules.yaml) = %+v; want gpu_very_hot added, low_sm_occupancy off, 20%% in 3h", set)
	}
	big := filepath.Join(t.TempDir(), "big.yaml")
	if err := os.WriteFile(big, []byte("rules:\n"+strings.Repeat("#", 2*MaxSize)), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadFile(big); err == nil || !strings.Contains(err.Error(), "over the 1048576 bytes a rules file may hold") {
		t.Errorf("ReadFile(2 MiB) error = %v, want the size limit", err)
	}
	if _, err := ReadFile(filepath.Join(t.TempDir(), "none.yaml")); gpucost.ErrorCode(err) != gpucost.EInvalid {
		t.Errorf("ReadFile(missing) error = %v, want EInvalid", err)
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte(goodRules))
	f.Add([]byte("- name: gpu_hot\n  for: 1h\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		set, err := Parse("fuzz.yaml", data)
		if err != nil {
			return
		}
		if _, err := analyze.EvaluateAlerts(set.Rules, t0, nil); err != nil {
			t.Errorf("Parse(%q) accepted rules EvaluateAlerts refuses: %v", data, err)
		}
	})
}

// TestParseNotify: notify: false names the rule in Set.Quiet and leaves it evaluated; true, or
// no notify key, leaves it out; a value that is not a boolean is an error naming the key.
func TestParseNotify(t *testing.T) {
	set, err := Parse("rules.yaml", []byte("rules:\n  - name: gpu_underutilized\n    notify: false\n  - name: gpu_hot\n    notify: true\n"+
		"  - name: gpu_very_hot\n    metric: temp_c\n    above: true\n    threshold: 90\n    notify: false\n"))
	if err != nil {
		t.Fatalf("Parse(notify) error: %v", err)
	}
	want := map[string]bool{analyze.RuleUnderutilized: true, "gpu_very_hot": true}
	if len(set.Quiet) != len(want) || !set.Quiet[analyze.RuleUnderutilized] || !set.Quiet["gpu_very_hot"] {
		t.Errorf("Parse(notify).Quiet = %v, want %v", set.Quiet, want)
	}
	if analyze.RuleByName(set.Rules, analyze.RuleUnderutilized) == nil || analyze.RuleByName(set.Rules, "gpu_very_hot") == nil {
		t.Errorf("Parse(notify) rules = %v; a quiet rule is still evaluated", ruleNames(set.Rules))
	}
	if set, _ := Parse("rules.yaml", []byte(goodRules)); set.Quiet != nil {
		t.Errorf("Parse(good).Quiet = %v, want nil", set.Quiet)
	}
	_, err = Parse("rules.yaml", []byte("rules:\n  - name: gpu_hot\n    notify: no-thanks\n"))
	if err == nil || !strings.Contains(err.Error(), `rules.yaml line 3, column 13: notify: "no-thanks": write true or false`) {
		t.Errorf("Parse(notify: no-thanks) error = %v, want it placed at the value, naming notify", err)
	}
}
