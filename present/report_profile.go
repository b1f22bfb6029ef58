package present

import (
	"fmt"
	"strings"
	"time"

	"github.com/gpucost/gpucost/profile"
)

// Profile is profile's table: how a profiled run used its GPUs, with the cheapest catalog GPU
// that holds its VRAM peak (fit, none where nil).
func Profile(res profile.Result, fit *profile.Fit) Table {
	t := Table{
		Title:   "gpucost profile: " + strings.Join(res.Command, " "),
		Columns: []string{"Measure", "Value"},
		JSON: struct {
			profile.Result
			Fit *profile.Fit `json:"cheapest_fit,omitempty"`
		}{res, fit},
	}
	add := func(k, v string) { t.Rows = append(t.Rows, []string{k, v}) }
	add("exit code", fmt.Sprint(res.ExitCode))
	add("duration", res.Duration.Round(time.Millisecond).String())
	add("GPUs", fmt.Sprintf("%d %s", len(res.GPUs), strings.Join(res.Models, ", ")))
	add("samples", fmt.Sprint(res.Samples))
	if res.Samples == 0 {
		add("verdict", res.Verdict)
		if res.SourceErr != "" {
			t.Notes = append(t.Notes, "GPU source failed: "+res.SourceErr)
		}
		return t
	}
	add("util mean / p50 / p95", fmt.Sprintf("%.1f%% / %.0f%% / %.0f%%", res.UtilMean, res.UtilP50, res.UtilP95))
	add("VRAM peak / p95", fmt.Sprintf("%s / %s of %s", GiB(res.MemPeakMiB), GiB(res.MemP95MiB), GiB(res.MemTotal)))
	add("power mean", fmt.Sprintf("%.0f W", res.PowerMeanW))
	add("verdict", res.Verdict)
	if fit != nil {
		add("cheapest fit (peak + 20%)", fmt.Sprintf("%s %s/GPU-h (%s %s %s)", fit.GPU, fit.PerGPUHour, fit.Provider, fit.InstanceType, fit.Region))
	}
	if res.AllGPUs {
		t.Notes = append(t.Notes, "The source could not tell which GPUs the command used; every GPU on the host was sampled.")
	}
	return t
}
