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
//	uvarint bins that are not zero, byte w; each bin: a byte, bin − the previous bin's, and its
//	  count in w bytes, little-endian
//
// A column starts with its mode: colZero (every value 0, no more bytes), colSame (one value for
// all hours, a uvarint or a float), colEach+w−1 (a value an hour in w bytes, little-endian,
// w = 1…8: the fewest bytes that hold the largest) or, for a float column whose values are
// not all whole, colBits (each value's 8 bytes, little-endian). A float column of whole values
// below 2^52, sums of whole percents most often, is an int column of those values. A float
// alone is uvarint 2v for a whole v below 2^52, else uvarint 1 and its 8 bytes, little-endian,
// so that every value comes back bit for bit. Values of fixed width decode without a branch
// per byte, where format 2's uvarint columns cost about 800 ns a day (docs/architecture.md
// "Speed of the reports").
const dayFormat = 3

// The modes of a column.
const (
	colZero = iota
	colSame
	colEach // colEach+w−1 for values of w bytes, up to colEach+7
	colBits = colEach + 8
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
		b = appendInts(b, vs[:n])
	}
	col(func(i int) uint64 { return d.Hours[i].Coverage ^ fullHour })
	col(func(i int) uint64 { return d.Hours[i].IdleMask })
	for _, f := range dayCounts {
		col(func(i int) uint64 { return uint64(*f(&d.Hours[i])) })
	}
	var fs [24]float64
	for _, f := range dayFloats {
		for i := range n {
			fs[i] = *f(&d.Hours[i])
		}
		b = appendFloats(b, fs[:n])
	}
	for _, v := range [...]float64{d.UtilMax, d.MemMaxMiB, d.MemP95MiB, d.MemTotalMiB, d.PowerMax, d.TempMaxC} {
		b = appendDayFloat(b, v)
	}
	bins, most := 0, uint64(0)
	for _, c := range d.UtilHist {
		if c != 0 {
			bins++
			most = max(most, c)
		}
	}
	w := width(most)
	b = binary.AppendUvarint(b, uint64(bins))
	b = append(b, byte(w))
	prev := 0
	for i, c := range d.UtilHist {
		if c != 0 {
			b = append(b, byte(i-prev))
			b = appendFixed(b, c, w)
			prev = i
		}
	}
	return b
}

// appendInts appends the int column vs.
func appendInts(b []byte, vs []uint64) []byte {
	same, most := true, uint64(0)
	for _, v := range vs {
		same = same && v == vs[0]
		most = max(most, v)
	}
	switch {
	case most == 0:
		return append(b, colZero)
	case same:
		return binary.AppendUvarint(append(b, colSame), vs[0])
	}
	w := width(most)
	b = append(b, byte(colEach+w-1))
	for _, v := range vs {
		b = appendFixed(b, v, w)
	}
	return b
}

// appendFloats appends the float column vs: as an int column where every value is whole.
func appendFloats(b []byte, vs []float64) []byte {
	same, whole := true, true
	for _, v := range vs {
		same = same && math.Float64bits(v) == math.Float64bits(vs[0])
		whole = whole && isWhole(v)
	}
	switch {
	case same && (len(vs) == 0 || math.Float64bits(vs[0]) == 0):
		return append(b, colZero)
	case same:
		return appendDayFloat(append(b, colSame), vs[0])
	case whole: // not all the same: the int column is colEach
		var is [24]uint64
		for i, v := range vs {
			is[i] = uint64(v)
		}
		return appendInts(b, is[:len(vs)])
	}
	b = append(b, colBits)
	for _, v := range vs {
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(v))
	}
	return b
}

// isWhole reports whether v is a whole number from 0 to 2^52, not −0: a float an int keeps.
func isWhole(v float64) bool {
	return v >= 0 && v < 1<<52 && v == math.Trunc(v) && !math.Signbit(v)
}

// width returns the bytes that hold v, at least 1.
func width(v uint64) int {
	return max(1, (bits.Len64(v)+7)/8)
}

