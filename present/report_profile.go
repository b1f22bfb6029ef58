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
		if res.Attribution == profile.AttrInstance {
			add("VRAM peak / p95", fmt.Sprintf("%s / %s of %s", GiB(res.MemPeakMiB), GiB(res.MemP95MiB), GiB(res.MemTotal)))
		}
		add("verdict", res.Verdict)
		profileAttribution(&t, res)
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
	profileAttribution(&t, res)
	if res.AllGPUs {
		t.Notes = append(t.Notes, "The source could not tell which GPUs the command used; every GPU on the host was sampled.")
	}
	return t
}

// profileAttribution adds whose the figures are and the processes the command shared its GPUs
// with: "shared with pid 434 (88% SM)".
func profileAttribution(t *Table, res profile.Result) {
	switch res.Attribution {
	case profile.AttrProcess:
		t.Rows = append(t.Rows, []string{"attribution", "the command's own processes (NVML per-process samples)"},
			[]string{"GPU util mean, all processes", fmt.Sprintf("%.1f%%", res.GPUUtilMean)})
	case profile.AttrInstance:
		t.Rows = append(t.Rows, []string{"attribution", "the command's MIG instance"})
	case profile.AttrDevice:
		t.Rows = append(t.Rows, []string{"attribution", "the whole GPU"})
	}
	if len(res.Others) > 0 {
		var parts []string
		for _, o := range res.Others {
			p := fmt.Sprintf("pid %d", o.PID)
			switch {
			case o.PodUID != "":
				p += " pod " + o.PodUID
			case o.ContainerID != "":
				p += " container " + o.ContainerID[:min(12, len(o.ContainerID))]
			}
			if o.Job != "" {
				p += " job " + o.Job
			}
			if o.SMMean != nil {
				p += fmt.Sprintf(" (%.0f%% SM)", *o.SMMean)
			}
			parts = append(parts, p)
		}
		t.Rows = append(t.Rows, []string{"shared with", strings.Join(parts, ", ")})
	}
	if res.AttributionNote != "" {
		t.Notes = append(t.Notes, "Attribution: "+res.AttributionNote+".")
	}
}
