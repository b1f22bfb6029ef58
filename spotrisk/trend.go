package spotrisk

import (
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"math/big"
	"slices"
	"strings"
	"time"

	"github.com/gpucost/gpucost"
)

// SettingPriceHistory is the store setting that keeps the spot prices catalog refresh read.
const SettingPriceHistory = "spot.price_history"

// Trend windows: the change over TrendSpan, from the mean of its first TrendWeek to the mean of
// its last; a change within ±TrendFlat is flat.
const (
	TrendSpan = 30 * 24 * time.Hour
	TrendWeek = 7 * 24 * time.Hour
	TrendFlat = 0.01
	// keepHistory is how far back the history keeps price changes: the span and a week more.
	keepHistory = TrendSpan + TrendWeek
)

// PriceHistory is each spot pool's price as catalog refresh read it over time: the changes, and
// when it was last read, so the price in effect is known from its first reading to its last
// (docs/architecture.md "Spot risk"). It is kept in the store under SettingPriceHistory.
type PriceHistory struct {
	Series map[string]*PriceSeries `json:"series"` // by seriesKey
}

// PriceSeries is one pool's spot price history: Steps are the readings where the price changed,
// oldest first; Seen is the latest reading.
type PriceSeries struct {
	Pool  Pool        `json:"pool"`
	Steps []PriceStep `json:"steps"`
	Seen  time.Time   `json:"seen"`
}

// PriceStep is the spot price from At on, until the next step.
type PriceStep struct {
	At    time.Time     `json:"at"`
	Price gpucost.Money `json:"price"`
}

// MarshalJSON writes the price as an exact decimal with its currency.
func (s PriceStep) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		At       time.Time `json:"at"`
		Price    string    `json:"price"`
		Currency string    `json:"currency"`
	}{s.At, s.Price.Decimal(), s.Price.Currency})
}

