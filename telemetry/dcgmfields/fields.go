// Package dcgmfields knows NVIDIA dcgm-exporter's schema: which metric fills which reading of a
// gpucost.Sample, which labels name the GPU and which attribute it to a workload, and how the
// readings of one GPU at one instant make a Sample. The dcgm reader and the PromQL client share it.
package dcgmfields

import (
	"math"
	"slices"
	"strconv"
	"strings"
)

// Field is the Sample reading a DCGM metric fills.
type Field uint8

// Readings. Ignored marks a DCGM metric that gpucost accepts and does not use; Unknown a name
// that is not a DCGM metric at all.
const (
	Unknown Field = iota
	Ignored
	Util
	FBUsed
	FBFree
	FBReserved
	FBTotal
	Power
	Temp
	SMActive
	SMOccupancy
	GrEngineActive
)

// Metric names of the readings gpucost uses, as dcgm-exporter names them.
const (
	MetricGPUUtil        = "DCGM_FI_DEV_GPU_UTIL"
	MetricFBUsed         = "DCGM_FI_DEV_FB_USED"
	MetricFBFree         = "DCGM_FI_DEV_FB_FREE"
	MetricFBReserved     = "DCGM_FI_DEV_FB_RESERVED"
	MetricFBTotal        = "DCGM_FI_DEV_FB_TOTAL"
	MetricPowerUsage     = "DCGM_FI_DEV_POWER_USAGE"
	MetricGPUTemp        = "DCGM_FI_DEV_GPU_TEMP"
	MetricSMActive       = "DCGM_FI_PROF_SM_ACTIVE"
	MetricSMOccupancy    = "DCGM_FI_PROF_SM_OCCUPANCY"
	MetricGrEngineActive = "DCGM_FI_PROF_GR_ENGINE_ACTIVE"
)

// used maps the metrics gpucost reads to their reading. The lower-case names are those of
// dcgm-exporter 1.x (1.x-compatibility-metrics.csv).
var used = map[string]Field{
	MetricGPUUtil:        Util,
	MetricFBUsed:         FBUsed,
	MetricFBFree:         FBFree,
	MetricFBReserved:     FBReserved,
	MetricFBTotal:        FBTotal,
	MetricPowerUsage:     Power,
	MetricGPUTemp:        Temp,
	MetricSMActive:       SMActive,
	MetricSMOccupancy:    SMOccupancy,
	MetricGrEngineActive: GrEngineActive,

	"dcgm_gpu_utilization":          Util,
	"dcgm_fb_used":                  FBUsed,
	"dcgm_fb_free":                  FBFree,
	"dcgm_power_usage":              Power,
	"dcgm_gpu_temp":                 Temp,
	"dcgm_fi_prof_sm_active":        SMActive,
	"dcgm_fi_prof_sm_occupancy":     SMOccupancy,
	"dcgm_fi_prof_gr_engine_active": GrEngineActive,
}

