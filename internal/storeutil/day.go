package storeutil

import (
	"encoding/binary"
	"errors"
	"math"
	"math/bits"
	"time"

	"github.com/gpucost/gpucost"
)

// The encoding of a gpucost.DayRollup, the data of both stores' day_rollups rows, without its
// series and day (the row's key holds them):
//
//	format byte (dayFormat)
//	uvarint hours: bit h set when the day holds hour h
//	int columns, each over the hours in order: Coverage XOR fullHour (0 for a whole hour),
//	  IdleMask, Samples, PowerSamples, ProfSamples
//	float columns likewise: UtilSum, PowerSum, SMActiveSum, SMOccupancySum, GrEngineActiveSum
//	float UtilMax, MemMaxMiB, MemP95MiB, MemTotalMiB, PowerMax, TempMaxC
//	uvarint bins that are not zero; each: uvarint bin − the previous bin's, uvarint count
//
// A column starts with its mode: colZero (every value 0, no more bytes), colSame (one value for
// all hours) or colEach (a value an hour): most of a day's hours cover every minute with as
// many samples, so most columns take a byte or a few. A float is uvarint 2v for a whole v below
// 2^52 (sums of whole percents, most often), else uvarint 1 and its 8 bytes, little-endian, so
// that every value comes back bit for bit.
const dayFormat = 2

// The modes of a column.
const (
	colZero = iota
	colSame
	colEach
)

// fullHour is the coverage of an hour all of whose minutes held samples.
const fullHour = 1<<60 - 1

// ErrCorruptDay is returned for day rollup data that does not decode.
var ErrCorruptDay = errors.New("corrupt day rollup")

// The columns of a day, as functions from an hour to its field.
var (
	dayCounts = [...]func(h *gpucost.DayHour) *int{
		func(h *gpucost.DayHour) *int { return &h.Samples },
		func(h *gpucost.DayHour) *int { return &h.PowerSamples },
		func(h *gpucost.DayHour) *int { return &h.ProfSamples },
	}
	dayFloats = [...]func(h *gpucost.DayHour) *float64{
		func(h *gpucost.DayHour) *float64 { return &h.UtilSum },
		func(h *gpucost.DayHour) *float64 { return &h.PowerSum },
		func(h *gpucost.DayHour) *float64 { return &h.SMActiveSum },
		func(h *gpucost.DayHour) *float64 { return &h.SMOccupancySum },
		func(h *gpucost.DayHour) *float64 { return &h.GrEngineActiveSum },
	}
)

