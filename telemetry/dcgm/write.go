package dcgm

import (
	"bufio"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/telemetry/dcgmfields"
)

// family is a metric Write writes: its name, HELP and TYPE as dcgm-exporter gives them, and the
// reading it carries (false if the sample has none).
type family struct {
	name, help, typ string
	f               dcgmfields.Field
	value           func(s *gpucost.Sample) (float64, bool)
}

func present(v float64) (float64, bool) { return v, !gpucost.IsAbsent(v) }

// memKnown reports whether a sample's memory is written as used and free, the way
// dcgm-exporter's default counters give it; otherwise a total is written as FB_TOTAL.
func memKnown(s *gpucost.Sample) bool {
	return !gpucost.IsAbsent(s.MemUsedMiB) && !gpucost.IsAbsent(s.MemTotalMiB) && s.MemTotalMiB >= s.MemUsedMiB
}

// families are the metrics Write writes, in dcgm-exporter's order.
var families = []family{
	{dcgmfields.MetricGPUTemp, "GPU temperature (in C).", "gauge", dcgmfields.Temp, func(s *gpucost.Sample) (float64, bool) { return present(s.TempC) }},
	{dcgmfields.MetricPowerUsage, "Power draw (in W).", "gauge", dcgmfields.Power, func(s *gpucost.Sample) (float64, bool) { return present(s.PowerW) }},
	{dcgmfields.MetricGPUUtil, "GPU utilization (in %).", "gauge", dcgmfields.Util, func(s *gpucost.Sample) (float64, bool) { return present(s.Util) }},
	{dcgmfields.MetricFBFree, "Framebuffer memory free (in MiB).", "gauge", dcgmfields.FBFree, func(s *gpucost.Sample) (float64, bool) {
		return s.MemTotalMiB - s.MemUsedMiB, memKnown(s)
	}},
	{dcgmfields.MetricFBUsed, "Framebuffer memory used (in MiB).", "gauge", dcgmfields.FBUsed, func(s *gpucost.Sample) (float64, bool) { return present(s.MemUsedMiB) }},
	{dcgmfields.MetricFBTotal, "Framebuffer memory total (in MiB).", "gauge", dcgmfields.FBTotal, func(s *gpucost.Sample) (float64, bool) {
		return s.MemTotalMiB, !gpucost.IsAbsent(s.MemTotalMiB) && !memKnown(s)
	}},
	{dcgmfields.MetricGrEngineActive, "Ratio of time the graphics engine is active.", "gauge", dcgmfields.GrEngineActive, func(s *gpucost.Sample) (float64, bool) {
		return present(s.GrEngineActive)
	}},
	{dcgmfields.MetricSMActive, "The ratio of cycles an SM has at least 1 warp assigned.", "gauge", dcgmfields.SMActive, func(s *gpucost.Sample) (float64, bool) {
		return present(s.SMActive)
	}},
	{dcgmfields.MetricSMOccupancy, "The ratio of number of warps resident on an SM.", "gauge", dcgmfields.SMOccupancy, func(s *gpucost.Sample) (float64, bool) {
		return present(s.SMOccupancy)
	}},
}

// Write writes samples as dcgm-exporter /metrics text: one scrape per sample time, oldest first,
// each with HELP and TYPE once per metric and a millisecond timestamp on every line. Memory is
// written as FB_USED and FB_FREE (total − used), so Read gives back the same samples for whole
// MiB. The job label is written as dcgm-exporter's hpc_job. A MIG instance's UUID must be
// MIGUUID(parent, instance ID).
func Write(w io.Writer, samples []gpucost.Sample) error {
	order := make([]int, len(samples))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return samples[a].Time.Compare(samples[b].Time) })
	bw := bufio.NewWriterSize(w, 64<<10)
	labels := make([]string, 0, 64)
	var line []byte
	for start := 0; start < len(order); {
		t := samples[order[start]].Time
		end := start
		for end < len(order) && samples[order[end]].Time.Equal(t) {
			end++
		}
		group := order[start:end]
		labels = labels[:0]
		for _, i := range group {
			l, err := check(&samples[i], i)
			if err != nil {
				return err
			}
			labels = append(labels, l)
		}
		ts := strconv.FormatInt(t.UnixMilli(), 10)
		for _, f := range families {
			line = writeFamily(bw, line, f, samples, group, labels, ts)
		}
		start = end
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("write dcgm text: %w", err)
	}
	return nil
}

