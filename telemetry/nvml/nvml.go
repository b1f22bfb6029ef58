// Package nvml reads GPU samples through NVIDIA's management library, NVML, with go-nvml: device
// utilisation, memory, power and temperature, MIG instances, and the processes on each GPU with
// their utilisation, attributed to pods and jobs through /proc.
//
// go-nvml loads libnvidia-ml.so.1 at run time through cgo. In a build without cgo, or on a
// host without the NVIDIA driver, New returns an error wrapping ErrUnavailable and the agent
// falls back to nvidia-smi.
package nvml

import (
	"errors"

	"github.com/gpucost/gpucost"
)

// ErrUnavailable is wrapped by the errors New returns when NVML cannot be used.
var ErrUnavailable = errors.New("NVML unavailable")

// Source names NVML in skips.
const Source = "nvml"

// MaxSkips is how many skipped readings Stats keeps; it counts them all.
const MaxSkips = 100

// Stats says what a Collect did.
type Stats struct {
	Samples  int            // samples returned
	Skipped  int            // devices or readings left out
	Skips    []gpucost.Skip // the first MaxSkips of them
	Vanished []string       // UUIDs of GPUs in the last Collect that are missing from this one
}

func (s *Stats) skip(field, reason string) {
	s.Skipped++
	if len(s.Skips) < MaxSkips {
		s.Skips = append(s.Skips, gpucost.Skip{File: Source, Field: field, Reason: reason})
	}
}

// Process is a process using a GPU or MIG instance.
type Process struct {
	GPU     string  // UUID of the GPU, or of the MIG instance ("MIG-…")
	PID     int     //
	UsedMiB float64 // GPU memory it holds; Absent if NVML does not say
	SMUtil  float64 // percent of the device's time its kernels ran on the SMs, NVML's latest sample; Absent if unsampled
	MemUtil float64 // percent of the device's time it read or wrote memory, likewise
}
