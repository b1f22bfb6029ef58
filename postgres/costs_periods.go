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
