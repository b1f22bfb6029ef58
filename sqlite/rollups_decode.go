package sqlite

import (
	"encoding/binary"
	"math"
	"math/bits"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/internal/storeutil"
)

// rowBuf holds the rollups decoded from one packed row (see rollups_codec.go). Series, Start and
// Width are left to the caller.
type rowBuf struct {
	n     int                      // rollups in the row
	slot  [maxSlots]int            // rollup k's slot in the row
	rs    [maxSlots]gpucost.Rollup // the rollups
	hists [maxSlots]histBuf
	reuse bool // keep histograms from row to row (a scan); otherwise each row gets new ones

	ints   [maxSlots]uint64
	floats [maxSlots]float64
}

// histBuf is one rollup's histogram and the bins the last decode set; the others are zero.
type histBuf struct {
	bins   []uint32
	lo, hi int
}

// decodeRow decodes the packed row data into rb.
func decodeRow(data []byte, rb *rowBuf) error {
	format, i := uv(data, 0)
	present, i := uv(data, i)
	if format != rowFormat || i < 0 || present>>maxSlots != 0 {
		return errCorrupt
	}
	n := 0
	for p := present; p != 0; p &= p - 1 {
		rb.slot[n] = bits.TrailingZeros64(p)
		n++
	}
	rb.n = n
	for col := range numIntCols {
		if i = decodeInts(data, i, rb.ints[:n]); i < 0 {
			return errCorrupt
		}
		rb.setInts(col)
	}
	for col := range numFloatCols {
		if i = decodeFloats(data, i, rb.floats[:n]); i < 0 {
			return errCorrupt
		}
		rb.setFloats(col)
	}
	withHist, i := uv(data, i)
	if i < 0 || withHist>>n != 0 {
		return errCorrupt
	}
	for k := range n {
		rb.rs[k].UtilHist = nil
		if withHist&(1<<k) != 0 {
			if i = rb.hists[k].read(data, i, rb.reuse); i < 0 {
				return errCorrupt
			}
			rb.rs[k].UtilHist = rb.hists[k].bins
		}
	}
	if i != len(data) {
		return errCorrupt
	}
	return nil
}

// rowCount returns how many rollups the packed row data holds.
func rowCount(data []byte) int {
	_, i := uv(data, 0)
	present, _ := uv(data, i)
	return bits.OnesCount64(present)
}

// decodeInts reads an integer column of len(out) values at i and returns the offset after it,
// -1 if it is corrupt.
func decodeInts(b []byte, i int, out []uint64) int {
	if uint(i) >= uint(len(b)) {
		return -1
	}
	head := int(b[i])
	i++
	switch head & (modeMask | hasNaN) {
	case modeConst:
		var v uint64
		v, i = uv(b, i)
		for k := range out {
			out[k] = v
		}
		return i
	case modeUint:
		w := 1 << (head & widthMask >> 3)
		if i+w*len(out) > len(b) {
			return -1
		}
		widen(b[i:i+w*len(out)], w, out)
		return i + w*len(out)
	}
	return -1
}

// decodeFloats reads a float column of len(out) values at i and returns the offset after it,
// -1 if it is corrupt.
func decodeFloats(b []byte, i int, out []float64) int {
	if uint(i) >= uint(len(b)) {
		return -1
	}
	head := int(b[i])
	i++
	mode, w := head&modeMask, 1<<(head&widthMask>>3)
	if mode == modeConst {
		var v float64
		v, i = fl(b, i)
		for k := range out {
			out[k] = v
		}
		return i
	}
	var nans uint64
	if head&hasNaN != 0 {
		if nans, i = uv(b, i); i < 0 || nans>>len(out) != 0 {
			return -1
		}
	}
	m := len(out) - bits.OnesCount64(nans) // values stored
	stored := m
	if mode > modeRaw || mode == modeRaw && w != 8 || i+w*m > len(b) {
		return -1
	}
	vals := out[:m]
	src := b[i : i+w*m]
	switch mode {
	case modeUint:
		widen(src, w, vals)
	case modeCents:
		widen(src, w, vals)
		for k, v := range vals {
			vals[k] = v / 100
		}
	case modeRaw:
		for k := range vals {
			vals[k] = math.Float64frombits(binary.LittleEndian.Uint64(src[8*k:]))
		}
	}
	if nans != 0 { // spread the values out, from the end, leaving NaN where they are absent
		for k := len(out) - 1; k >= 0; k-- {
			if nans&(1<<k) != 0 {
				out[k] = math.NaN()
			} else {
				m--
				out[k] = out[m]
			}
		}
	}
	return i + w*stored
}