// ignored lists the other metrics of NVIDIA dcgm-exporter's metric lists (etc/default-counters.csv,
// dcp-metrics-included.csv and 1.x-compatibility-metrics.csv at d5e5f510, commented-out entries
// included): gpucost accepts them and does not use them.
var ignored = []string{
	"DCGM_EXP_CLOCK_EVENTS_COUNT", "DCGM_EXP_GPU_HEALTH_STATUS", "DCGM_EXP_P2P_STATUS",
	"DCGM_EXP_XID_ERRORS_COUNT", "DCGM_FI_DEV_BOARD_LIMIT_VIOLATION", "DCGM_FI_DEV_BRAND",
	"DCGM_FI_DEV_CORRECTABLE_REMAPPED_ROWS", "DCGM_FI_DEV_DEC_UTIL", "DCGM_FI_DEV_ECC_DBE_AGG_TOTAL",
	"DCGM_FI_DEV_ECC_DBE_VOL_TOTAL", "DCGM_FI_DEV_ECC_INFOROM_VER", "DCGM_FI_DEV_ECC_SBE_AGG_TOTAL",
	"DCGM_FI_DEV_ECC_SBE_VOL_TOTAL", "DCGM_FI_DEV_ENC_UTIL", "DCGM_FI_DEV_INFOROM_IMAGE_VER",
	"DCGM_FI_DEV_LOW_UTIL_VIOLATION", "DCGM_FI_DEV_MEMORY_TEMP", "DCGM_FI_DEV_MEM_CLOCK",
	"DCGM_FI_DEV_MEM_COPY_UTIL", "DCGM_FI_DEV_NVLINK_BANDWIDTH_L0", "DCGM_FI_DEV_NVLINK_BANDWIDTH_TOTAL",
	"DCGM_FI_DEV_NVLINK_CRC_DATA_ERROR_COUNT_TOTAL", "DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_TOTAL",
	"DCGM_FI_DEV_NVLINK_RECOVERY_ERROR_COUNT_TOTAL", "DCGM_FI_DEV_NVLINK_REPLAY_ERROR_COUNT_TOTAL",
	"DCGM_FI_DEV_OEM_INFOROM_VER", "DCGM_FI_DEV_PCIE_REPLAY_COUNTER", "DCGM_FI_DEV_POWER_INFOROM_VER",
	"DCGM_FI_DEV_POWER_VIOLATION", "DCGM_FI_DEV_RELIABILITY_VIOLATION", "DCGM_FI_DEV_RETIRED_DBE",
	"DCGM_FI_DEV_RETIRED_PENDING", "DCGM_FI_DEV_RETIRED_SBE", "DCGM_FI_DEV_ROW_REMAP_FAILURE",
	"DCGM_FI_DEV_SERIAL", "DCGM_FI_DEV_SM_CLOCK", "DCGM_FI_DEV_SYNC_BOOST_VIOLATION",
	"DCGM_FI_DEV_THERMAL_VIOLATION", "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION",
	"DCGM_FI_DEV_UNCORRECTABLE_REMAPPED_ROWS", "DCGM_FI_DEV_VBIOS_VERSION",
	"DCGM_FI_DEV_VGPU_LICENSE_STATUS", "DCGM_FI_DEV_XID_ERRORS", "DCGM_FI_DRIVER_VERSION",
	"DCGM_FI_NVML_VERSION", "DCGM_FI_PROF_DRAM_ACTIVE", "DCGM_FI_PROF_PCIE_RX_BYTES",
	"DCGM_FI_PROF_PCIE_TX_BYTES", "DCGM_FI_PROF_PIPE_FP16_ACTIVE", "DCGM_FI_PROF_PIPE_FP32_ACTIVE",
	"DCGM_FI_PROF_PIPE_FP64_ACTIVE", "DCGM_FI_PROF_PIPE_TENSOR_ACTIVE",
	"dcgm_board_limit_violation", "dcgm_dec_utilization", "dcgm_ecc_dbe_aggregate_total",
	"dcgm_ecc_dbe_volatile_total", "dcgm_ecc_sbe_aggregate_total", "dcgm_ecc_sbe_volatile_total",
	"dcgm_enc_utilization", "dcgm_fi_prof_dram_active", "dcgm_fi_prof_pcie_rx_bytes",
	"dcgm_fi_prof_pcie_tx_bytes", "dcgm_fi_prof_pipe_tensor_active", "dcgm_low_util_violation",
	"dcgm_mem_copy_utilization", "dcgm_memory_clock", "dcgm_memory_temp", "dcgm_nvlink_bandwidth_total",
	"dcgm_nvlink_data_crc_error_count_total", "dcgm_nvlink_flit_crc_error_count_total",
	"dcgm_nvlink_recovery_error_count_total", "dcgm_nvlink_replay_error_count_total",
	"dcgm_pcie_replay_counter", "dcgm_power_violation", "dcgm_reliability_violation",
	"dcgm_retired_pages_dbe", "dcgm_retired_pages_pending", "dcgm_retired_pages_sbe", "dcgm_sm_clock",
	"dcgm_sync_boost_violation", "dcgm_thermal_violation", "dcgm_total_energy_consumption",
	"dcgm_xid_errors",
}

// fields maps every known metric name to its reading.
var fields = func() map[string]Field {
	m := make(map[string]Field, len(used)+len(ignored))
	for _, name := range ignored {
		m[name] = Ignored
	}
	for name, f := range used {
		m[name] = f
	}
	return m
}()

// Of returns the reading a metric fills.
func Of(name string) Field { return fields[name] }

// Read reports whether the metric fills a reading.
func (f Field) Read() bool { return f >= Util }

// Limit returns the largest valid value of a reading: utilisation is a percentage and the
// profiling metrics are fractions; the rest have no upper bound (0).
func (f Field) Limit() float64 {
	switch f {
	case Util:
		return 100
	case SMActive, SMOccupancy, GrEngineActive:
		return 1
	}
	return 0
}

// Invalid says why v cannot be a reading of f, or returns "".
func (f Field) Invalid(v float64) string {
	switch {
	case math.IsNaN(v):
		return "value is NaN"
	case math.IsInf(v, 0):
		return "value is infinite"
	case v < 0:
		return "negative value " + strconv.FormatFloat(v, 'g', -1, 64)
	case f.Limit() > 0 && v > f.Limit():
		return "value " + strconv.FormatFloat(v, 'g', -1, 64) + " is above " + strconv.FormatFloat(f.Limit(), 'g', -1, 64)
	}
	return ""
}

// Metrics returns the dcgm-exporter names of the metrics that fill a reading, sorted.
func Metrics() []string {
	var out []string
	for name := range used {
		if strings.HasPrefix(name, "DCGM_") {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}
