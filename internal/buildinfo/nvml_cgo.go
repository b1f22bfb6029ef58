//go:build cgo

package buildinfo

// NVML says whether this build can load NVML: go-nvml needs cgo (telemetry/nvml).
const NVML = true