// widen reads len(out) little-endian unsigned integers of w bytes each from src.
func widen[T uint64 | float64](src []byte, w int, out []T) {
	switch w {
	case 1:
		src = src[:len(out)]
		for k := range out {
			out[k] = T(src[k])
		}
	case 2:
		src = src[:2*len(out)]
		for k := range out {
			out[k] = T(binary.LittleEndian.Uint16(src[2*k:]))
		}
	case 4:
		src = src[:4*len(out)]
		for k := range out {
			out[k] = T(binary.LittleEndian.Uint32(src[4*k:]))
		}
	default:
		src = src[:8*len(out)]
		for k := range out {
			out[k] = T(binary.LittleEndian.Uint64(src[8*k:]))
		}
	}
}

// setInts sets integer column col of the decoded rollups.
func (rb *rowBuf) setInts(col int) {
	rs, vs := rb.rs[:rb.n], rb.ints[:rb.n]
	switch col {
	case colSamples:
		setAll(rs, vs, func(r *gpucost.Rollup, v uint64) { r.Samples = int(v) })
	case colCoverage:
		setAll(rs, vs, func(r *gpucost.Rollup, v uint64) { r.Coverage = v })
	case colPowerSamples:
		setAll(rs, vs, func(r *gpucost.Rollup, v uint64) { r.PowerSamples = int(v) })
	case colProfSamples:
		setAll(rs, vs, func(r *gpucost.Rollup, v uint64) { r.ProfSamples = int(v) })
	case colIdleMask:
		setAll(rs, vs, func(r *gpucost.Rollup, v uint64) { r.IdleMask = v })
	case colIdleMinutes:
		setAll(rs, vs, func(r *gpucost.Rollup, v uint64) { r.IdleMinutes = int(v) })
	}
}

// setFloats sets float column col of the decoded rollups.
func (rb *rowBuf) setFloats(col int) {
	rs, vs := rb.rs[:rb.n], rb.floats[:rb.n]
	switch col {
	case colUtilSum:
		setAll(rs, vs, func(r *gpucost.Rollup, v float64) { r.UtilSum = v })
	case colUtilMax:
		setAll(rs, vs, func(r *gpucost.Rollup, v float64) { r.UtilMax = v })
	case colUtilP50:
		setAll(rs, vs, func(r *gpucost.Rollup, v float64) { r.UtilP50 = v })
	case colUtilP95:
		setAll(rs, vs, func(r *gpucost.Rollup, v float64) { r.UtilP95 = v })
	case colMemMax:
		setAll(rs, vs, func(r *gpucost.Rollup, v float64) { r.MemMaxMiB = v })
	case colMemP95:
		setAll(rs, vs, func(r *gpucost.Rollup, v float64) { r.MemP95MiB = v })
	case colMemTotal:
		setAll(rs, vs, func(r *gpucost.Rollup, v float64) { r.MemTotalMiB = v })
	case colPowerSum:
		setAll(rs, vs, func(r *gpucost.Rollup, v float64) { r.PowerSum = v })
	case colPowerMax:
		setAll(rs, vs, func(r *gpucost.Rollup, v float64) { r.PowerMax = v })
	case colTempMax:
		setAll(rs, vs, func(r *gpucost.Rollup, v float64) { r.TempMaxC = v })
	case colSMActive:
		setAll(rs, vs, func(r *gpucost.Rollup, v float64) { r.SMActiveSum = v })
	case colSMOccupancy:
		setAll(rs, vs, func(r *gpucost.Rollup, v float64) { r.SMOccupancySum = v })
	case colGrEngineActive:
		setAll(rs, vs, func(r *gpucost.Rollup, v float64) { r.GrEngineActiveSum = v })
	}
}