// UnmarshalJSON reads what MarshalJSON writes.
func (s *PriceStep) UnmarshalJSON(b []byte) error {
	var v struct {
		At       time.Time `json:"at"`
		Price    string    `json:"price"`
		Currency string    `json:"currency"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	p, err := gpucost.ParseMoney(v.Price, v.Currency)
	if err != nil {
		return err
	}
	s.At, s.Price = v.At, p
	return nil
}

func seriesKey(p Pool) string {
	return strings.Join([]string{p.Provider, p.Region, p.Zone, p.InstanceType}, " ")
}

// DecodePriceHistory reads the stored history; an empty setting is an empty history.
func DecodePriceHistory(s string) (*PriceHistory, error) {
	h := &PriceHistory{Series: map[string]*PriceSeries{}}
	if s == "" {
		return h, nil
	}
	if err := json.Unmarshal([]byte(s), h); err != nil {
		return nil, gpucost.Errorf(gpucost.EInternal, "stored spot price history (setting %s): %v; run gpucost catalog refresh --provider aws to start it again", SettingPriceHistory, err)
	}
	if h.Series == nil {
		h.Series = map[string]*PriceSeries{}
	}
	return h, nil
}

// Encode writes the history for the store.
func (h *PriceHistory) Encode() (string, error) {
	b, err := json.Marshal(h)
	return string(b), err
}

// Add records the spot prices of offers read at their AsOf: a step where a pool's price
// changed, and the reading time in Seen. An offer without a zone is a regional spot price (GCP,
// Azure); offers without a spot price or a region are left out. Steps more than keepHistory before the reading are dropped, but for
// the one in effect then. It returns how many pools it read.
func (h *PriceHistory) Add(offers []gpucost.Offer) int {
	n := 0
	for _, o := range offers {
		if !o.HasSpot || o.Region == "" || o.AsOf.IsZero() {
			continue
		}
		n++
		p := Pool{Provider: NormalizeProvider(o.Provider), InstanceType: o.InstanceType, Region: o.Region, Zone: o.Zone}
		k := seriesKey(p)
		s := h.Series[k]
		if s == nil {
			s = &PriceSeries{Pool: p}
			h.Series[k] = s
		}
		s.add(o.AsOf, o.SpotPrice)
	}
	return n
}

func (s *PriceSeries) add(at time.Time, price gpucost.Money) {
	at = at.UTC()
	i, _ := slices.BinarySearchFunc(s.Steps, at, func(st PriceStep, t time.Time) int { return st.At.Compare(t) })
	if i == 0 || s.Steps[i-1].Price != price {
		s.Steps = slices.Insert(s.Steps, i, PriceStep{At: at, Price: price})
	}
	if at.After(s.Seen) {
		s.Seen = at
	}
	cut := s.Seen.Add(-keepHistory)
	for len(s.Steps) > 1 && !s.Steps[1].At.After(cut) {
		s.Steps = s.Steps[1:]
	}
}

// PriceTrend is a pool's spot price change over the TrendSpan before a time: the time-weighted
// mean price of the span's first week and of its last, and the change between them.
type PriceTrend struct {
	Pool        Pool          `json:"pool"` // the series' own pool: its zone may be the other name
	First, Last gpucost.Money `json:"-"`
	Change      float64       `json:"change"`    // Last / First − 1
	Direction   string        `json:"direction"` // up, down or flat (within ±TrendFlat)
}

// String writes the trend as report spot shows it: "$1.10 → $1.21 (+10.0%, up)".
func (t PriceTrend) String() string {
	return fmt.Sprintf("%s → %s (%+.1f%%, %s)", t.First.Dollars(), t.Last.Dollars(), 100*t.Change, t.Direction)
}

// Trend returns the price trend of pool over the TrendSpan before now, from the series of the
// same provider, region, instance type and zone (a zone name and ID through zones), else the
// region's series where prices are regional. A week's mean is over the part of the week the
// series covers, its first step to Seen, each price holding until the next step; it returns
// false when there is no such series, when either week has none covered, or when the two
// means are in different currencies.
func (h *PriceHistory) Trend(pool Pool, zones *Zones, now time.Time) (PriceTrend, bool) {
	if h == nil {
		return PriceTrend{}, false
	}
	var zonal, regional *PriceSeries
	for _, k := range slices.Sorted(maps.Keys(h.Series)) {
		s := h.Series[k]
		p := s.Pool
		if p.InstanceType != pool.InstanceType || p.Region != pool.Region || (pool.Provider != "" && p.Provider != pool.Provider) {
			continue
		}
		switch {
		case p.Zone == "":
			regional = s
		case pool.Zone != "" && zonal == nil && zones.Match(p.Zone, pool.Zone) == ZoneSame:
			zonal = s
		}
	}
	s := cmp.Or(zonal, regional)
	if s == nil {
		return PriceTrend{}, false
	}
	from := now.Add(-TrendSpan)
	first, ok1 := s.mean(from, from.Add(TrendWeek))
	last, ok2 := s.mean(now.Add(-TrendWeek), now)
	if !ok1 || !ok2 || first.Currency != last.Currency || first.Nanos <= 0 {
		return PriceTrend{}, false
	}
	t := PriceTrend{Pool: s.Pool, First: first, Last: last, Change: float64(last.Nanos-first.Nanos) / float64(first.Nanos), Direction: "flat"}
	switch {
	case t.Change > TrendFlat:
		t.Direction = "up"
	case t.Change < -TrendFlat:
		t.Direction = "down"
	}
	return t, true
}

// mean is the time-weighted mean price over [from, to) ∩ [first step, Seen], exact to the
// nano-unit, and false when that is empty.
func (s *PriceSeries) mean(from, to time.Time) (gpucost.Money, bool) {
	if len(s.Steps) == 0 {
		return gpucost.Money{}, false
	}
	from = maxTime(from, s.Steps[0].At)
	to = minTime(to, s.Seen)
	if !to.After(from) {
		return gpucost.Money{}, false
	}
	sum, total := new(big.Int), to.Sub(from).Nanoseconds()
	for i, st := range s.Steps {
		end := to
		if i+1 < len(s.Steps) {
			end = minTime(end, s.Steps[i+1].At)
		}
		start := maxTime(from, st.At)
		if end.After(start) {
			sum.Add(sum, new(big.Int).Mul(big.NewInt(st.Price.Nanos), big.NewInt(end.Sub(start).Nanoseconds())))
		}
	}
	q, _ := new(big.Rat).SetFrac(sum, big.NewInt(total)).Float64()
	return gpucost.Money{Nanos: int64(q + 0.5), Currency: s.Steps[0].Price.Currency}, true
}
