package plan

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/optimize/convex/lp"

	"github.com/gpucost/gpucost"
)

// layerLP solves Layer's problem as the LP with per-hour overflow variables, in standard form
// for gonum's simplex: variables c_i (bought), o_t (overflow), s_t (surplus), r_i (room under a
// limit); minimise Σ (1−d_i)·T·c_i + Σ o_t subject to Σ c_i + o_t − s_t = u_t for every hour and
// c_i + r_i = MaxUnits_i for every limited instrument. It returns the minimum in unit-hours.
func layerLP(t *testing.T, usage []float64, insts []Instrument) float64 {
	t.Helper()
	n, k := len(usage), len(insts)
	var limited []int
	for i, inst := range insts {
		if inst.MaxUnits > 0 {
			limited = append(limited, i)
		}
	}
	cols, rows := k+2*n+len(limited), n+len(limited)
	c := make([]float64, cols)
	a := mat.NewDense(rows, cols, nil)
	b := make([]float64, rows)
	for i, inst := range insts {
		c[i] = (1 - inst.Discount) * float64(n)
	}
	for h, u := range usage {
		for i := range insts {
			a.Set(h, i, 1)
		}
		c[k+h] = 1
		a.Set(h, k+h, 1)
		a.Set(h, k+n+h, -1)
		b[h] = u
	}
	for j, i := range limited {
		a.Set(n+j, i, 1)
		a.Set(n+j, k+2*n+j, 1)
		b[n+j] = insts[i].MaxUnits
	}
	opt, _, err := lp.Simplex(c, a, b, 1e-10, nil)
	if err != nil {
		t.Fatalf("simplex on usage %v, instruments %+v: %v", usage, insts, err)
	}
	return opt
}

// layerCost returns the cost in unit-hours of a Layer result, from its bands.
func layerCost(usage []float64, r LayerResult) float64 {
	total := 0.0
	for _, l := range r.Layers {
		total += (1 - l.Discount) * l.Units * float64(len(usage))
	}
	for _, u := range usage {
		total += max(u-r.Committed, 0)
	}
	return total
}

// randomInstruments returns 1–3 instruments, some limited to whole units.
func randomInstruments(rng *rand.Rand, maxLimit int) []Instrument {
	insts := make([]Instrument, 1+rng.IntN(3))
	for i := range insts {
		insts[i] = Instrument{Discount: 0.05 + 0.9*rng.Float64()}
		if rng.IntN(2) == 0 {
			insts[i].MaxUnits = float64(1 + rng.IntN(maxLimit))
		}
	}
	return insts
}

// TestLayerLPBruteForce checks the LP formulation against brute force on small series with whole
// units, where an optimum lies on whole units (every breakpoint is a usage value or a limit),
// and the greedy layering against both.
func TestLayerLPBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for trial := range 200 {
		usage := make([]float64, 1+rng.IntN(10))
		for h := range usage {
			usage[h] = float64(rng.IntN(11))
		}
		insts := randomInstruments(rng, 6)
		brute := math.Inf(1)
		var walk func(i int, units []float64)
		walk = func(i int, units []float64) {
			if i == len(insts) {
				r := priceLayers(usage, gpucost.PerHour{Nanos: 1e9}, insts, units)
				brute = min(brute, layerCost(usage, r))
				return
			}
			for u := 0.0; u <= 10 && (insts[i].MaxUnits == 0 || u <= insts[i].MaxUnits); u++ {
				walk(i+1, append(units, u))
			}
		}
		walk(0, nil)
		lpCost := layerLP(t, usage, insts)
		r, err := Layer(LayerInput{Usage: usage, OnDemand: usd(t, "1"), Instruments: insts})
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(lpCost-brute) > 1e-6 || math.Abs(layerCost(usage, r)-brute) > 1e-6 {
			t.Fatalf("trial %d: usage %v, instruments %+v: brute force %v, LP %v, Layer %v (%+v)",
				trial, usage, insts, brute, lpCost, layerCost(usage, r), r.Layers)
		}
	}
}

