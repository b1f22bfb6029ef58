package sqlite

import (
	"math"

	"github.com/gpucost/gpucost"
)

// billedRange is a CostFilter's BilledFrom and BilledTo prepared for scanning chunks: billing
// period starts in [from, to), each as Unix seconds and nanoseconds.
type billedRange struct {
	fromSec, fromNano, toSec, toNano int64
}

// newBilledRange returns f's billing period range, or nil when f has none.
func newBilledRange(f gpucost.CostFilter) *billedRange {
	if f.BilledFrom.IsZero() && f.BilledTo.IsZero() {
		return nil
	}
	r := &billedRange{fromSec: math.MinInt64, toSec: math.MaxInt64, toNano: math.MaxInt64}
	if !f.BilledFrom.IsZero() {
		r.fromSec, r.fromNano = f.BilledFrom.Unix(), int64(f.BilledFrom.Nanosecond())
	}
	if !f.BilledTo.IsZero() {
		r.toSec, r.toNano = f.BilledTo.Unix(), int64(f.BilledTo.Nanosecond())
	}
	return r
}

// ok reports whether line i of the chunk d holds, whose billing period columns are decoded, is
// billed in the range; a nil range holds every line.
func (r *billedRange) ok(d *chunkDecoder, i int) bool {
	if r == nil {
		return true
	}
	sec, nano := d.vals[numStrCols+intBillingSec][i], d.vals[numStrCols+intBillingNano][i]
	return (sec > r.fromSec || sec == r.fromSec && nano >= r.fromNano) &&
		(sec < r.toSec || sec == r.toSec && nano < r.toNano)
}

// filterColumns are the value columns decode reads to select a chunk's lines, before the rest.
func (cf *costFilter) filterColumns() []int {
	cols := []int{colProvider, colResourceID, numStrCols + intStartSec, numStrCols + intStartNano}
	if cf.billed != nil {
		cols = append(cols, numStrCols+intBillingSec, numStrCols+intBillingNano)
	}
	return cols
}
