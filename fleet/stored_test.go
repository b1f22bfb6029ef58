package fleet

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
)

// periodStore answers CostPeriods and TelemetrySpan from fields.
type periodStore struct {
	periods []gpucost.CostPeriod
	span    gpucost.Span
	err     error
}

func (s periodStore) CostPeriods(context.Context) ([]gpucost.CostPeriod, error) {
	return s.periods, s.err
}
func (s periodStore) TelemetrySpan(context.Context) (gpucost.Span, error) { return s.span, s.err }

func TestNoLines(t *testing.T) {
	day := func(y int, m time.Month, d int) time.Time { return time.Date(y, m, d, 0, 0, 0, 0, time.UTC) }
	billed := func(y int, m time.Month, provider string, accounts ...string) gpucost.CostPeriod {
		return gpucost.CostPeriod{BillingPeriodStart: day(y, m, 1), Provider: provider, Accounts: accounts,
			FirstCharge: day(y, m, 1), LastCharge: day(y, m+1, 1), Lines: 10}
	}
	late := billed(2025, 10, "Microsoft", "ea-1")
	late.LastCharge = day(2025, 11, 2) // a fee dated November 1st, billed in October
	year := []gpucost.CostPeriod{}
	for m := time.January; m <= time.June; m++ {
		year = append(year, billed(2025, m, "AWS", "111", "222", "333"))
	}
	charged := Period{Start: day(2026, 10, 28), End: day(2026, 11, 27).Add(10 * time.Hour)}
	month := Period{Start: day(2026, 10, 1), End: day(2026, 11, 1), Billed: true}
	for _, tt := range []struct {
		name string
		st   any
		p    Period
		want string
	}{
		{"two months", periodStore{periods: []gpucost.CostPeriod{billed(2025, 9, "AWS", "123456789012"), billed(2025, 10, "AWS", "123456789012"), late}}, charged,
			"no bill lines charged from 2026-10-28 to 2026-11-27 10:00; the store holds bills for 2025-09 (charged 2025-09-01 to 2025-09-30, AWS 123456789012)" +
				" and 2025-10 (charged 2025-10-01 to 2025-11-01, AWS 123456789012; Microsoft ea-1): try --month 2025-10, or --since 2025-09-01 --until 2025-11-01"},
		{"a month asked", periodStore{periods: []gpucost.CostPeriod{billed(2025, 9, "AWS")}}, month,
			"no bill lines billed in 2026-10; the store holds bills for 2025-09 (charged 2025-09-01 to 2025-09-30, AWS): try --month 2025-09"},
		{"many months, many accounts", periodStore{periods: year}, month,
			"no bill lines billed in 2026-10; the store holds bills for 6 billing periods from 2025-01 to 2025-06, the latest 2025-03 (charged 2025-03-01 to 2025-03-31, AWS 111 and 2 more accounts), 2025-04"},
		{"nothing stored", periodStore{}, month,
			"no bill lines billed in 2026-10 (2 imports in the store): the store holds no bill lines: import bills with gpucost import billing"},
		{"listing fails", periodStore{err: errors.New("disk on fire")}, month,
			"no bill lines billed in 2026-10 (2 imports in the store); listing the stored periods failed: disk on fire; import bills"},
		{"a store that cannot tell", struct{}{}, month, "no bill lines billed in 2026-10 (2 imports in the store): import bills with gpucost import billing, or widen --since"},
	} {
		err := NoLines(context.Background(), tt.st, tt.p, 2)
		if gpucost.ErrorCode(err) != gpucost.ENotFound || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: NoLines = %q (%s)\nwant %s and %q", tt.name, err, gpucost.ErrorCode(err), gpucost.ENotFound, tt.want)
		}
	}
}