// TestLayerGreedyLP checks the greedy layering against the LP on longer random series with
// fractional usage and limits.
func TestLayerGreedyLP(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	for trial := range 40 {
		usage := make([]float64, 24+rng.IntN(48))
		for h := range usage {
			usage[h] = max(0, 20+8*math.Sin(float64(h)/4)+5*rng.NormFloat64())
		}
		insts := randomInstruments(rng, 25)
		want := layerLP(t, usage, insts)
		r, err := Layer(LayerInput{Usage: usage, OnDemand: usd(t, "2.5"), Instruments: insts})
		if err != nil {
			t.Fatal(err)
		}
		if got := layerCost(usage, r); math.Abs(got-want) > 1e-6*max(1, want) {
			t.Fatalf("trial %d: Layer costs %v unit-hours, LP %v (instruments %+v, layers %+v)", trial, got, want, insts, r.Layers)
		}
		bad := r.Saving.Nanos < 0 || r.SavingVsBestOnly.Nanos < 0 || r.OnDemandCost.Sub(r.PlanCost) != r.Saving ||
			math.IsNaN(r.SavingPercent)
		for _, l := range r.Layers {
			bad = bad || l.Utilisation < 0 || l.Utilisation > 1+1e-12 || l.Units < 0
		}
		if bad {
			t.Fatalf("trial %d: Layer = %+v", trial, r)
		}
	}
}

// TestLayerFigures works a case by hand: 10 hours, usage 10 ×6, 20 ×2, 30 ×2, $1 per
// unit-hour; a 3-year at 0.57 limited to 8 units, a 1-year at 0.4 and a savings plan at 0.28.
// The 3-year fills 8 (its 0.57-quantile is 10); the 1-year tops up to its 0.4-quantile, 10; the
// savings plan's 0.28-quantile, 10, is already reached. Cost: 8×0.43×10 = $34.40 + 2×0.6×10 =
// $12 + overflow 2×10 + 2×20 = $60, total $106.40 of $160 on-demand. Alone, the 1-year at 10
// costs $60 + $60 = $120 and the limited 3-year $34.40 + $80 = $114.40, the best single.
func TestLayerFigures(t *testing.T) {
	usage := []float64{10, 10, 20, 10, 30, 10, 20, 10, 30, 10}
	r, err := Layer(LayerInput{Usage: usage, OnDemand: usd(t, "1"), Instruments: []Instrument{
		{Name: "savings-plan", Discount: 0.28}, {Name: "reserved-1y", Discount: 0.4}, {Name: "reserved-3y", Discount: 0.57, MaxUnits: 8},
	}})
	if err != nil {
		t.Fatal(err)
	}
	got := []any{r.Layers[0].Name, r.Layers[0].Units, r.Layers[0].Cost.Decimal(), r.Layers[1].Name, r.Layers[1].Units,
		r.Layers[1].From, r.Layers[1].Cost.Decimal(), r.Layers[2].Units, r.PlanCost.Decimal(), r.Saving.Decimal(),
		r.BestSingle, r.BestSingleCost.Decimal(), r.SavingVsBestOnly.Decimal(), r.Layers[0].Utilisation}
	want := []any{"reserved-3y", 8.0, "34.4", "reserved-1y", 2.0, 8.0, "12", 0.0, "106.4", "53.6", "reserved-3y", "114.4", "8", 1.0}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("Layer(hand case) field %d = %v, want %v (result %+v)", i, got[i], want[i], r)
		}
	}
}

func TestLayerErrors(t *testing.T) {
	ok := []float64{1, 2, 3}
	for _, in := range []LayerInput{
		{Usage: ok, OnDemand: usd(t, "1")},
		{Usage: ok, OnDemand: usd(t, "1"), Instruments: []Instrument{{Discount: 1}}},
		{Usage: ok, OnDemand: usd(t, "1"), Instruments: []Instrument{{Discount: 0.4, MaxUnits: -1}}},
		{Usage: ok, OnDemand: usd(t, "1"), Instruments: []Instrument{{Discount: 0.4, MaxUnits: math.Inf(1)}}},
		{OnDemand: usd(t, "1"), Instruments: []Instrument{{Discount: 0.4}}},
		{Usage: []float64{-1}, OnDemand: usd(t, "1"), Instruments: []Instrument{{Discount: 0.4}}},
		{Usage: ok, Instruments: []Instrument{{Discount: 0.4}}},
	} {
		if _, err := Layer(in); gpucost.ErrorCode(err) != gpucost.EInvalid {
			t.Errorf("Layer(%+v) error = %v, want EInvalid", in, err)
		}
	}
}

func BenchmarkLayerYear(b *testing.B) {
	in := LayerInput{Usage: demoUsage(52, 3), OnDemand: usd(b, "4.10"), Instruments: []Instrument{
		{Name: "reserved-3y", Discount: 0.57, MaxUnits: 30}, {Name: "reserved-1y", Discount: 0.4}, {Name: "savings-plan", Discount: 0.28},
	}}
	for b.Loop() {
		if _, err := Layer(in); err != nil {
			b.Fatal(err)
		}
	}
}
