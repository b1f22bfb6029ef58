package query

import (
	"context"
	"fmt"
	"time"

	"github.com/gpucost/gpucost"
)

// teeDays is teeHours over a store that keeps day rollups (gpucost.DayStore): the builder's
// scan of hours and whole days (fleet reads a DayStore so) feeds the report too, a whole day
// as one row to both (docs/architecture.md "Speed of the reports").
type teeDays struct {
	*teeHours
	days   gpucost.DayStore
	addDay func(*gpucost.DayRollup) bool // false: the day is not wholly in the report's period
}

var _ gpucost.DayStore = (*teeDays)(nil)

func (t *teeDays) ScanDays(ctx context.Context, f gpucost.RollupFilter, fn func(*gpucost.DayRollup) error) error {
	return t.days.ScanDays(ctx, f, fn)
}

func (t *teeDays) ScanHoursByDay(ctx context.Context, f gpucost.RollupFilter, wholeFrom, wholeTo time.Time,
	hour func(*gpucost.Rollup) error, day func(*gpucost.DayRollup) error) error {
	if t.done || len(f.Hosts)+len(f.GPUs)+len(f.Models)+len(f.Labels) > 0 {
		return t.days.ScanHoursByDay(ctx, f, wholeFrom, wholeTo, hour, day)
	}
	t.done = true
	both := t.union(f)
	in, want := spanOf(f), spanOf(t.want)
	wholeIn := span{max(in.from, nanos(wholeFrom, in.from)), min(in.to, nanos(wholeTo, in.to))}
	return t.days.ScanHoursByDay(ctx, both, wholeFrom, wholeTo, func(r *gpucost.Rollup) error {
		at := r.Start.UnixNano()
		if in.holds(at) {
			if err := hour(r); err != nil {
				return err
			}
		}
		if want.holds(at) {
			t.add(r)
		}
		return nil
	}, func(d *gpucost.DayRollup) error {
		// The day is wholly in both and in [wholeFrom, wholeTo): in the builder's range, and in
		// the report's where the report's period holds it.
		if at := d.Day.UnixNano(); !wholeIn.holds(at) || !wholeIn.holds(at+int64(24*time.Hour)-1) {
			return fmt.Errorf("day rollup of %s on %s lies outside the scan's whole days", d.Series.GPU.UUID, d.Day.Format(time.DateOnly))
		}
		if err := day(d); err != nil {
			return err
		}
		if !t.addDay(d) {
			return fmt.Errorf("day rollup of %s on %s lies outside the report's period", d.Series.GPU.UUID, d.Day.Format(time.DateOnly))
		}
		return nil
	})
}
