package gpucost

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"
)

// CostPeriod is what a store holds of one provider's bills for one billing period: the answer
// to "which months can I report on?".
type CostPeriod struct {
	BillingPeriodStart time.Time   `json:"billing_period_start"`
	Provider           string      `json:"provider"`
	Accounts           []string    `json:"accounts"`           // the billing accounts, sorted
	FirstCharge        time.Time   `json:"first_charge_start"` // the earliest charge period start
	LastCharge         time.Time   `json:"last_charge_end"`    // the latest charge period end
	Lines              int         `json:"lines"`
	Totals             []CostTotal `json:"totals"`
}

// Span is the time the stored telemetry covers: from the start of the earliest rollup to the
// end of the latest. Both are zero when no telemetry is stored.
type Span struct {
	Start, End time.Time
}

// PeriodStore tells what periods a store holds, so a report over a period with nothing in it
// can say which periods have something.
type PeriodStore interface {
	// CostPeriods returns the stored bill lines summed per billing period and provider (the
	// provider compared without regard to case), by billing period and then provider.
	CostPeriods(ctx context.Context) ([]CostPeriod, error)

	// TelemetrySpan returns the span of the stored rollups.
	TelemetrySpan(ctx context.Context) (Span, error)
}

// CostPeriodTally sums bill lines into CostPeriods, for stores that compute CostPeriods by
// scanning their lines. The zero value is empty and ready.
type CostPeriodTally struct {
	byKey map[costPeriodKey]*costPeriodSum

	// The previous line's billing period start and provider as written, and their sum: a
	// bill's lines come in runs of one period and provider.
	lastStart    time.Time
	lastProvider string
	last         *costPeriodSum
}

type costPeriodKey struct {
	start    int64
	provider string
}

type costPeriodSum struct {
	CostPeriod
	totals      CostTotals
	accounts    map[string]bool
	lastAccount string
}

// Add counts one line.
func (t *CostPeriodTally) Add(l *CostLine) {
	s := t.last
	if s == nil || t.lastProvider != l.Provider || !t.lastStart.Equal(l.BillingPeriodStart) {
		s = t.sumOf(l)
	}
	p := &s.CostPeriod
	p.Lines++
	if l.ChargePeriodStart.Before(p.FirstCharge) {
		p.FirstCharge = l.ChargePeriodStart.UTC()
	}
	if l.ChargePeriodEnd.After(p.LastCharge) {
		p.LastCharge = l.ChargePeriodEnd.UTC()
	}
	s.totals.Add(l.BilledCost, l.EffectiveCost)
	if a := l.BillingAccountID; a != "" && a != s.lastAccount {
		s.accounts[a], s.lastAccount = true, a
	}
}

// sumOf returns the sum of l's billing period and provider, adding it if it is new.
func (t *CostPeriodTally) sumOf(l *CostLine) *costPeriodSum {
	if t.byKey == nil {
		t.byKey = map[costPeriodKey]*costPeriodSum{}
	}
	k := costPeriodKey{l.BillingPeriodStart.UnixNano(), strings.ToLower(l.Provider)}
	s := t.byKey[k]
	if s == nil {
		s = &costPeriodSum{CostPeriod: CostPeriod{BillingPeriodStart: l.BillingPeriodStart.UTC(), Provider: l.Provider,
			FirstCharge: l.ChargePeriodStart.UTC(), LastCharge: l.ChargePeriodEnd.UTC()}, accounts: map[string]bool{}}
		t.byKey[k] = s
	}
	t.lastStart, t.lastProvider, t.last = l.BillingPeriodStart, l.Provider, s
	return s
}

// Periods returns the sums, by billing period and then provider.
func (t *CostPeriodTally) Periods() []CostPeriod {
	out := make([]CostPeriod, 0, len(t.byKey))
	for _, s := range t.byKey {
		c := s.CostPeriod
		c.Totals = s.totals.Sorted()
		c.Accounts = make([]string, 0, len(s.accounts))
		for a := range s.accounts {
			c.Accounts = append(c.Accounts, a)
		}
		slices.Sort(c.Accounts)
		out = append(out, c)
	}
	slices.SortFunc(out, func(a, b CostPeriod) int {
		if c := a.BillingPeriodStart.Compare(b.BillingPeriodStart); c != 0 {
			return c
		}
		return strings.Compare(strings.ToLower(a.Provider), strings.ToLower(b.Provider))
	})
	return out
}

// TallyCostPeriods sums every line scan reads per billing period and provider: how the stores
// answer PeriodStore.CostPeriods, one code for both.
func TallyCostPeriods(ctx context.Context, scan func(context.Context, CostFilter, func(*CostLine) error) error) ([]CostPeriod, error) {
	var t CostPeriodTally
	err := scan(ctx, CostFilter{}, func(l *CostLine) error {
		t.Add(l)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("list cost periods: %w", err)
	}
	return t.Periods(), nil
}
