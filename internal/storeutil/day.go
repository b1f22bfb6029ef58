package storeutil

import (
	"encoding/binary"
	"errors"
	"math"
	"time"

	"github.com/gpucost/gpucost"
)

// The encoding of a gpucost.DayRollup, the data of both stores' day_rollups rows, without its
// series and day (the row's key holds them):
//
//	format byte (dayFormat)
//	uvarint hours
//	each hour: byte hour (0–23); uvarint coverage XOR fullHour (0 for a whole hour); uvarint
//	  idle mask; uvarint samples, power samples, prof samples; float UtilSum, PowerSum,
//	  SMActiveSum, SMOccupancySum, GrEngineActiveSum
//	float UtilMax, MemMaxMiB, MemP95MiB, MemTotalMiB, PowerMax, TempMaxC
//	uvarint bins that are not zero; each: uvarint bin − the previous bin's, uvarint count
//
// A float is uvarint 2v for a whole v below 2^52 (sums of whole percents, most often), else
// uvarint 1 and its 8 bytes, little-endian, so that every value comes back bit for bit.
const dayFormat = 1

// fullHour is the coverage of an hour all of whose minutes held samples.
const fullHour = 1<<60 - 1

// ErrCorruptDay is returned for day rollup data that does not decode.
var ErrCorruptDay = errors.New("corrupt day rollup")

// AppendDay appends the encoding of d to b.
func AppendDay(b []byte, d *gpucost.DayRollup) []byte {
	b = append(b, dayFormat)
	b = binary.AppendUvarint(b, uint64(len(d.Hours)))
	for i := range d.Hours {
		h := &d.Hours[i]
		b = append(b, byte(h.Hour))
		b = binary.AppendUvarint(b, h.Coverage^fullHour)
		b = binary.AppendUvarint(b, h.IdleMask)
		b = binary.AppendUvarint(b, uint64(h.Samples))
		b = binary.AppendUvarint(b, uint64(h.PowerSamples))
		b = binary.AppendUvarint(b, uint64(h.ProfSamples))
		for _, v := range [...]float64{h.UtilSum, h.PowerSum, h.SMActiveSum, h.SMOccupancySum, h.GrEngineActiveSum} {
			b = appendDayFloat(b, v)
		}
	}
	for _, v := range [...]float64{d.UtilMax, d.MemMaxMiB, d.MemP95MiB, d.MemTotalMiB, d.PowerMax, d.TempMaxC} {
		b = appendDayFloat(b, v)
	}
	n := 0
	for _, c := range d.UtilHist {
		if c != 0 {
			n++
		}
	}
	b = binary.AppendUvarint(b, uint64(n))
	prev := 0
	for i, c := range d.UtilHist {
		if c != 0 {
			b = binary.AppendUvarint(b, uint64(i-prev))
			b = binary.AppendUvarint(b, c)
			prev = i
		}
	}
	return b
}

func appendDayFloat(b []byte, v float64) []byte {
	if v >= 0 && v < 1<<52 && v == math.Trunc(v) && !math.Signbit(v) {
		return binary.AppendUvarint(b, uint64(v)<<1)
	}
	b = binary.AppendUvarint(b, 1)
	return binary.LittleEndian.AppendUint64(b, math.Float64bits(v))
}

// DecodeDay decodes data, as AppendDay wrote it, into d; it leaves d.Series and d.Day as they
// are and reuses d.Hours' array.
func DecodeDay(data []byte, d *gpucost.DayRollup) error {
	r := dayReader{b: data}
	if r.byte() != dayFormat {
		return ErrCorruptDay
	}
	n := r.uvarint()
	if n > 24 {
		return ErrCorruptDay
	}
	d.Hours = d.Hours[:0]
	last := -1
	for range n {
		h := gpucost.DayHour{Hour: int(r.byte())}
		if h.Hour <= last || h.Hour >= 24 {
			return ErrCorruptDay
		}
		last = h.Hour
		h.Coverage = r.uvarint() ^ fullHour
		h.IdleMask = r.uvarint()
		h.Samples, h.PowerSamples, h.ProfSamples = r.int(), r.int(), r.int()
		h.UtilSum, h.PowerSum, h.SMActiveSum = r.float(), r.float(), r.float()
		h.SMOccupancySum, h.GrEngineActiveSum = r.float(), r.float()
		d.Hours = append(d.Hours, h)
	}
	d.UtilMax, d.MemMaxMiB, d.MemP95MiB = r.float(), r.float(), r.float()
	d.MemTotalMiB, d.PowerMax, d.TempMaxC = r.float(), r.float(), r.float()
	d.UtilHist = [gpucost.HistBins]uint64{}
	bins := r.uvarint()
	if bins > gpucost.HistBins {
		return ErrCorruptDay
	}
	bin := uint64(0)
	for range bins {
		bin += r.uvarint()
		if bin >= gpucost.HistBins {
			return ErrCorruptDay
		}
		d.UtilHist[bin] = r.uvarint()
	}
	if r.bad || r.i != len(r.b) {
		return ErrCorruptDay
	}
	return nil
}

// dayReader reads the encoding of a day; bad is set once it reads past the end or a value
// out of range.
type dayReader struct {
	b   []byte
	i   int
	bad bool
}

func (r *dayReader) byte() byte {
	if r.i >= len(r.b) {
		r.bad = true
		return 0
	}
	r.i++
	return r.b[r.i-1]
}

func (r *dayReader) uvarint() uint64 {
	v, n := binary.Uvarint(r.b[min(r.i, len(r.b)):])
	if n <= 0 {
		r.bad = true
		return 0
	}
	r.i += n
	return v
}

func (r *dayReader) int() int {
	v := r.uvarint()
	if v > math.MaxInt64 {
		r.bad = true
	}
	return int(v)
}

func (r *dayReader) float() float64 {
	v := r.uvarint()
	if v&1 == 0 {
		return float64(v >> 1)
	}
	if v != 1 || r.i+8 > len(r.b) {
		r.bad = true
		return 0
	}
	r.i += 8
	return math.Float64frombits(binary.LittleEndian.Uint64(r.b[r.i-8:]))
}

// WholeDays returns the UTC days, numbered from 1970, that lie wholly in f's [From, To) (a
// zero bound is open): from lo to hi, exclusive, within the days a store holds rollups of.
func WholeDays(f gpucost.RollupFilter) (lo, hi int64) {
	const day = 24 * time.Hour
	lo, hi = 0, MaxStartHours/24+1
	if !f.From.IsZero() {
		first := f.From.UTC().Truncate(day)
		if first.Before(f.From) {
			first = first.Add(day)
		}
		lo = max(lo, first.Unix()/int64(day/time.Second))
	}
	if !f.To.IsZero() {
		hi = min(hi, max(f.To.UTC().Truncate(day).Unix(), 0)/int64(day/time.Second))
	}
	return lo, hi
}