// setAll calls set for each rollup and its value; it and set inline into a plain loop.
func setAll[T uint64 | float64](rs []gpucost.Rollup, vs []T, set func(*gpucost.Rollup, T)) {
	vs = vs[:len(rs)]
	for k := range rs {
		set(&rs[k], vs[k])
	}
}

// read decodes one histogram at i into h and returns the offset after it, -1 if corrupt.
func (h *histBuf) read(b []byte, i int, reuse bool) int {
	if i < 0 || i+3 > len(b) {
		return -1
	}
	lo, n, code := int(b[i]), int(b[i+1]), int(b[i+2])
	i += 3
	w := 1 << code
	if lo+n > histBins || code > 2 || i+w*n > len(b) {
		return -1
	}
	if reuse && h.bins != nil {
		clear(h.bins[h.lo:h.hi])
	} else {
		h.bins = make([]uint32, histBins)
	}
	widenHist(b[i:i+w*n], w, h.bins[lo:lo+n])
	h.lo, h.hi = lo, lo+n
	return i + w*n
}

func widenHist(src []byte, w int, out []uint32) {
	switch w {
	case 1:
		src = src[:len(out)]
		for k := range out {
			out[k] = uint32(src[k])
		}
	case 2:
		src = src[:2*len(out)]
		for k := range out {
			out[k] = uint32(binary.LittleEndian.Uint16(src[2*k:]))
		}
	default:
		src = src[:4*len(out)]
		for k := range out {
			out[k] = binary.LittleEndian.Uint32(src[4*k:])
		}
	}
}

// uv reads a varint at i and returns the offset after it, -1 if there is none; it inlines. An
// offset of -1 stays -1. A varint longer than ten bytes (the encoder writes none) reads as
// garbage, not as an error.
func uv(b []byte, i int) (v uint64, next int) {
	for shift := uint(0); uint(i) < uint(len(b)); shift += 7 {
		c := b[i]
		i++
		v |= uint64(c&0x7f) << shift
		if c < 0x80 {
			return v, i
		}
	}
	return 0, -1
}

// fl reads a constant float at i (see appendFloat).
func fl(b []byte, i int) (float64, int) {
	u, i := uv(b, i)
	switch {
	case i < 0:
		return 0, -1
	case u&3 == 0:
		return float64(u >> 2), i
	case u&3 == 1:
		return float64(u>>2) / 100, i
	case u == 2:
		return math.NaN(), i
	case u == 3 && i+8 <= len(b):
		return math.Float64frombits(binary.LittleEndian.Uint64(b[i:])), i + 8
	}
	return 0, -1
}

// rowLayout says how rollups of one width are packed into rows.
type rowLayout struct {
	table string
	width time.Duration
	row   time.Duration // what one row spans
}

var (
	hourRows   = rowLayout{"hour_rollups", time.Hour, 24 * time.Hour}
	minuteRows = rowLayout{"minute_rollups", time.Minute, time.Hour}
)

// keyBits is how many low bits of a row key hold the row number (day or hour since 1970).
const keyBits = 24

// The rollups storeutil.CheckRollups lets through are those whose start hour fits a row key.
const _ = uint(storeutil.MaxStartHours-1<<keyBits) + uint(1<<keyBits-storeutil.MaxStartHours) // both ≥ 0: equal

// key returns the key of a series' row; rowNum may be 1<<keyBits, for the end of a key range.
func (l rowLayout) key(series int64, rowNum int64) int64 { return series<<keyBits + rowNum }

// rowOf returns the row number and slot of a rollup that starts at t.
func (l rowLayout) rowOf(t time.Time) (rowNum int64, slot int) {
	sec := t.Unix()
	rowSec, widthSec := int64(l.row/time.Second), int64(l.width/time.Second)
	return sec / rowSec, int(sec % rowSec / widthSec)
}

// start returns the start of slot in row rowNum.
func (l rowLayout) start(rowNum int64, slot int) time.Time {
	return time.Unix(rowNum*int64(l.row/time.Second)+int64(slot)*int64(l.width/time.Second), 0).UTC()
}
