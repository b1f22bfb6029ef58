package dcgm

import (
	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/internal/promtext"
	"github.com/gpucost/gpucost/telemetry/dcgmfields"
)

// labelSet is one distinct label set {…} of the metric lines, parsed once and shared
// by every line that carries the same bytes: a scrape repeats each GPU's labels on every metric.
type labelSet struct {
	raw    string // the bytes between the metric name and the value, braces included
	err    string // why lines with this set are left out; empty if they are fine
	gpu    gpucost.GPU
	labels gpucost.Labels
	series string // identifies the series: host, GPU and labels

	canon *labelSet // the first set seen with this series; set by the consumer
}

// MIGUUID returns the UUID gpucost gives the MIG instance instanceID (dcgm-exporter's GPU_I_ID)
// of the GPU parent; see dcgmfields.MIGUUID.
func MIGUUID(parent, instanceID string) string { return dcgmfields.MIGUUID(parent, instanceID) }

// derive fills the set's GPU, labels and series from its parsed pairs. host is the
// fallback for a set without a Hostname label.
func (ls *labelSet) derive(pairs []promtext.Label, host string) {
	all := func(yield func(string, string) bool) {
		for _, p := range pairs {
			if !yield(p.Name, p.Value) {
				return
			}
		}
	}
	ls.gpu, ls.labels, ls.err = dcgmfields.Identify(all, host)
	ls.series = gpucost.Series{GPU: ls.gpu, Labels: ls.labels}.Key()
}
