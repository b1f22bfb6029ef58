package plan

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gpucost/gpucost"
)

// The batching planner models a dynamic batcher (Triton's max_batch_size and
// max_queue_delay_microseconds) in front of a pool of replicas sharing one queue. A batch closes
// when it holds B requests or its first request has waited D: at λ requests per second it fills
// in (B − 1)/λ, so batches hold b = B when that is within D, else about 1 + λD. Batches then
// queue for a replica as customers of an M/M/c queue with arrival rate λ/b and service time
// s(b), the latency profile's time for a batch of b. A request's response time is at most the
// batch's formation time (the first request's wait, min(D, (b − 1)/λ)) plus the batch's wait for
// a replica plus s(b); the replicas are the fewest that keep its q-quantile within the SLO.

// BatchPoint is one measurement of a latency profile: the time one replica takes to run a batch.
type BatchPoint struct {
	Batch   int           `json:"batch_size"`
	Latency time.Duration `json:"-"`
}

// LatencyProfile gives the service time of a batch by its size: measured points, interpolated
// linearly between them, or the fitted line α + β·b when there are none.
type LatencyProfile struct {
	Points []BatchPoint  `json:"points,omitempty"` // by batch size, at most one per size
	Alpha  time.Duration `json:"-"`                // fixed cost of a batch
	Beta   time.Duration `json:"-"`                // cost of each request in it
	R2     float64       `json:"r2,omitempty"`     // the fit's coefficient of determination; 0 without points
	// MaxBatch is the largest batch the profile covers: the largest measured, or for a fitted
	// line alone, the model's limit.
	MaxBatch int `json:"max_batch"`
}

// ParseLatencyProfile reads a CSV with a batch_size column and a latency column in
// milliseconds (latency_ms), microseconds (latency_us) or seconds (latency_s), and fits α + β·b
// to it by least squares. Errors name the line and column.
func ParseLatencyProfile(data []byte) (LatencyProfile, error) {
	r := csv.NewReader(bytes.NewReader(data))
	r.FieldsPerRecord = -1
	header, err := r.Read()
	if err != nil {
		return LatencyProfile{}, gpucost.Errorf(gpucost.EInvalid, "latency profile: reading the header: %v; give batch_size,latency_ms", err)
	}
	bcol, lcol, unit := -1, -1, time.Duration(0)
	for i, h := range header {
		switch strings.ToLower(strings.TrimSpace(strings.TrimPrefix(h, "\ufeff"))) {
		case "batch_size", "batch":
			bcol = i
		case "latency_ms":
			lcol, unit = i, time.Millisecond
		case "latency_us":
			lcol, unit = i, time.Microsecond
		case "latency_s":
			lcol, unit = i, time.Second
		}
	}
	if bcol < 0 || lcol < 0 {
		return LatencyProfile{}, gpucost.Errorf(gpucost.EInvalid, "latency profile: line 1: the header needs batch_size and latency_ms (or latency_us, latency_s)")
	}
	var points []BatchPoint
	for {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return LatencyProfile{}, gpucost.Errorf(gpucost.EInvalid, "latency profile: %v", err)
		}
		line, _ := r.FieldPos(0)
		p, err := profilePoint(rec, bcol, lcol, unit, line)
		if err != nil {
			return LatencyProfile{}, err
		}
		if i := slices.IndexFunc(points, func(q BatchPoint) bool { return q.Batch == p.Batch }); i >= 0 {
			return LatencyProfile{}, gpucost.Errorf(gpucost.EInvalid, "latency profile: line %d: batch size %d appears twice; give one latency per batch size", line, p.Batch)
		}
		points = append(points, p)
	}
	return NewLatencyProfile(points)
}

func profilePoint(rec []string, bcol, lcol int, unit time.Duration, line int) (BatchPoint, error) {
	if bcol >= len(rec) || lcol >= len(rec) {
		return BatchPoint{}, gpucost.Errorf(gpucost.EInvalid, "latency profile: line %d: too few columns", line)
	}
	b, err := strconv.Atoi(strings.TrimSpace(rec[bcol]))
	if err != nil || b < 1 || b > 1<<20 {
		return BatchPoint{}, gpucost.Errorf(gpucost.EInvalid, "latency profile: line %d column %d: batch size %q: give a whole number from 1", line, bcol+1, rec[bcol])
	}
	l, err := strconv.ParseFloat(strings.TrimSpace(rec[lcol]), 64)
	if err != nil || l <= 0 || math.IsInf(l, 0) || l*float64(unit) > float64(time.Hour) {
		return BatchPoint{}, gpucost.Errorf(gpucost.EInvalid, "latency profile: line %d column %d: latency %q: give a positive time under an hour", line, lcol+1, rec[lcol])
	}
	return BatchPoint{Batch: b, Latency: time.Duration(l * float64(unit))}, nil
}

