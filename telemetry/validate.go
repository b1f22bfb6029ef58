package telemetry

import (
	"fmt"
	"math"
	"time"

	"github.com/gpucost/gpucost"
)

// MaxClockSkew is how far a sample's timestamp may be ahead of the local clock before Validate
// takes the recording machine's clock to be wrong.
const MaxClockSkew = 5 * time.Minute

// earliest is the earliest timestamp Validate accepts: anything before it comes from a machine
// whose clock was never set.
var earliest = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)

// SampleError says why Validate rejected a sample and which reading is to blame.
type SampleError struct {
	Field  string // the reading or "time"; empty when the sample as a whole is at fault
	Reason string
}

func (e *SampleError) Error() string {
	if e.Field == "" {
		return e.Reason
	}
	return e.Field + ": " + e.Reason
}

// Validate returns a *SampleError if s cannot be stored: it has no timestamp, one before 2000 or
// one more than MaxClockSkew ahead of now (clock skew; a zero now skips this check), no GPU,
// no utilisation reading (neither Util nor GrEngineActive), or a reading that is negative,
// infinite or out of range (utilisation above 100%, a profiling ratio above 1). Other absent
// (NaN) readings are fine.
func Validate(s gpucost.Sample, now time.Time) error {
	switch {
	case s.Time.IsZero():
		return &SampleError{"time", "the sample has no timestamp"}
	case s.Time.Before(earliest):
		return &SampleError{"time", fmt.Sprintf("timestamp %s is before 2000: the recording machine's clock was not set",
			s.Time.UTC().Format(time.RFC3339))}
	case !now.IsZero() && s.Time.Sub(now) > MaxClockSkew:
		return &SampleError{"time", fmt.Sprintf("timestamp %s is %s ahead of this machine's clock (%s); "+
			"correct the clock of the machine that recorded it", s.Time.UTC().Format(time.RFC3339),
			roughDuration(s.Time.Sub(now)), now.UTC().Format(time.RFC3339))}
	case s.GPU.UUID == "":
		return &SampleError{"uuid", "the sample names no GPU"}
	case IsAbsentUtil(s):
		return &SampleError{"util", "no utilisation reading (neither GPU utilisation nor graphics engine activity)"}
	}
	readings := [...]struct {
		field string
		v     float64
		max   float64
		unit  string
	}{
		{"util", s.Util, 100, "%"},
		{"mem_used_mib", s.MemUsedMiB, math.Inf(1), ""},
		{"mem_total_mib", s.MemTotalMiB, math.Inf(1), ""},
		{"power_w", s.PowerW, math.Inf(1), ""},
		{"temp_c", s.TempC, math.Inf(1), ""},
		{"sm_active", s.SMActive, 1, ""},
		{"sm_occupancy", s.SMOccupancy, 1, ""},
		{"gr_engine_active", s.GrEngineActive, 1, ""},
	}
	for _, r := range readings {
		switch {
		case r.v != r.v:
		case math.IsInf(r.v, 0):
			return &SampleError{r.field, fmt.Sprintf("reading %v is infinite", r.v)}
		case r.v < 0:
			return &SampleError{r.field, fmt.Sprintf("reading %v is negative", r.v)}
		case r.v > r.max:
			return &SampleError{r.field, fmt.Sprintf("reading %v is above %v%s", r.v, r.max, r.unit)}
		}
	}
	return nil
}

// IsAbsentUtil reports whether s has no utilisation reading: neither Util nor GrEngineActive,
// which Batch.Add takes in its place.
func IsAbsentUtil(s gpucost.Sample) bool {
	return gpucost.IsAbsent(s.Util) && gpucost.IsAbsent(s.GrEngineActive)
}

// roughDuration writes d to the second in its two largest units: "3h2m", "4m30s", "2d5h".
func roughDuration(d time.Duration) string {
	d = d.Round(time.Second)
	days, hours := int(d/(24*time.Hour)), int(d/time.Hour)%24
	minutes, seconds := int(d/time.Minute)%60, int(d/time.Second)%60
	switch {
	case days > 0:
		return fmt.Sprintf("%dd%dh", days, hours)
	case hours > 0:
		return fmt.Sprintf("%dh%dm", hours, minutes)
	case minutes > 0:
		return fmt.Sprintf("%dm%ds", minutes, seconds)
	}
	return fmt.Sprintf("%ds", seconds)
}
