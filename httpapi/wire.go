package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"reflect"
	"strings"
	"time"
	"unsafe"

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

	Labels labelsJSON `json:"labels,omitempty"`
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
		out.Labels = labelsJSON(s.Labels)
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

// sampleLimits bound what decoding one samples request may hold.
type sampleLimits struct {
	samples int   // samples in the request
	memory  int64 // bytes the decoded samples hold, as sampleCost estimates them
}

var defaultSampleLimits = sampleLimits{samples: MaxSamplesPerRequest, memory: MaxSampleMemory}

func (s *Server) sampleLimits() sampleLimits {
	l := sampleLimits{samples: s.MaxSamples, memory: s.MaxSampleMemory}
	if l.samples <= 0 {
		l.samples = MaxSamplesPerRequest
	}
	if l.memory <= 0 {
		l.memory = MaxSampleMemory
	}
	return l
}

// limitError is a request over a limit of sampleLimits or MaxLabelsPerSample: the server
// answers 413 with its message.
type limitError struct{ msg string }

func (e *limitError) Error() string { return e.msg }

// overLimit returns an EInvalid error, for DecodeSamples's callers, that is a limitError.
func overLimit(format string, args ...any) error {
	return gpucost.Errorf(gpucost.EInvalid, "%w", &limitError{fmt.Sprintf(format, args...)})
}

// sampleFixedCost is what a decoded sample holds besides its strings and labels: its wire form
// counted twice (for the slack of a growing slice), the gpucost.Sample it becomes, and the
// eight readings and the index each boxed on the heap.
const sampleFixedCost = 2*int64(unsafe.Sizeof(SampleJSON{})) + int64(unsafe.Sizeof(gpucost.Sample{})) + 9*8

// labelEntryCost is what one label costs besides its key and value bytes, in the wire map and
// again in the sample's lower-cased copy: two string headers and a map slot's share of its
// bucket, each time.
const labelEntryCost = 2 * 64

// sampleCost estimates the bytes the decoded sample s holds until its request is answered.
func sampleCost(s *SampleJSON) int64 {
	g := &s.GPU
	n := sampleFixedCost + int64(len(g.UUID)+len(g.Host)+len(g.Model)+len(g.Parent)+len(g.Profile))
	for k, v := range s.Labels {
		n += labelEntryCost + 2*int64(len(k)+len(v))
	}
	return n
}

// sampleDecoder reads a samples request one sample at a time with json.Decoder's Token and
// More, so that it stops at the first limit passed before the rest of the body is decoded.
type sampleDecoder struct {
	ctx     context.Context
	dec     *json.Decoder
	limits  sampleLimits
	reserve func(n int) error          // before the nth sample, from 1; nil: nothing to pay
	each    func(i int, s *SampleJSON) // each sample decoded, in order; s is reused after
	n       int                        // samples decoded
	memory  int64                      // their cost
}

// decode reads the request: a JSON object with a "samples" array and nothing after it. Other
// fields are skipped token by token, never held.
func (d *sampleDecoder) decode() error {
	tok, err := d.dec.Token()
	if err != nil {
		return jsonError(err)
	}
	if tok != json.Delim('{') {
		return gpucost.Errorf(gpucost.EInvalid, `the body is a JSON %s: send a JSON object {"samples": [...]}`, jsonKind(tok))
	}
	found := false
	for d.dec.More() {
		key, err := d.dec.Token()
		if err != nil {
			return jsonError(err)
		}
		if k, _ := key.(string); !strings.EqualFold(k, "samples") {
			if err := skipValue(d.dec); err != nil {
				return jsonError(err)
			}
			continue
		}
		isArray, err := d.samples()
		if err != nil {
			return err
		}
		found = found || isArray
	}
	if _, err := d.dec.Token(); err != nil { // the closing brace
		return jsonError(err)
	}
	if !found {
		return gpucost.Errorf(gpucost.EInvalid, `the body has no "samples" array: send {"samples": [...]}`)
	}
	if tok, err := d.dec.Token(); err != io.EOF {
		if err != nil {
			return jsonError(err)
		}
		return gpucost.Errorf(gpucost.EInvalid, "unexpected %v after the JSON object at byte %d", tok, d.dec.InputOffset())
	}
	return nil
}