// NewLatencyProfile sorts measured points and fits α + β·b to them by least squares.
func NewLatencyProfile(points []BatchPoint) (LatencyProfile, error) {
	if len(points) == 0 {
		return LatencyProfile{}, gpucost.Errorf(gpucost.EInvalid, "latency profile: no measurements; give batch_size,latency_ms rows")
	}
	p := LatencyProfile{Points: slices.Clone(points)}
	slices.SortFunc(p.Points, func(a, b BatchPoint) int { return a.Batch - b.Batch })
	p.MaxBatch = p.Points[len(p.Points)-1].Batch
	n := float64(len(p.Points))
	var sx, sy, sxx, sxy float64
	for _, q := range p.Points {
		x, y := float64(q.Batch), q.Latency.Seconds()
		sx, sy, sxx, sxy = sx+x, sy+y, sxx+x*x, sxy+x*y
	}
	if d := n*sxx - sx*sx; d > 0 {
		beta := (n*sxy - sx*sy) / d
		p.Alpha, p.Beta = dur((sy-beta*sx)/n), dur(beta)
		var ssRes, ssTot float64
		for _, q := range p.Points {
			y := q.Latency.Seconds()
			f := p.Alpha.Seconds() + p.Beta.Seconds()*float64(q.Batch)
			ssRes += (y - f) * (y - f)
			ssTot += (y - sy/n) * (y - sy/n)
		}
		if ssTot > 0 {
			p.R2 = 1 - ssRes/ssTot
		}
	} else {
		p.Alpha = p.Points[0].Latency
	}
	return p, nil
}

// FittedProfile is the latency line α + β·b up to maxBatch, without measurements.
func FittedProfile(alpha, beta time.Duration, maxBatch int) (LatencyProfile, error) {
	if alpha < 0 || beta < 0 || alpha+beta <= 0 || maxBatch < 1 {
		return LatencyProfile{}, gpucost.Errorf(gpucost.EInvalid, "latency line α = %v, β = %v up to batch %d: give α, β ≥ 0, not both zero, and a maximum batch of 1 or more", alpha, beta, maxBatch)
	}
	return LatencyProfile{Alpha: alpha, Beta: beta, MaxBatch: maxBatch}, nil
}

// Service returns the time one replica takes for a batch of b (1 ≤ b ≤ MaxBatch): measured,
// interpolated between measurements, or from the line below the smallest measured size and
// without measurements.
func (p LatencyProfile) Service(b float64) time.Duration {
	pts := p.Points
	if len(pts) == 0 || b < float64(pts[0].Batch) {
		line := p.Alpha + dur(p.Beta.Seconds()*b)
		if len(pts) > 0 {
			line = min(max(line, time.Microsecond), pts[0].Latency)
		}
		return line
	}
	i, _ := slices.BinarySearchFunc(pts, b, func(q BatchPoint, b float64) int { return cmpFloat(float64(q.Batch), b) })
	if i < len(pts) && float64(pts[i].Batch) == b || i == len(pts) {
		return pts[min(i, len(pts)-1)].Latency
	}
	lo, hi := pts[i-1], pts[i]
	f := (b - float64(lo.Batch)) / float64(hi.Batch-lo.Batch)
	return lo.Latency + dur(f*(hi.Latency-lo.Latency).Seconds())
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// candidates are the batch sizes the planner tries: the measured ones, or powers of two and
// the maximum for a fitted line, up to limit.
func (p LatencyProfile) candidates(limit int) []int {
	var out []int
	if len(p.Points) > 0 {
		for _, q := range p.Points {
			out = append(out, q.Batch)
		}
	} else {
		for b := 1; b < p.MaxBatch; b *= 2 {
			out = append(out, b)
		}
		out = append(out, p.MaxBatch)
	}
	if limit > 0 {
		out = slices.DeleteFunc(out, func(b int) bool { return b > limit })
	}
	return out
}

// MarshalJSON writes the profile's durations in seconds.
func (p LatencyProfile) MarshalJSON() ([]byte, error) {
	type plain LatencyProfile
	return json.Marshal(struct {
		AlphaS float64 `json:"alpha_s"`
		BetaS  float64 `json:"beta_s"`
		plain
	}{p.Alpha.Seconds(), p.Beta.Seconds(), plain(p)})
}

// MarshalJSON writes the latency in seconds.
func (q BatchPoint) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Batch    int     `json:"batch_size"`
		LatencyS float64 `json:"latency_s"`
	}{q.Batch, q.Latency.Seconds()})
}

// String describes the profile for people.
func (p LatencyProfile) String() string {
	s := fmt.Sprintf("s(b) ≈ %v + %v·b", p.Alpha.Round(time.Microsecond), p.Beta.Round(time.Microsecond))
	if len(p.Points) > 0 {
		s += fmt.Sprintf(" (least squares over %d measurements, R² = %.3f; measured points used as given)", len(p.Points), p.R2)
	}
	return s
}
