package main

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"os"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/fleet"
	"github.com/gpucost/gpucost/internal/storeopen"
	"github.com/gpucost/gpucost/pricing/refresh"
	"github.com/gpucost/gpucost/spot"
	"github.com/gpucost/gpucost/spotrisk"
)

// defaultBillSince is how far back the bill's spot lines are read for interruption rates.
const defaultBillSince = "90d"

// spotMeasured is what spot rates are measured from: the events gpucost run stored, by job,
// and the spot lines of the bill in the --db store (docs/architecture.md "Spot risk").
type spotMeasured struct {
	jobs    map[string][]spot.Event
	skipped int // unreadable event objects
	rates   []spotrisk.Rate
	zones   *spotrisk.Zones // the runner's zone name and ID pairs, and --zones
	bill    spotBillRead
}

// spotBillRead says what the bill gave: its spot lines since From, the instances and hours the
// rates took from it, and the instances left to the runs' events.
type spotBillRead struct {
	From      time.Time
	Lines     int
	Skipped   int
	Instances int
	Counted   int // instances whose runs' events count them
}

// measureSpot reads the job events in events (none when empty), the bill's spot lines since
// billSince (none when the --db store does not exist or billSince is "none") and the zones file
// (none when empty), and measures each pool's rate over both (spotrisk.MeasureRunsAndBill).
func (e *env) measureSpot(ctx context.Context, events, billSince, zonesFile string) (spotMeasured, error) {
	m := spotMeasured{jobs: map[string][]spot.Event{}, zones: &spotrisk.Zones{}}
	if zonesFile != "" {
		z, err := readZonesFile(zonesFile)
		if err != nil {
			return m, err
		}
		m.zones = z
	}
	if events != "" {
		jobs, skipped, err := spotJobEvents(ctx, e, events)
		if err != nil && gpucost.ErrorCode(err) != gpucost.ENotFound {
			return m, err
		}
		maps.Copy(m.jobs, jobs)
		m.skipped = skipped
	}
	b, err := e.readSpotBill(ctx, billSince)
	if err != nil {
		return m, err
	}
	var bill *spotrisk.Bill
	if b != nil {
		bill = b.bill
	}
	r := spotrisk.MeasureRunsAndBill(m.jobs, bill, m.zones)
	if b != nil {
		m.bill = spotBillRead{From: b.from, Lines: b.bill.Lines, Skipped: b.bill.Skipped, Instances: r.BillInstances, Counted: r.BillCounted}
	}
	m.rates = r.Rates
	return m, nil
}

type billRead struct {
	bill *spotrisk.Bill
	from time.Time
}

// readSpotBill reads the stored bill's lines charged since billSince; nil without a store or
// with billSince "none".
func (e *env) readSpotBill(ctx context.Context, billSince string) (*billRead, error) {
	if billSince == "none" || storeopen.Missing(e.dbPath) {
		return nil, nil
	}
	from, err := fleet.ParseSince(cmp.Or(billSince, defaultBillSince), e.now())
	if err != nil {
		return nil, gpucost.Errorf(gpucost.EInvalid, "--bill-since %q: %v; give a duration back from now (90d), a date (2025-10-01), or none", billSince, err)
	}
	r := &billRead{bill: &spotrisk.Bill{}, from: from}
	err = e.withStore(ctx, func(db storeDB) error {
		return db.ScanCosts(ctx, gpucost.CostFilter{From: from}, func(c *gpucost.CostLine) error {
			r.bill.Add(c)
			return nil
		})
	})
	return r, err
}

// readZonesFile reads `aws ec2 describe-availability-zones --output json` from path.
func readZonesFile(path string) (*spotrisk.Zones, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, gpucost.Errorf(gpucost.EInvalid, "--zones: %v; give the output of aws ec2 describe-availability-zones --output json", err)
	}
	defer f.Close()
	return spotrisk.ParseZones(f, path)
}

// spotPriceHistory returns the spot price history catalog refresh keeps in the --db store; an
// empty one when there is no store.
func spotPriceHistory(ctx context.Context, e *env) (*spotrisk.PriceHistory, error) {
	if storeopen.Missing(e.dbPath) {
		return spotrisk.DecodePriceHistory("")
	}
	return fromStore(ctx, e, func(db storeDB) (*spotrisk.PriceHistory, error) {
		s, err := db.Setting(ctx, spotrisk.SettingPriceHistory, "")
		if err != nil {
			return nil, err
		}
		return spotrisk.DecodePriceHistory(s)
	})
}

// keepSpotPrices adds the spot prices of offers, as catalog refresh read them, to the history
// in the --db store that report spot's price trend reads (refresh.KeepSpotPrices), and says so.
func (e *env) keepSpotPrices(ctx context.Context, offers []gpucost.Offer) (string, error) {
	var n int
	err := e.withStore(ctx, func(db storeDB) (err error) {
		n, err = refresh.KeepSpotPrices(ctx, db, offers)
		return err
	})
	if err != nil || n == 0 {
		return "", err
	}
	return fmt.Sprintf("%d zones' spot prices added to the price history report spot's trend reads.", n), nil
}