// samples reads the value of "samples": an array, whose samples it hands to each, or null,
// which is as good as no array.
func (d *sampleDecoder) samples() (bool, error) {
	at := d.dec.InputOffset()
	tok, err := d.dec.Token()
	if err != nil {
		return false, jsonError(err)
	}
	switch tok {
	case nil:
		return false, nil
	case json.Delim('['):
	default:
		return false, gpucost.Errorf(gpucost.EInvalid, "field samples at byte %d: a JSON %s cannot be an array of samples", at, jsonKind(tok))
	}
	var sj SampleJSON
	for d.dec.More() {
		if err := d.ctx.Err(); err != nil {
			return false, err
		}
		if d.n >= d.limits.samples {
			return false, overLimit("more than %d samples in one request; send smaller batches", d.limits.samples)
		}
		if d.reserve != nil {
			if err := d.reserve(d.n + 1); err != nil {
				return false, err
			}
		}
		sj = SampleJSON{}
		at := d.dec.InputOffset()
		if err := d.dec.Decode(&sj); err != nil {
			return false, sampleError(d.n, at, err)
		}
		d.n++
		if d.memory += sampleCost(&sj); d.memory > d.limits.memory {
			return false, overLimit("the first %d samples hold more than %s in memory; send smaller batches or fewer labels",
				d.n, mib(d.limits.memory))
		}
		d.each(d.n-1, &sj)
	}
	if _, err := d.dec.Token(); err != nil { // the closing bracket
		return false, jsonError(err)
	}
	return true, nil
}

// sampleError names the sample that failed to decode and where.
func sampleError(i int, at int64, err error) error {
	var typ *json.UnmarshalTypeError
	if errors.As(err, &typ) {
		return gpucost.Errorf(gpucost.EInvalid, "sample %d: field samples.%s at byte %d: a JSON %s cannot be a %s", i, typ.Field, at+typ.Offset, typ.Value, typ.Type)
	}
	var le *limitError
	if errors.As(err, &le) {
		return overLimit("sample %d: %s", i, le.msg)
	}
	return jsonError(err)
}

// skipValue reads past the next JSON value token by token.
func skipValue(dec *json.Decoder) error {
	depth := 0
	for {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		switch tok {
		case json.Delim('['), json.Delim('{'):
			depth++
		case json.Delim(']'), json.Delim('}'):
			depth--
		}
		if depth == 0 {
			return nil
		}
	}
}

// jsonKind names the JSON kind of a token for people.
func jsonKind(tok json.Token) string {
	switch tok.(type) {
	case json.Delim:
		if tok == json.Delim('[') {
			return "array"
		}
		return "object"
	case string:
		return "string"
	case float64, json.Number:
		return "number"
	case bool:
		return "boolean"
	}
	return "null"
}

// labelsJSON are a sample's labels on the wire. Decoding them stops past MaxLabelsPerSample,
// so one sample cannot fill memory with a huge map.
type labelsJSON map[string]string

// UnmarshalJSON decodes a JSON object of strings, or null, of at most MaxLabelsPerSample entries.
func (l *labelsJSON) UnmarshalJSON(b []byte) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	if tok == nil {
		*l = nil
		return nil
	}
	if tok != json.Delim('{') {
		return &json.UnmarshalTypeError{Value: jsonKind(tok), Type: reflect.TypeFor[map[string]string]()}
	}
	m := make(labelsJSON)
	for dec.More() {
		if len(m) >= MaxLabelsPerSample {
			return &limitError{fmt.Sprintf("more than %d labels; send fewer labels", MaxLabelsPerSample)}
		}
		k, err := dec.Token()
		if err != nil {
			return err
		}
		v, err := dec.Token()
		if err != nil {
			return err
		}
		vs, ok := v.(string)
		if !ok && v != nil { // null is "", as encoding/json decodes it
			return &json.UnmarshalTypeError{Value: jsonKind(v), Type: reflect.TypeFor[string](), Field: k.(string)}
		}
		m[k.(string)] = vs
	}
	*l = m
	return nil
}
