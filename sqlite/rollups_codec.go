package sqlite

import (
	"encoding/binary"
	"errors"
	"math"
	"math/bits"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/internal/storeutil"
)

// A packed row holds the rollups of one series in one row period: the 24 hours of a UTC day or
// the 60 minutes of an hour. It is stored column by column, so that a field that is the same all
// day (the sample count, the memory total, absent profiling) takes a few bytes a row and the
// others decode in tight loops without a branch per byte:
//
//	row       = format(1) present column×19 hists
//	present   = varint; bit i: slot i holds a rollup. The n rollups follow in slot order.
//	column    = header value…  the n values of one field, in the order of the column constants
//	hists     = varint bitmap of the rollups (by rank) that have a UtilHist, then for each:
//	            lo n width count×n — bins lo … lo+n-1, counts width bytes each; other bins zero
//
// A column header byte holds a mode (bits 0–2), a width code (bits 3–4: 1, 2, 4 or 8 bytes,
// little-endian) and, in bit 5, that a varint bitmap of NaN values follows (the values then
// skip those rollups):
//
//	modeConst   one value for all, as a varint (integer columns) or a float (see appendFloat)
//	modeUint    unsigned integers of the width
//	modeCents   unsigned integers of the width, each 100 times the value (power in watts with
//	            two decimals, as nvidia-smi prints it)
//	modeRaw     the IEEE 754 bits, 8 bytes
//
// Every value round-trips exactly. Typical hourly rollups take about 35 bytes with their
// histogram.
const rowFormat = 1

// The columns of a row, in order. Integer columns hold int or uint64 fields; the rest floats.
const (
	colSamples = iota
	colCoverage
	colPowerSamples
	colProfSamples
	colIdleMask
	colIdleMinutes
	numIntCols
)

// The float columns, after the integer ones.
const (
	colUtilSum = iota
	colUtilMax
	colUtilP50
	colUtilP95
	colMemMax
	colMemP95
	colMemTotal
	colPowerSum
	colPowerMax
	colTempMax
	colSMActive
	colSMOccupancy
	colGrEngineActive
	numFloatCols
)

// Column modes and flags.
const (
	modeConst = iota
	modeUint
	modeCents
	modeRaw
	modeMask  = 7
	widthMask = 3 << 3
	hasNaN    = 1 << 5
)

const (
	allSlots = 1<<60 - 1
	maxSlots = 60
	histBins = storeutil.HistBins
)

var errCorrupt = errors.New("corrupt packed rollups")

func intField(r *gpucost.Rollup, col int) uint64 {
	switch col {
	case colSamples:
		return uint64(r.Samples)
	case colCoverage:
		return r.Coverage
	case colPowerSamples:
		return uint64(r.PowerSamples)
	case colProfSamples:
		return uint64(r.ProfSamples)
	case colIdleMask:
		return r.IdleMask
	}
	return uint64(r.IdleMinutes)
}

// floatFields returns r's float columns, in column order.
func floatFields(r *gpucost.Rollup) [numFloatCols]float64 {
	return [numFloatCols]float64{r.UtilSum, r.UtilMax, r.UtilP50, r.UtilP95, r.MemMaxMiB, r.MemP95MiB,
		r.MemTotalMiB, r.PowerSum, r.PowerMax, r.TempMaxC, r.SMActiveSum, r.SMOccupancySum, r.GrEngineActiveSum}
}

// encodeRow packs slots[i] for each bit i of present into a row, appended to b[:0].
func encodeRow(b []byte, slots []gpucost.Rollup, present uint64) []byte {
	b = append(b[:0], rowFormat)
	b = binary.AppendUvarint(b, present)
	rs := make([]*gpucost.Rollup, 0, bits.OnesCount64(present))
	for p := present; p != 0; p &= p - 1 {
		rs = append(rs, &slots[bits.TrailingZeros64(p)])
	}
	var ints [maxSlots]uint64
	for col := range numIntCols {
		for k, r := range rs {
			ints[k] = intField(r, col)
		}
		b = appendIntColumn(b, ints[:len(rs)])
	}
	var floats [numFloatCols][maxSlots]float64 // by column, then slot: each rollup read once
	for k, r := range rs {
		for col, v := range floatFields(r) {
			floats[col][k] = v
		}
	}
	for col := range numFloatCols {
		b = appendFloatColumn(b, floats[col][:len(rs)])
	}
	var withHist uint64
	for k, r := range rs {
		if r.UtilHist != nil {
			withHist |= 1 << k
		}
	}
	b = binary.AppendUvarint(b, withHist)
	for _, r := range rs {
		if r.UtilHist != nil {
			b = appendHist(b, r.UtilHist)
		}
	}
	return b
}