// TestNoGPUMachines checks that a period with bill lines but no GPU machine names the other
// stored months, and never suggests the month asked for.
func TestNoGPUMachines(t *testing.T) {
	day := func(y int, m time.Month, d int) time.Time { return time.Date(y, m, d, 0, 0, 0, 0, time.UTC) }
	billed := func(m time.Month) gpucost.CostPeriod {
		return gpucost.CostPeriod{BillingPeriodStart: day(2025, m, 1), Provider: "AWS", FirstCharge: day(2025, m, 1), LastCharge: day(2025, m+1, 1), Lines: 3}
	}
	october := Period{Start: day(2025, 10, 1), End: day(2025, 11, 1), Billed: true}
	for _, tt := range []struct {
		name    string
		periods []gpucost.CostPeriod
		want    string
	}{
		{"another month", []gpucost.CostPeriod{billed(9), billed(10)},
			"no GPU machines in the bill lines billed in 2025-10; the store holds bills for 2025-09 (charged 2025-09-01 to 2025-09-30, AWS) and 2025-10 (charged 2025-10-01 to 2025-10-31, AWS): try --month 2025-09"},
		{"only the month asked", []gpucost.CostPeriod{billed(10)},
			"no GPU machines in the bill lines billed in 2025-10; the store holds bills for 2025-10 (charged 2025-10-01 to 2025-10-31, AWS) only"},
	} {
		s := &Split{Period: october, store: struct {
			Store
			periodStore
		}{periodStore: periodStore{periods: tt.periods}}}
		if err := s.NoGPUMachines(context.Background()); gpucost.ErrorCode(err) != gpucost.ENotFound || err.Error() != tt.want {
			t.Errorf("%s: NoGPUMachines = %q\nwant %q", tt.name, err, tt.want)
		}
	}
}

func TestNoRollups(t *testing.T) {
	p := Period{Start: time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC), End: time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC)}
	span := gpucost.Span{Start: time.Date(2025, 9, 3, 14, 0, 0, 0, time.UTC), End: time.Date(2025, 10, 1, 0, 0, 0, 0, time.UTC)}
	for _, tt := range []struct {
		st   any
		want string
	}{
		{periodStore{span: span}, "no GPU telemetry in db between 2026-11-20T10:00:00Z and 2026-11-27T10:00:00Z; the store holds telemetry from 2025-09-03T14:00:00Z to 2025-10-01T00:00:00Z: try --since 2025-09-03 --until 2025-09-30"},
		{periodStore{}, "no GPU telemetry in db between 2026-11-20T10:00:00Z and 2026-11-27T10:00:00Z: the store holds none; run gpucost agent, gpucost import telemetry or gpucost demo"},
		{struct{}{}, "and 2026-11-27T10:00:00Z: run gpucost agent"},
	} {
		err := NoRollups(context.Background(), tt.st, "db", p)
		if gpucost.ErrorCode(err) != gpucost.ENotFound || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("NoRollups(%s) = %q\nwant %q", fmt.Sprintf("%T", tt.st), err, tt.want)
		}
	}
	// A window inside the hour of the only telemetry (--since 10m just after an agent started):
	// the error says why it is empty and which --since starts on the hour.
	for _, tt := range []struct {
		p    Period
		want string
	}{
		{Period{Start: time.Date(2026, 11, 27, 13, 34, 0, 0, time.UTC), End: time.Date(2026, 11, 27, 13, 44, 0, 0, time.UTC)},
			"no GPU telemetry in db between 2026-11-27T13:34:00Z and 2026-11-27T13:44:00Z: reports read hourly rollups, each counted in the window its hour starts in, and no hour of the telemetry stored (2026-11-27T13:00:00Z to 2026-11-27T14:00:00Z) starts in this one: start the window on the hour, e.g. --since 2026-11-27T13:00:00Z"},
		{Period{Start: time.Date(2026, 11, 27, 0, 10, 0, 0, time.UTC), End: time.Date(2026, 11, 27, 0, 50, 0, 0, time.UTC)},
			"e.g. --since 2026-11-27"},
	} {
		span := gpucost.Span{Start: tt.p.Start.Truncate(time.Hour), End: tt.p.Start.Truncate(time.Hour).Add(time.Hour)}
		err := NoRollups(context.Background(), periodStore{span: span}, "db", tt.p)
		if gpucost.ErrorCode(err) != gpucost.ENotFound || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("NoRollups(%s) = %q\nwant %q", tt.p.Label(), err, tt.want)
		}
	}
}
