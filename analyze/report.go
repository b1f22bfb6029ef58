package analyze

import (
	"cmp"
	"math"
	"math/big"
	"slices"
	"strconv"
	"time"

	"github.com/gpucost/gpucost"
)

// FleetGroup is the key of a report's fleet totals.
const FleetGroup = "(fleet)"

// Report is a utilisation report: one row per group, highest idle cost first, and the fleet.
type Report struct {
	By            GroupBy          `json:"by"`
	From          time.Time        `json:"from"`
	To            time.Time        `json:"to"` // the period asked for; zero where open
	DataFrom      time.Time        `json:"data_from"`
	DataTo        time.Time        `json:"data_to"`        // the span the counted rollups cover: first start, last end
	IdleThreshold float64          `json:"idle_threshold"` // util % below which a minute counted as idle
	MinIdle       gpucost.Duration `json:"min_idle_s"`     // the shortest idle run counted in SustainedIdle
	Currency      string           `json:"currency"`       // of every amount; empty when nothing was priced

	Groups []GroupStats `json:"groups"`
	Fleet  GroupStats   `json:"fleet"`

	Rollups         int `json:"rollups"`          // rollups counted
	Outside         int `json:"outside"`          // rollups left out because they start outside [From, To)
	ForeignCurrency int `json:"foreign_currency"` // series priced in another currency than Currency, counted as unpriced
}

// HoursPerMonth is the month that Monthly scales to: 730 hours, a year's 8,760 over 12, as cloud
// price lists count it.
const HoursPerMonth = 730

// Monthly scales an amount over the report's period to a 730-hour month, rounded to the
// nano-unit. The period is [From, To) where both are set, else the span of the data; an empty
// period gives zero.
func (r Report) Monthly(m gpucost.Money) gpucost.Money {
	from, to := r.From, r.To
	if from.IsZero() || to.IsZero() {
		from, to = r.DataFrom, r.DataTo
	}
	span := to.Sub(from)
	if span <= 0 {
		return gpucost.Money{Currency: m.Currency}
	}
	q := new(big.Rat).SetFrac(new(big.Int).Mul(big.NewInt(m.Nanos), big.NewInt(HoursPerMonth*int64(time.Hour))),
		big.NewInt(int64(span)))
	return gpucost.Money{Nanos: roundRat(q), Currency: m.Currency}
}

// roundRat rounds q half away from zero to an int64, saturating beyond its range.
func roundRat(q *big.Rat) int64 {
	n, d := new(big.Int).Abs(q.Num()), q.Denom()
	n.Add(n.Mul(n, big.NewInt(2)), d) // (2|n| + d) / 2d = |q| + ½
	n.Quo(n, new(big.Int).Mul(d, big.NewInt(2)))
	if !n.IsInt64() {
		n.SetInt64(math.MaxInt64)
	}
	if q.Sign() < 0 {
		return -n.Int64()
	}
	return n.Int64()
}

