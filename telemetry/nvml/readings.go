//go:build cgo

package nvml

import (
	"fmt"

	gonvml "github.com/NVIDIA/go-nvml/pkg/nvml"

	"github.com/gpucost/gpucost"
)

// readings reads one device's readings into a sample, noting what fails.
type readings struct {
	dev   gonvml.Device
	what  string // names the device in skips
	st    *Stats
	lost  bool // the device stopped answering: the sample is void
	memV2 bool // Collector.MemoryV2
}

const mib = 1 << 20

// device reads utilisation, memory, power and temperature.
func (r *readings) device(s *gpucost.Sample) {
	if u, ret := r.dev.GetUtilizationRates(); r.ok(ret, "utilization") {
		r.set(&s.Util, float64(u.Gpu), "utilization", 100)
	}
	r.memory(s)
	if mw, ret := r.dev.GetPowerUsage(); r.ok(ret, "power") {
		r.set(&s.PowerW, float64(mw)/1000, "power", 0)
	}
	if c, ret := r.dev.GetTemperature(gonvml.TEMPERATURE_GPU); r.ok(ret, "temperature") {
		r.set(&s.TempC, float64(c), "temperature", 0)
	}
}

// memory reads the framebuffer memory in use and in all: in use without the driver's
// reservation where the version 2 call answers (Collector.MemoryV2), else with it.
func (r *readings) memory(s *gpucost.Sample) {
	if r.memV2 {
		m, ret := r.dev.GetMemoryInfo_v2()
		if ret == gonvml.SUCCESS || ret == gonvml.ERROR_GPU_IS_LOST {
			if r.ok(ret, "memory") {
				r.set(&s.MemUsedMiB, float64(m.Used)/mib, "memory", 0)
				r.set(&s.MemTotalMiB, float64(m.Total)/mib, "memory", 0)
			}
			return
		}
	}
	if m, ret := r.dev.GetMemoryInfo(); r.ok(ret, "memory") {
		r.set(&s.MemUsedMiB, float64(m.Used)/mib, "memory", 0)
		r.set(&s.MemTotalMiB, float64(m.Total)/mib, "memory", 0)
	}
}

// set stores a reading, or skips it if it is above max (when max > 0).
func (r *readings) set(dst *float64, v float64, field string, max float64) {
	if max > 0 && v > max {
		r.st.skip(field, fmt.Sprintf("%s: %s %g is above %g; reading left out", r.what, field, v, max))
		return
	}
	*dst = v
}

// ok reports whether a reading succeeded. A reading the device does not support is absent, not
// skipped; a lost GPU voids the whole sample.
func (r *readings) ok(ret gonvml.Return, field string) bool {
	switch {
	case r.lost:
		return false
	case ret == gonvml.SUCCESS:
		return true
	case ret == gonvml.ERROR_NOT_SUPPORTED || ret == gonvml.ERROR_NOT_FOUND:
		return false
	case ret == gonvml.ERROR_GPU_IS_LOST:
		r.lost = true
		r.st.skip(field, r.what+": "+describe(ret)+"; GPU left out")
		return false
	}
	r.st.skip(field, r.what+": "+field+": "+describe(ret)+"; reading left out")
	return false
}

// describe explains an NVML return code.
func describe(ret gonvml.Return) string {
	switch ret {
	case gonvml.ERROR_GPU_IS_LOST:
		return "the GPU is lost (NVML ERROR_GPU_IS_LOST: fallen off the bus? a reboot may be needed)"
	case gonvml.ERROR_NO_PERMISSION:
		return "no permission (NVML ERROR_NO_PERMISSION)"
	}
	return "NVML " + ret.Error()
}
