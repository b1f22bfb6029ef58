package fleet

import (
	"math"
	"math/big"

	"github.com/gpucost/gpucost"
)

// Source says where the price of a figure's GPU-hours came from.
type Source string

// Price sources.
const (
	SourceBill    Source = "bill"    // every GPU-hour priced by the bill line that covers it
	SourceCatalog Source = "catalog" // every GPU-hour priced at the catalog's on-demand price
	SourceMixed   Source = "mixed"   // some of each
	SourceNone    Source = ""        // nothing priced
)

// with returns the source of a figure that adds GPU-hours priced by o to ones priced by s.
func (s Source) with(o Source) Source {
	switch {
	case s == o || o == SourceNone:
		return s
	case s == SourceNone:
		return o
	}
	return SourceMixed
}

// Describe says in words how a figure's GPU-hours were priced, for the reports' notes.
func (s Source) Describe() string {
	switch s {
	case SourceBill:
		return "the bill's effective cost of each GPU-hour"
	case SourceCatalog:
		return "catalog on-demand prices (no bill line covers these GPU-hours)"
	case SourceMixed:
		return "the bill's effective cost where a bill line covers the GPU-hour, catalog on-demand prices elsewhere"
	}
	return "nothing priced"
}

// scale returns m × num ÷ den, rounded half away from zero to the nano-unit.
func scale(m gpucost.Money, num, den int64) gpucost.Money {
	q := new(big.Rat).SetFrac(new(big.Int).Mul(big.NewInt(m.Nanos), big.NewInt(num)), big.NewInt(den))
	n, d := new(big.Int).Abs(q.Num()), q.Denom()
	n.Add(n.Mul(n, big.NewInt(2)), d)
	n.Quo(n, new(big.Int).Mul(d, big.NewInt(2)))
	if !n.IsInt64() {
		n.SetInt64(math.MaxInt64)
	}
	v := n.Int64()
	if q.Sign() < 0 {
		v = -v
	}
	return gpucost.Money{Nanos: v, Currency: m.Currency}
}
