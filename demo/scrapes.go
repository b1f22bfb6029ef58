package demo

import (
	"io"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/telemetry/dcgm"
)

// WriteScrapes writes the fleet's samples from from to end as dcgm-exporter text with
// timestamps, one scrape a minute, so the demo is imported through the same path as real
// telemetry. hour is called at the start of each hour after the first, for a progress bar.
func WriteScrapes(w io.Writer, fleet []Instance, from, end time.Time, hour func()) error {
	var scrape []gpucost.Sample
	var err error
	at := from
	flush := func() {
		if err == nil && len(scrape) > 0 {
			err = dcgm.Write(w, scrape)
		}
		scrape = scrape[:0]
	}
	Samples(fleet, from, end, time.Minute, func(s gpucost.Sample) {
		if !s.Time.Equal(at) {
			flush()
			if s.Time.Minute() == 0 {
				hour()
			}
			at = s.Time
		}
		scrape = append(scrape, s)
	})
	flush()
	return err
}
