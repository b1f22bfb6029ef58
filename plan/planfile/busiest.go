package planfile

import (
	"fmt"
	"time"

	"github.com/gpucost/gpucost/traffic"
)

// ReadBusiest reads the trace name (ReadTrace) for plan capacity --trace and returns the rate of
// its busiest interval, the notes that say where that rate came from (sized with headroom, a
// fraction) and the trace's summary, and the trace.
func ReadBusiest(name string, o TraceOptions, headroom float64) (float64, []string, *traffic.Trace, error) {
	tr, err := ReadTrace(name, o)
	if err != nil {
		return 0, nil, nil, err
	}
	peak, at := tr.Busiest()
	note := fmt.Sprintf("Sized for the trace's busiest %v, %.4g requests/s from %s, with %.0f%% headroom.",
		tr.Step, peak, at.Format(time.DateTime), 100*headroom)
	return peak, append([]string{note}, tr.Summary()...), tr, nil
}