// AppendDay appends the encoding of d to b.
func AppendDay(b []byte, d *gpucost.DayRollup) []byte {
	b = append(b, dayFormat)
	var hours uint64
	for i := range d.Hours {
		hours |= 1 << uint(d.Hours[i].Hour)
	}
	b = binary.AppendUvarint(b, hours)
	var vs [24]uint64
	n := len(d.Hours)
	col := func(get func(i int) uint64) {
		for i := range n {
			vs[i] = get(i)
		}
		b = appendColumn(b, vs[:n], func(b []byte, v uint64) []byte { return binary.AppendUvarint(b, v) })
	}
	col(func(i int) uint64 { return d.Hours[i].Coverage ^ fullHour })
	col(func(i int) uint64 { return d.Hours[i].IdleMask })
	for _, f := range dayCounts {
		col(func(i int) uint64 { return uint64(*f(&d.Hours[i])) })
	}
	for _, f := range dayFloats {
		for i := range n {
			vs[i] = math.Float64bits(*f(&d.Hours[i]))
		}
		b = appendColumn(b, vs[:n], func(b []byte, v uint64) []byte { return appendDayFloat(b, math.Float64frombits(v)) })
	}
	for _, v := range [...]float64{d.UtilMax, d.MemMaxMiB, d.MemP95MiB, d.MemTotalMiB, d.PowerMax, d.TempMaxC} {
		b = appendDayFloat(b, v)
	}
	bins := 0
	for _, c := range d.UtilHist {
		if c != 0 {
			bins++
		}
	}
	b = binary.AppendUvarint(b, uint64(bins))
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

// appendColumn appends the column vs (values as bits), each value written by put.
func appendColumn(b []byte, vs []uint64, put func([]byte, uint64) []byte) []byte {
	same, zero := true, true
	for _, v := range vs {
		same = same && v == vs[0]
		zero = zero && v == 0
	}
	switch {
	case zero:
		return append(b, colZero)
	case same:
		return put(append(b, colSame), vs[0])
	}
	b = append(b, colEach)
	for _, v := range vs {
		b = put(b, v)
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
// are and reuses d.Hours' array. Each column is read into an array of its own and the hours
// are filled from the arrays at once, where a field at a time through dayCounts and dayFloats
// cost an indirect call per hour and column (docs/architecture.md "Speed of the reports").
func DecodeDay(data []byte, d *gpucost.DayRollup) error {
	r := dayReader{b: data}
	if r.byte() != dayFormat {
		return ErrCorruptDay
	}
	hours := r.uvarint()
	if hours>>24 != 0 {
		return ErrCorruptDay
	}
	n := bits.OnesCount64(hours)
	var cov, idle, samples, power, prof [24]uint64
	r.ints(cov[:n])
	r.ints(idle[:n])
	r.ints(samples[:n])
	r.ints(power[:n])
	r.ints(prof[:n])
	var util, powerSum, smActive, smOcc, grEngine [24]float64
	r.floats(util[:n])
	r.floats(powerSum[:n])
	r.floats(smActive[:n])
	r.floats(smOcc[:n])
	r.floats(grEngine[:n])
	if r.bad {
		return ErrCorruptDay
	}
	if cap(d.Hours) < n {
		d.Hours = make([]gpucost.DayHour, n, 24)
	}
	d.Hours = d.Hours[:n]
	for i := range d.Hours {
		if samples[i]|power[i]|prof[i] > math.MaxInt64 {
			return ErrCorruptDay
		}
		d.Hours[i] = gpucost.DayHour{Hour: bits.TrailingZeros64(hours), Coverage: cov[i] ^ fullHour, IdleMask: idle[i],
			Samples: int(samples[i]), PowerSamples: int(power[i]), ProfSamples: int(prof[i]),
			UtilSum: util[i], PowerSum: powerSum[i], SMActiveSum: smActive[i], SMOccupancySum: smOcc[i],
			GrEngineActiveSum: grEngine[i]}
		hours &= hours - 1
	}
	d.UtilMax, d.MemMaxMiB, d.MemP95MiB = r.float(), r.float(), r.float()
	d.MemTotalMiB, d.PowerMax, d.TempMaxC = r.float(), r.float(), r.float()
	if err := r.hist(&d.UtilHist); err != nil {
		return err
	}
	if r.bad || r.i != len(r.b) {
		return ErrCorruptDay
	}
	return nil
}

// ints reads an int column into vs, one value an hour.
func (r *dayReader) ints(vs []uint64) {
	switch r.byte() {
	case colZero:
		clear(vs)
	case colSame:
		v := r.uvarint()
		for i := range vs {
			vs[i] = v
		}
	case colEach:
		for i := range vs {
			vs[i] = r.uvarint()
		}
	default:
		r.bad = true
	}
}

// floats reads a float column into vs, one value an hour.
func (r *dayReader) floats(vs []float64) {
	switch r.byte() {
	case colZero:
		clear(vs)
	case colSame:
		v := r.float()
		for i := range vs {
			vs[i] = v
		}
	case colEach:
		for i := range vs {
			vs[i] = r.float()
		}
	default:
		r.bad = true
	}
}

// hist reads the day's utilisation histogram: its non-zero bins, each as the gap from the last
// and its count.
func (r *dayReader) hist(h *[gpucost.HistBins]uint64) error {
	*h = [gpucost.HistBins]uint64{}
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
		h[bin] = r.uvarint()
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

// uvarint reads a uvarint: those of up to 8 bytes (values below 2^56, the day's sums and counts)
// from one 8-byte load, the rest as encoding/binary does.
func (r *dayReader) uvarint() uint64 {
	if r.i+8 <= len(r.b) {
		u := binary.LittleEndian.Uint64(r.b[r.i:])
		if u&0x80 == 0 {
			r.i++
			return u & 0x7f
		}
		if ends := ^u & 0x8080808080808080; ends != 0 {
			n := bits.TrailingZeros64(ends)/8 + 1 // the bytes of the uvarint
			r.i += n
			u &= 1<<(8*uint(n)) - 1 // all of u when n is 8: a shift by 64 gives 0
			return u&0x7f | u>>1&(0x7f<<7) | u>>2&(0x7f<<14) | u>>3&(0x7f<<21) |
				u>>4&(0x7f<<28) | u>>5&(0x7f<<35) | u>>6&(0x7f<<42) | u>>7&(0x7f<<49)
		}
	}
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