// GroupStats are one group's utilisation, idle time and cost over the report's period. A MIG
// instance counts as its share of a GPU in GPU-hours and cost (see MIGShare) and its parent
// counts once in GPUs.
type GroupStats struct {
	Key   string `json:"key"`   // the GPU UUID, host, model, label value, NoneGroup or FleetGroup
	Model string `json:"model"` // the (normalised) model when all the group's series share one, else ""
	Host  string `json:"host"`  // the host when all the group's series share one, else ""

	GPUs    int   `json:"gpus"`    // distinct physical GPUs
	Series  int   `json:"series"`  // series: a GPU with one label set
	Rollups int   `json:"rollups"` // rollups counted
	Samples int64 `json:"samples"` // samples counted

	GPUHours float64 `json:"gpu_hours"` // covered minutes / 60

	UtilMean Stat `json:"util_mean"` // sample-weighted mean util %
	UtilP50  Stat `json:"util_p50"`  // median util % over all samples, from the merged whole-percent histograms
	UtilP95  Stat `json:"util_p95"`  // 95th percentile util %, likewise
	UtilMax  Stat `json:"util_max"`

	MemPeakMiB  Stat `json:"mem_peak_mib"`  // highest memory in use
	MemP95MiB   Stat `json:"mem_p95_mib"`   // the highest hourly p95: an upper bound of the period's p95
	MemTotalMiB Stat `json:"mem_total_mib"` // the largest framebuffer size seen

	PowerMeanW  Stat `json:"power_mean_w"`
	PowerMaxW   Stat `json:"power_max_w"`
	TempMaxC    Stat `json:"temp_max_c"`
	SMActive    Stat `json:"sm_active"`
	SMOccupancy Stat `json:"sm_occupancy"` // sample-weighted means, 0–1; absent without profiling metrics

	// IdleGPUHours counts the minutes whose mean utilisation was below the idle threshold, / 60:
	// zero-util time. Reports show fleet.Figures' idle GPU-hours here instead (fleet.Annotate),
	// keeping this measure in ZeroUtilGPUHours.
	IdleGPUHours float64 `json:"idle_gpu_hours"`
	IdlePct      Stat    `json:"idle_pct"` // idle GPU-hours / GPU-hours × 100; fleet.Annotate: idle cost ÷ GPU cost × 100

	UsedGPUHours     float64 `json:"used_gpu_hours"`      // set by fleet.Annotate: held time × utilisation
	ZeroUtilGPUHours float64 `json:"zero_util_gpu_hours"` // set by fleet.Annotate: minutes below the idle threshold / 60
	PriceSource      string  `json:"price_source"`        // set by fleet.Annotate: bill, catalog or mixed

	// SustainedIdleGPUHours counts only idle runs of at least Report.MinIdle minutes.
	SustainedIdleGPUHours float64 `json:"sustained_idle_gpu_hours"`

	Cost              gpucost.Money `json:"cost"`      // price × GPU-hours
	IdleCost          gpucost.Money `json:"idle_cost"` // price × idle GPU-hours
	SustainedIdleCost gpucost.Money `json:"sustained_idle_cost"`
	UnpricedGPUHours  float64       `json:"unpriced_gpu_hours"` // GPU-hours of series without a price, not in the costs

	Verdict Verdict `json:"verdict"`

	Daily []DayUtil `json:"daily"` // mean utilisation per UTC day, oldest first: the trend
}

// Verdict is the profiler's judgement of a mean utilisation.
type Verdict string

// Verdicts, from docs/architecture.md's reference facts: "mean < 25% overprovisioned, < 60% underutilized,
// else well utilized".
const (
	Overprovisioned Verdict = "overprovisioned"
	Underutilized   Verdict = "underutilized"
	WellUtilized    Verdict = "well utilized"
	NoData          Verdict = "no data"
)

// VerdictFor returns the verdict for a mean utilisation in percent (docs/architecture.md: below 25%
// overprovisioned, below 60% underutilized, else well utilized); NoData for NaN.
func VerdictFor(meanUtil float64) Verdict {
	switch {
	case math.IsNaN(meanUtil):
		return NoData
	case meanUtil < 25:
		return Overprovisioned
	case meanUtil < 60:
		return Underutilized
	default:
		return WellUtilized
	}
}

// Stat is a statistic that may be absent, as NaN: power where no source reported power, SM
// occupancy without profiling metrics. It encodes NaN as JSON null.
type Stat float64

// Valid reports whether the statistic is present.
func (s Stat) Valid() bool { return !math.IsNaN(float64(s)) && !math.IsInf(float64(s), 0) }

// MarshalJSON writes the number, or null when it is absent.
func (s Stat) MarshalJSON() ([]byte, error) {
	if !s.Valid() {
		return []byte("null"), nil
	}
	return strconv.AppendFloat(nil, float64(s), 'f', -1, 64), nil
}

// costBucket counts a group's time at one price, in sevenths of a GPU-minute.
type costBucket struct {
	covered, idle, sustained int64
}

// groupAcc accumulates one group. A report by GPU has one a GPU, 10,000 on a large fleet, so
// a group keeps its GPUs, prices and days in maps only where a slice or a field would not do:
// its first GPU in gpu, a map only from a second; its prices in a slice, indexed by a map only
// past a few (the fleet's totals); its days in a slice from its first day on
// (docs/architecture.md "Speed of the reports").
type groupAcc struct {
	key         string
	model, host string
	mixedModel  bool
	mixedHost   bool
	gpu         string              // the first series' physical GPU
	gpus        map[string]struct{} // every physical GPU, once a second one comes; else nil
	series      int
	rollups     int

	samples          int64
	utilSum, utilMax float64
	hist             [101]uint64

	memMax, memP95, memTotal float64
	powerSum, powerMax       float64
	powerSamples             int64
	tempMax                  float64
	profSamples              int64
	smActiveSum, smOccSum    float64

	prices     []priceBucket         // in the order the prices came
	priceIndex map[gpucost.Money]int // index into prices, made once they are more than pricesScanned
	unpriced   costBucket

	daily   []daySum // day dayBase+i at i; a day no rollup counted in is not seen
	dayBase int64    // UTC day number of daily[0]
}

