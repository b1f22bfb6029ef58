//go:build !cgo

package buildinfo

// NVML says whether this build can load NVML: go-nvml needs cgo (telemetry/nvml), and this
// build has none, so the agent falls back to nvidia-smi.
const NVML = false
