//go:build !cgo

package nvml

import (
	"context"
	"time"

	"github.com/gpucost/gpucost"
)

// Collector stands in for the NVML collector in a build without cgo: go-nvml needs cgo to load
// the library. New always fails.
type Collector struct {
	Host     string
	ProcRoot string
	Now      func() time.Time
	OnStats  func(Stats)
}

var _ gpucost.Collector = (*Collector)(nil)

func errNoCgo() error {
	return gpucost.Errorf(gpucost.EUnavailable, "%w: gpucost was built without cgo (CGO_ENABLED=0), which go-nvml needs", ErrUnavailable)
}

// New returns an error wrapping ErrUnavailable: this build cannot load NVML.
func New() (*Collector, error) { return nil, errNoCgo() }

// Close does nothing.
func (c *Collector) Close() error { return nil }

// Collect returns the error New returns.
func (c *Collector) Collect(context.Context) ([]gpucost.Sample, error) { return nil, errNoCgo() }

// Processes returns the error New returns.
func (c *Collector) Processes(context.Context) ([]Process, error) { return nil, errNoCgo() }

// PIDs returns the error New returns.
func (c *Collector) PIDs(context.Context) (map[string][]int, error) { return nil, errNoCgo() }

// CollectProcesses returns the error New returns.
func (c *Collector) CollectProcesses(context.Context) ([]gpucost.Sample, []Process, error) {
	return nil, nil, errNoCgo()
}