func appendIntColumn(b []byte, vs []uint64) []byte {
	mx := uint64(0)
	same := true
	for _, v := range vs {
		mx = max(mx, v)
		same = same && v == vs[0]
	}
	if same {
		return binary.AppendUvarint(append(b, modeConst), vs[0])
	}
	w := widthCode(mx)
	b = append(b, byte(modeUint|int(w)<<3))
	for _, v := range vs {
		b = appendUint(b, v, w)
	}
	return b
}

// appendFloatColumn picks the smallest mode that holds every value exactly.
func appendFloatColumn(b []byte, vs []float64) []byte {
	same := true
	var nans uint64
	for k, v := range vs {
		same = same && math.Float64bits(v) == math.Float64bits(vs[0])
		if isNaN(v) {
			nans |= 1 << k
		}
	}
	if same {
		return appendFloat(append(b, modeConst), vs[0])
	}
	mode, w := fitColumn(vs)
	head := byte(mode | w<<3)
	if nans != 0 {
		head |= hasNaN
	}
	b = append(b, head)
	if nans != 0 {
		b = binary.AppendUvarint(b, nans)
	}
	for _, v := range vs {
		switch {
		case isNaN(v):
		case mode == modeUint:
			b = appendUint(b, uint64(v), uint(w))
		case mode == modeCents:
			n, _ := cents(v)
			b = appendUint(b, n, uint(w))
		default:
			b = binary.LittleEndian.AppendUint64(b, math.Float64bits(v))
		}
	}
	return b
}

// fitColumn returns the mode and width code that hold the values that are not NaN.
func fitColumn(vs []float64) (mode int, w int) {
	mx, whole, hundredths := uint64(0), true, true
	for _, v := range vs {
		if isNaN(v) {
			continue
		}
		whole = whole && isUint(v) && v < 1<<32
		n, ok := cents(v)
		hundredths = hundredths && ok
		if whole {
			mx = max(mx, uint64(v))
		} else if hundredths {
			mx = max(mx, n)
		}
	}
	switch {
	case whole:
		return modeUint, int(widthCode(mx))
	case hundredths:
		mx = 0
		for _, v := range vs {
			if n, ok := cents(v); ok {
				mx = max(mx, n)
			}
		}
		return modeCents, int(widthCode(mx))
	}
	return modeRaw, 3
}

// isUint reports whether v is a non-negative whole number below 2^53, not -0.
func isUint(v float64) bool {
	return v >= 0 && v < 1<<53 && !math.Signbit(v) && v == math.Trunc(v)
}

// cents returns v×100 as an integer, if that integer divided by 100 gives back v exactly.
func cents(v float64) (uint64, bool) {
	if !(v >= 0 && v < 1<<40) || math.Signbit(v) {
		return 0, false
	}
	n := uint64(math.Round(v * 100))
	return n, float64(n)/100 == v
}

// widthCode returns the code of the smallest width of 1, 2, 4 or 8 bytes that holds mx.
func widthCode(mx uint64) uint {
	switch {
	case mx < 1<<8:
		return 0
	case mx < 1<<16:
		return 1
	case mx < 1<<32:
		return 2
	}
	return 3
}

func appendUint(b []byte, v uint64, w uint) []byte {
	switch w {
	case 0:
		return append(b, byte(v))
	case 1:
		return binary.LittleEndian.AppendUint16(b, uint16(v))
	case 2:
		return binary.LittleEndian.AppendUint32(b, uint32(v))
	}
	return binary.LittleEndian.AppendUint64(b, v)
}

// appendFloat appends v as one varint u: u&3 = 0 → u>>2, a whole number; 1 → (u>>2)/100;
// u = 2 → NaN; u = 3 → the 8 bytes that follow are the IEEE bits. It is used for constants.
func appendFloat(b []byte, v float64) []byte {
	switch {
	case isUint(v) && v < 1<<50:
		return binary.AppendUvarint(b, uint64(v)<<2)
	case isCents(v):
		n, _ := cents(v)
		return binary.AppendUvarint(b, n<<2|1)
	case isNaN(v):
		return append(b, 2)
	}
	return binary.LittleEndian.AppendUint64(append(b, 3), math.Float64bits(v))
}

// appendHist appends the histogram's non-zero range with the narrowest width for its counts.
func appendHist(b []byte, h []uint32) []byte {
	lo, hi := 0, len(h)
	for lo < hi && h[lo] == 0 {
		lo++
	}
	for hi > lo && h[hi-1] == 0 {
		hi--
	}
	mx := uint32(0)
	for _, c := range h[lo:hi] {
		mx = max(mx, c)
	}
	w := widthCode(uint64(mx))
	b = append(b, byte(lo), byte(hi-lo), byte(w))
	for _, c := range h[lo:hi] {
		b = appendUint(b, uint64(c), w)
	}
	return b
}

func isCents(v float64) bool {
	_, ok := cents(v)
	return ok
}

func isNaN(v float64) bool { return v != v }