// writeFamily writes one metric's lines for a scrape, if any sample has the reading.
func writeFamily(bw *bufio.Writer, line []byte, f family, samples []gpucost.Sample, group []int, labels []string, ts string) []byte {
	header := false
	for k, i := range group {
		v, ok := f.value(&samples[i])
		if !ok {
			continue
		}
		if !header {
			fmt.Fprintf(bw, "# HELP %s %s\n# TYPE %s %s\n", f.name, f.help, f.name, f.typ)
			header = true
		}
		line = append(line[:0], f.name...)
		line = append(line, labels[k]...)
		line = append(line, ' ')
		line = strconv.AppendFloat(line, v, 'g', -1, 64)
		line = append(line, ' ')
		line = append(line, ts...)
		line = append(line, '\n')
		bw.Write(line) // a write error stays in bw and is returned by Flush
	}
	return line
}

// check validates sample i and returns its label set as dcgm-exporter writes it.
func check(s *gpucost.Sample, i int) (string, error) {
	if s.Time.IsZero() {
		return "", fmt.Errorf("write sample %d (GPU %s): it has no time", i, s.GPU.UUID)
	}
	for _, f := range families {
		if v, ok := f.value(s); ok {
			if why := f.f.Invalid(v); why != "" {
				return "", fmt.Errorf("write sample %d (GPU %s at %s): %s: %s", i, s.GPU.UUID,
					s.Time.Format(time.RFC3339), f.name, why)
			}
		}
	}
	return labelText(s, i)
}

// labelText returns {gpu=…,UUID=…,…} in dcgm-exporter's order: the device, the MIG instance, the
// host, then the attribution labels sorted by name.
func labelText(s *gpucost.Sample, i int) (string, error) {
	var b strings.Builder
	b.WriteByte('{')
	put := func(name, value string) {
		if b.Len() > 1 {
			b.WriteByte(',')
		}
		b.WriteString(name)
		b.WriteString(`="`)
		b.WriteString(escape(value))
		b.WriteByte('"')
	}
	g := s.GPU
	if g.Index >= 0 {
		put("gpu", strconv.Itoa(g.Index))
	}
	uuid, instance := g.UUID, ""
	if g.Parent != "" {
		id, ok := strings.CutPrefix(g.UUID, g.Parent+"/")
		if !ok || id == "" {
			return "", fmt.Errorf("write sample %d: MIG instance UUID %q is not MIGUUID(%q, instance ID)", i, g.UUID, g.Parent)
		}
		uuid, instance = g.Parent, id
	}
	put("UUID", uuid)
	if g.Index >= 0 {
		put("device", "nvidia"+strconv.Itoa(g.Index))
	}
	if g.Model != "" {
		put("modelName", g.Model)
	}
	if instance != "" {
		put("GPU_I_PROFILE", g.Profile)
		put("GPU_I_ID", instance)
	}
	if g.Host != "" {
		put("Hostname", g.Host)
	}
	keys := make([]string, 0, len(s.Labels))
	for k := range s.Labels {
		if !validLabelName(k) {
			return "", fmt.Errorf("write sample %d: label name %q is not valid in Prometheus text", i, k)
		}
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		name := k
		if k == gpucost.LabelJob {
			name = "hpc_job"
		}
		put(name, s.Labels[k])
	}
	b.WriteByte('}')
	return b.String(), nil
}

func validLabelName(s string) bool {
	return validName(s) && !strings.Contains(s, ":")
}

var escaper = strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`)

func escape(s string) string { return escaper.Replace(s) }