// appendFixed appends v's w low bytes, little-endian.
func appendFixed(b []byte, v uint64, w int) []byte {
	for range w {
		b = append(b, byte(v))
		v >>= 8
	}
	return b
}

func appendDayFloat(b []byte, v float64) []byte {
	if isWhole(v) {
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
		// Field by field: a DayHour literal is made on the stack and copied 16 bytes at a time,
		// each copy waiting for the two 8-byte stores it reads (about 250 ns a day).
		h := &d.Hours[i]
		h.Hour, h.Coverage, h.IdleMask = bits.TrailingZeros64(hours), cov[i]^fullHour, idle[i]
		h.Samples, h.PowerSamples, h.ProfSamples = int(samples[i]), int(power[i]), int(prof[i])
		h.UtilSum, h.PowerSum, h.SMActiveSum = util[i], powerSum[i], smActive[i]
		h.SMOccupancySum, h.GrEngineActiveSum = smOcc[i], grEngine[i]
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
	switch mode := r.byte(); {
	case mode == colZero:
		clear(vs)
	case mode == colSame:
		v := r.uvarint()
		for i := range vs {
			vs[i] = v
		}
	case mode >= colEach && mode < colBits:
		r.fixed(vs, int(mode-colEach)+1)
	default:
		r.bad = true
	}
}

// floats reads a float column into vs, one value an hour.
func (r *dayReader) floats(vs []float64) {
	switch mode := r.byte(); {
	case mode == colZero:
		clear(vs)
	case mode == colSame:
		v := r.float()
		for i := range vs {
			vs[i] = v
		}
	case mode >= colEach && mode < colBits:
		var is [24]uint64
		r.fixed(is[:len(vs)], int(mode-colEach)+1)
		for i := range vs {
			vs[i] = float64(is[i])
		}
	case mode == colBits:
		var is [24]uint64
		r.fixed(is[:len(vs)], 8)
		for i := range vs {
			vs[i] = math.Float64frombits(is[i])
		}
	default:
		r.bad = true
	}
}

// fixed reads len(vs) values of w bytes each, little-endian: each from one 8-byte load where
// 8 bytes are left.
func (r *dayReader) fixed(vs []uint64, w int) {
	if len(r.b)-r.i < len(vs)*w {
		r.bad = true
		return
	}
	mask := uint64(1)<<(8*uint(w)) - 1 // all bits when w is 8: a shift by 64 gives 0
	for k := range vs {
		if r.i+8 <= len(r.b) {
			vs[k] = binary.LittleEndian.Uint64(r.b[r.i:]) & mask
		} else {
			var v uint64
			for j := w - 1; j >= 0; j-- {
				v = v<<8 | uint64(r.b[r.i+j])
			}
			vs[k] = v
		}
		r.i += w
	}
}

// hist reads the day's utilisation histogram: its non-zero bins, each as the gap from the last
// and its count of w bytes.
func (r *dayReader) hist(h *[gpucost.HistBins]uint64) error {
	*h = [gpucost.HistBins]uint64{}
	bins := r.uvarint()
	w := int(r.byte())
	if bins > gpucost.HistBins || w < 1 || w > 8 || r.bad || uint64(len(r.b)-r.i) < bins*uint64(1+w) {
		return ErrCorruptDay
	}
	mask := uint64(1)<<(8*uint(w)) - 1
	b, bin := r.b[r.i:r.i+int(bins)*(1+w)], 0
	r.i += len(b)
	for len(b) > 0 {
		bin += int(b[0])
		if bin >= gpucost.HistBins {
			return ErrCorruptDay
		}
		if len(b) >= 9 {
			h[bin] = binary.LittleEndian.Uint64(b[1:]) & mask
		} else {
			var v uint64
			for j := w; j >= 1; j-- {
				v = v<<8 | uint64(b[j])
			}
			h[bin] = v
		}
		b = b[1+w:]
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
