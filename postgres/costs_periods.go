package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/gpucost/gpucost"
)

var _ gpucost.PeriodStore = (*DB)(nil)

// CostPeriods returns the stored bill lines summed per billing period and provider, by billing
// period and then provider. It reads every line, as the SQLite store does, so that both sum
// them by the same code (gpucost.CostPeriodTally).
func (db *DB) CostPeriods(ctx context.Context) ([]gpucost.CostPeriod, error) {
	return gpucost.TallyCostPeriods(ctx, db.ScanCosts)
}

// billedWhere returns the conditions of linesQuery that select f's billing periods, adding
// their arguments through arg.
func billedWhere(f gpucost.CostFilter, arg func(any) string) string {
	var q string
	if !f.BilledFrom.IsZero() {
		q += fmt.Sprintf(" AND (billing_start_s, billing_start_ns) >= (%s, %s)", arg(f.BilledFrom.Unix()), arg(int32(f.BilledFrom.Nanosecond())))
	}
	if !f.BilledTo.IsZero() {
		q += fmt.Sprintf(" AND (billing_start_s, billing_start_ns) < (%s, %s)", arg(f.BilledTo.Unix()), arg(int32(f.BilledTo.Nanosecond())))
	}
	return q
}

// TelemetrySpan returns the span of the stored rollups, from the series' first and last seen
// times.
func (db *DB) TelemetrySpan(ctx context.Context) (gpucost.Span, error) {
	var first, last *int64
	err := db.pool.QueryRow(ctx, `SELECT min(first_seen), max(last_seen) FROM series`).Scan(&first, &last)
	if err != nil {
		return gpucost.Span{}, fmt.Errorf("read the telemetry span in %s: %w", db.name, err)
	}
	if first == nil || last == nil {
		return gpucost.Span{}, nil
	}
	return gpucost.Span{Start: time.Unix(*first, 0).UTC(), End: time.Unix(*last, 0).UTC()}, nil
}
