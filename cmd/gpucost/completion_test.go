package main

import (
	"slices"
	"strings"
	"testing"

	"github.com/gpucost/gpucost/analyze"
	"github.com/gpucost/gpucost/billing/billimport"
	"github.com/gpucost/gpucost/fleet"
)

// completions runs gpucost __complete with args, as the shell scripts do, and returns the
// values offered (the last line is cobra's directive).
func completions(t *testing.T, dir string, args ...string) []string {
	t.Helper()
	code, out, errOut := runCLI(t, dir, append([]string{"__complete"}, args...)...)
	if code != exitOK {
		t.Fatalf("gpucost __complete %s: exit %d, stderr %s", strings.Join(args, " "), code, errOut)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) == 0 || !strings.HasPrefix(lines[len(lines)-1], ":") {
		t.Fatalf("gpucost __complete %s: no directive in %q", strings.Join(args, " "), out)
	}
	return lines[:len(lines)-1]
}

// checkCompletions completes each flag with values on the demo store in dir.
func checkCompletions(t *testing.T, dir string) {
	for _, c := range []struct {
		args []string
		want []string // values that must be offered
		not  []string // values that must not
	}{
		{[]string{"report", "cost", "--output", ""}, []string{"table", "json", "csv"}, nil},
		{[]string{"report", "utilization", "--by", ""}, []string{"gpu", "host", "model", "namespace", "pod", "label:namespace", "label:container"}, []string{"team", "gpu-model"}},
		{[]string{"report", "cost", "--by", ""}, []string{"team", "gpu-model", "service", "label:namespace"}, nil},
		{[]string{"report", "kpi", "--by", ""}, []string{"team", "label:pod"}, nil},
		{[]string{"import", "billing", "--format", ""}, []string{"auto", "focus", "aws-cur"}, []string{"dcgm"}},
		{[]string{"import", "telemetry", "--format", ""}, []string{"dcgm", "nvidia-smi", "csv"}, []string{"focus"}},
		{[]string{"catalog", "import", "--format", ""}, []string{"skypilot", "gcp-pricing-yml"}, nil},
		{[]string{"catalog", "gpus", "--provider", ""}, []string{"aws", "gcp", "lambda"}, nil},
		{[]string{"catalog", "gpus", "--gpu", ""}, []string{"H100-SXM", "A100-80GB", "T4"}, nil},
		{[]string{"report", "cost", "--policy", ""}, []string{"used", "requested", "weighted"}, nil},
		{[]string{"report", "cost", "--month", ""}, []string{"2026-11"}, nil},
	} {
		got := completions(t, dir, c.args...)
		for _, w := range c.want {
			if !slices.Contains(got, w) {
				t.Errorf("gpucost __complete %s = %q, want %q among them", strings.Join(c.args, " "), got, w)
			}
		}
		for _, n := range c.not {
			if slices.Contains(got, n) {
				t.Errorf("gpucost __complete %s = %q, want no %q", strings.Join(c.args, " "), got, n)
			}
		}
	}
}

// TestCompletionWithoutStore: with no store yet, catalog values come from the bundled catalog
// and --month offers nothing, and the store file is not created.
func TestCompletionWithoutStore(t *testing.T) {
	dir := t.TempDir()
	if got := completions(t, dir, "catalog", "gpus", "--gpu", ""); !slices.Contains(got, "H100-SXM") {
		t.Errorf("gpucost __complete catalog gpus --gpu '' = %q, want H100-SXM", got)
	}
	if got := completions(t, dir, "report", "cost", "--month", ""); len(got) != 0 {
		t.Errorf("gpucost __complete report cost --month '' = %q, want none", got)
	}
	if code, out, _ := runCLI(t, dir, "completion", "bash"); code != exitOK || !strings.Contains(out, "__complete") {
		t.Errorf("gpucost completion bash: exit %d, no __complete call in the script", code)
	}
}

// TestCompletionEnumsParse keeps the completed --by and --format values in step with what the
// commands accept.
func TestCompletionEnumsParse(t *testing.T) {
	for _, by := range costBy {
		if _, err := fleet.ParseDimension(by); err != nil {
			t.Errorf("fleet.ParseDimension(%q) = %v; costBy offers it", by, err)
		}
	}
	for _, by := range utilizationBy {
		if _, err := analyze.ParseGroupBy(by); err != nil {
			t.Errorf("analyze.ParseGroupBy(%q) = %v; utilizationBy offers it", by, err)
		}
	}
	for _, f := range formatValues["gpucost import billing"]() {
		if !billimport.IsFormat(f) {
			t.Errorf("billimport.IsFormat(%q) = false; import billing's --format offers it", f)
		}
	}
}
