package httpapi

import (
	"math"
	"strings"
	"time"

	"github.com/gpucost/gpucost"
)

// SampleJSON is a sample on the wire, with explicit field names. A reading the source did not
// report is left out (or null): JSON has no NaN.
type SampleJSON struct {
	Time time.Time `json:"time"`
	GPU  GPUJSON   `json:"gpu"`

	Util        *float64 `json:"util,omitempty"`
	MemUsedMiB  *float64 `json:"mem_used_mib,omitempty"`
	MemTotalMiB *float64 `json:"mem_total_mib,omitempty"`
	PowerW      *float64 `json:"power_w,omitempty"`
	TempC       *float64 `json:"temp_c,omitempty"`

	SMActive       *float64 `json:"sm_active,omitempty"`
	SMOccupancy    *float64 `json:"sm_occupancy,omitempty"`
	GrEngineActive *float64 `json:"gr_engine_active,omitempty"`

	Labels map[string]string `json:"labels,omitempty"`
}

// GPUJSON is a GPU on the wire; a missing index means unknown.
type GPUJSON struct {
	UUID    string `json:"uuid"`
	Host    string `json:"host"`
	Model   string `json:"model,omitempty"`
	Index   *int   `json:"index,omitempty"`
	Parent  string `json:"parent,omitempty"`
	Profile string `json:"profile,omitempty"`
}

// SamplesRequest is the body of POST /api/v1/samples.
type SamplesRequest struct {
	Samples []SampleJSON `json:"samples"`
}

// SamplesResponse says what POST /api/v1/samples kept.
type SamplesResponse struct {
	Accepted int             `json:"accepted"`
	Skipped  int             `json:"skipped"`
	Skips    []SkippedSample `json:"skips,omitempty"` // the first MaxSkipsReported
}

// SkippedSample is a sample the server left out and why.
type SkippedSample struct {
	Index  int    `json:"index"` // in the request's samples, from 0
	GPU    string `json:"gpu"`
	Field  string `json:"field,omitempty"`
	Reason string `json:"reason"`
}

// MaxSkipsReported is how many skipped samples a response names; it counts them all.
const MaxSkipsReported = 20

// FromSample returns s on the wire.
func FromSample(s gpucost.Sample) SampleJSON {
	out := SampleJSON{
		Time: s.Time.UTC(),
		GPU: GPUJSON{UUID: s.GPU.UUID, Host: s.GPU.Host, Model: s.GPU.Model,
			Parent: s.GPU.Parent, Profile: s.GPU.Profile},
		Util: reading(s.Util), MemUsedMiB: reading(s.MemUsedMiB), MemTotalMiB: reading(s.MemTotalMiB),
		PowerW: reading(s.PowerW), TempC: reading(s.TempC), SMActive: reading(s.SMActive),
		SMOccupancy: reading(s.SMOccupancy), GrEngineActive: reading(s.GrEngineActive),
	}
	if s.GPU.Index >= 0 {
		i := s.GPU.Index
		out.GPU.Index = &i
	}
	if len(s.Labels) > 0 {
		out.Labels = s.Labels
	}
	return out
}

// Sample returns the sample j holds; absent readings are NaN and label keys lower-case.
func (j *SampleJSON) Sample() gpucost.Sample {
	g := gpucost.GPU{UUID: j.GPU.UUID, Host: j.GPU.Host, Model: j.GPU.Model, Index: -1,
		Parent: j.GPU.Parent, Profile: j.GPU.Profile}
	if j.GPU.Index != nil {
		g.Index = *j.GPU.Index
	}
	s := gpucost.Sample{Time: j.Time.UTC(), GPU: g,
		Util: value(j.Util), MemUsedMiB: value(j.MemUsedMiB), MemTotalMiB: value(j.MemTotalMiB),
		PowerW: value(j.PowerW), TempC: value(j.TempC), SMActive: value(j.SMActive),
		SMOccupancy: value(j.SMOccupancy), GrEngineActive: value(j.GrEngineActive)}
	if len(j.Labels) > 0 {
		s.Labels = make(gpucost.Labels, len(j.Labels))
		for k, v := range j.Labels {
			s.Labels[strings.ToLower(k)] = v
		}
	}
	return s
}

// reading returns nil for an absent or non-finite reading, which JSON cannot carry.
func reading(v float64) *float64 {
	if gpucost.IsAbsent(v) || math.IsInf(v, 0) {
		return nil
	}
	return &v
}

func value(p *float64) float64 {
	if p == nil {
		return gpucost.Absent
	}
	return *p
}