// priceBucket is a group's time at one price.
type priceBucket struct {
	price gpucost.Money
	costBucket
}

// pricesScanned is how many prices a group finds by scanning its slice, without a map.
const pricesScanned = 8

func newGroupAcc(key string) *groupAcc {
	return &groupAcc{key: key, utilMax: nan, memMax: nan, memP95: nan, memTotal: nan, powerMax: nan, tempMax: nan}
}

// addSeries notes a new series of the group on physical GPU gpu, model already normalised.
func (g *groupAcc) addSeries(s *gpucost.Series, gpu, model string) {
	g.series++
	switch {
	case g.series == 1:
		g.gpu = gpu
	case g.gpus != nil:
		g.gpus[gpu] = struct{}{}
	case gpu != g.gpu:
		g.gpus = map[string]struct{}{g.gpu: {}, gpu: {}}
	}
	if g.series == 1 {
		g.model, g.host = model, s.GPU.Host
		return
	}
	g.mixedModel = g.mixedModel || model != g.model
	g.mixedHost = g.mixedHost || s.GPU.Host != g.host
}

// gpuCount returns the number of distinct physical GPUs of the group's series.
func (g *groupAcc) gpuCount() int {
	switch {
	case g.gpus != nil:
		return len(g.gpus)
	case g.series > 0:
		return 1
	}
	return 0
}

// bucket returns the group's counters for price p. The pointer is good until the next call.
func (g *groupAcc) bucket(p gpucost.Money) *costBucket {
	if g.priceIndex != nil {
		if i, ok := g.priceIndex[p]; ok {
			return &g.prices[i].costBucket
		}
	} else {
		for i := range g.prices {
			if g.prices[i].price == p {
				return &g.prices[i].costBucket
			}
		}
	}
	g.prices = append(g.prices, priceBucket{price: p})
	switch n := len(g.prices); {
	case g.priceIndex != nil:
		g.priceIndex[p] = n - 1
	case n > pricesScanned:
		g.priceIndex = make(map[gpucost.Money]int, 2*n)
		for i, pb := range g.prices {
			g.priceIndex[pb.price] = i
		}
	}
	return &g.prices[len(g.prices)-1].costBucket
}

// add counts r's samples; the caller counts its minutes.
func (g *groupAcc) add(r *gpucost.Rollup) {
	g.rollups++
	g.samples += int64(r.Samples)
	g.utilSum += r.UtilSum
	g.utilMax = nanMax(g.utilMax, r.UtilMax)
	g.addHist(r.UtilHist, r.Samples)
	g.memMax = nanMax(g.memMax, r.MemMaxMiB)
	g.memP95 = nanMax(g.memP95, r.MemP95MiB)
	g.memTotal = nanMax(g.memTotal, r.MemTotalMiB)
	g.powerSum += r.PowerSum
	g.powerSamples += int64(r.PowerSamples)
	g.powerMax = nanMax(g.powerMax, r.PowerMax)
	g.tempMax = nanMax(g.tempMax, r.TempMaxC)
	g.profSamples += int64(r.ProfSamples)
	g.smActiveSum += r.SMActiveSum
	g.smOccSum += r.SMOccupancySum
}

// addHist merges an hour's histogram. It stops once it has met all n samples: an idle hour's
// samples all lie in the first bins, so most of the 101 need no reading. (Every sample has a
// utilisation, so the histogram never holds more than Samples counts.) Bins go four at a time,
// adding zeros freely, so the loop has one predictable branch per four bins.
func (g *groupAcc) addHist(h []uint32, n int) {
	if len(h) > len(g.hist) {
		h = h[:len(g.hist)]
	}
	left := int64(n)
	i := 0
	for ; i+4 <= len(h); i += 4 {
		c := h[i : i+4 : i+4]
		d := g.hist[i : i+4 : i+4]
		d[0] += uint64(c[0])
		d[1] += uint64(c[1])
		d[2] += uint64(c[2])
		d[3] += uint64(c[3])
		if left -= int64(c[0]) + int64(c[1]) + int64(c[2]) + int64(c[3]); left <= 0 {
			return
		}
	}
	for ; i < len(h); i++ {
		g.hist[i] += uint64(h[i])
	}
}

// merge adds o's sums into g, for the fleet's totals.
func (g *groupAcc) merge(o *groupAcc) {
	g.series += o.series
	g.rollups += o.rollups
	g.samples += o.samples
	g.utilSum += o.utilSum
	g.utilMax = nanMax(g.utilMax, o.utilMax)
	for i, c := range o.hist {
		g.hist[i] += c
	}
	g.memMax = nanMax(g.memMax, o.memMax)
	g.memP95 = nanMax(g.memP95, o.memP95)
	g.memTotal = nanMax(g.memTotal, o.memTotal)
	g.powerSum += o.powerSum
	g.powerSamples += o.powerSamples
	g.powerMax = nanMax(g.powerMax, o.powerMax)
	g.tempMax = nanMax(g.tempMax, o.tempMax)
	g.profSamples += o.profSamples
	g.smActiveSum += o.smActiveSum
	g.smOccSum += o.smOccSum
	for i := range o.prices {
		b := &o.prices[i]
		gb := g.bucket(b.price)
		gb.covered += b.covered
		gb.idle += b.idle
		gb.sustained += b.sustained
	}
	for i, ds := range o.daily {
		if ds.seen {
			gd := g.day(o.dayBase + int64(i))
			gd.utilSum += ds.utilSum
			gd.samples += ds.samples
		}
	}
	g.unpriced.covered += o.unpriced.covered
	g.unpriced.idle += o.unpriced.idle
	g.unpriced.sustained += o.unpriced.sustained
}

// stats returns the group's statistics.
func (g *groupAcc) stats() GroupStats {
	s := GroupStats{Key: g.key, GPUs: g.gpuCount(), Series: g.series, Rollups: g.rollups, Samples: g.samples,
		UtilMean: Stat(ratio(g.utilSum, g.samples)), UtilMax: Stat(g.utilMax),
		UtilP50: Stat(g.quantile(0.50)), UtilP95: Stat(g.quantile(0.95)),
		MemPeakMiB: Stat(g.memMax), MemP95MiB: Stat(g.memP95), MemTotalMiB: Stat(g.memTotal),
		PowerMeanW: Stat(ratio(g.powerSum, g.powerSamples)), PowerMaxW: Stat(g.powerMax),
		TempMaxC: Stat(g.tempMax),
		SMActive: Stat(ratio(g.smActiveSum, g.profSamples)), SMOccupancy: Stat(ratio(g.smOccSum, g.profSamples)),
	}
	if !g.mixedModel {
		s.Model = g.model
	}
	if !g.mixedHost {
		s.Host = g.host
	}
	total := g.unpriced
	for i := range g.prices {
		p, b := g.prices[i].price, &g.prices[i].costBucket
		if s.Cost.Currency == "" {
			s.Cost.Currency, s.IdleCost.Currency, s.SustainedIdleCost.Currency = p.Currency, p.Currency, p.Currency
		}
		s.Cost = s.Cost.Add(costOf(p, b.covered))
		s.IdleCost = s.IdleCost.Add(costOf(p, b.idle))
		s.SustainedIdleCost = s.SustainedIdleCost.Add(costOf(p, b.sustained))
		total.covered += b.covered
		total.idle += b.idle
		total.sustained += b.sustained
	}
	s.GPUHours = hours(total.covered)
	s.IdleGPUHours = hours(total.idle)
	s.IdlePct = Stat(ratio(float64(total.idle)*100, total.covered))
	s.SustainedIdleGPUHours = hours(total.sustained)
	s.UnpricedGPUHours = hours(g.unpriced.covered)
	s.Verdict = VerdictFor(float64(s.UtilMean))
	s.Daily = g.dailyStats()
	return s
}

// quantile returns the nearest-rank q-quantile of the merged histogram: the smallest whole
// percent at or below which at least ⌈q·n⌉ samples lie. It is exact for whole-percent readings.
func (g *groupAcc) quantile(q float64) float64 {
	var n uint64
	for _, c := range g.hist {
		n += c
	}
	if n == 0 {
		return nan
	}
	rank := max(uint64(math.Ceil(q*float64(n))), 1)
	var cum uint64
	for i, c := range g.hist {
		cum += c
		if cum >= rank {
			return float64(i)
		}
	}
	return nan
}

func ratio[N int64 | float64](sum float64, n N) float64 {
	if n == 0 {
		return nan
	}
	return sum / float64(n)
}

// sortGroups orders groups by idle cost, then idle GPU-hours, both highest first, then by key.
func sortGroups(gs []GroupStats) {
	slices.SortFunc(gs, func(a, b GroupStats) int {
		if c := cmp.Compare(b.IdleCost.Nanos, a.IdleCost.Nanos); c != 0 {
			return c
		}
		if c := cmp.Compare(b.IdleGPUHours, a.IdleGPUHours); c != 0 {
			return c
		}
		return cmp.Compare(a.Key, b.Key)
	})
}
