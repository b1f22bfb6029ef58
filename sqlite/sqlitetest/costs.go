package sqlitetest

import (
	"context"
	"fmt"
	"iter"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/sqlite"
)

// CostYearStart is where CostYear's lines start.
var CostYearStart = time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)

// benchSKU is one of the handful of instance types of the benchmark fleet.
type benchSKU struct {
	instance, sku, description string
	nanosPerHour               int64
}

var benchSKUs = []benchSKU{
	{"p4d.24xlarge", "8DJMQR4YB5N5VRS5", "$32.77 per On Demand Linux p4d.24xlarge Instance Hour", 32_773_000_000},
	{"p5.48xlarge", "GZDCY8KMB7RU2J7D", "$98.32 per On Demand Linux p5.48xlarge Instance Hour", 98_320_000_000},
	{"g5.xlarge", "3ZG8PHXW4R2XMD6A", "$1.212 per On Demand Linux g5.xlarge Instance Hour", 1_212_000_000},
	{"g5.12xlarge", "J7YQ3UW4B8P2F9KC", "$4.088 per On Demand Linux g5.12xlarge Instance Hour", 4_088_000_000},
	{"p3.8xlarge", "Q9XK5N6T2ZC4M8RB", "$12.24 per On Demand Linux p3.8xlarge Instance Hour", 12_240_000_000},
}

// CostFleet makes the daily lines of a fleet of resources for a run of days, as the billing
// aggregator emits them: by day, then resource. Each resource has one of five instance types,
// three providers, 20 accounts, three pricing categories and eight owner tag sets; one day in
// ten it ran part of the day.
type CostFleet struct {
	base []gpucost.CostLine // each resource's strings and tags
}

func NewCostFleet(resources int) *CostFleet {
	var tags []gpucost.Labels
	for t := range 8 {
		tags = append(tags, gpucost.Labels{"team": fmt.Sprint("team-", t%5), "project": fmt.Sprint("project-", t)})
	}
	f := &CostFleet{base: make([]gpucost.CostLine, resources)}
	strs := map[string]string{} // readers intern the strings they read; so does the fleet
	intern := func(s string) string {
		if v, ok := strs[s]; ok {
			return v
		}
		strs[s] = s
		return s
	}
	for r := range f.base {
		sku := &benchSKUs[r%len(benchSKUs)]
		provider := []string{"AWS", "AWS", "AWS", "Google Cloud", "Microsoft"}[r%5]
		pricing := []string{"Standard", "Dynamic", "Committed"}[r%3]
		f.base[r] = gpucost.CostLine{
			Provider: provider, BillingAccountID: intern(provider + "-payer"), SubAccountID: intern(fmt.Sprint(100000000000 + r%20)),
			ChargeCategory: "Usage", ChargeFrequency: "Usage-Based", PricingCategory: pricing,
			ResourceID:   fmt.Sprintf("i-%017x", 0x0a1b2c3d4e5f6000+r*7919),
			ResourceName: fmt.Sprintf("gpu-node-%05d", r), ResourceType: "Instance", InstanceType: sku.instance,
			ServiceName: "Amazon Elastic Compute Cloud", ServiceCategory: "Compute",
			RegionID: []string{"us-east-1", "us-west-2", "eu-west-1", "ap-northeast-1"}[r%4],
			SkuID:    sku.sku, SkuPriceID: intern(sku.sku + "." + pricing), ChargeDescription: sku.description,
			ConsumedUnit: "Hours", PricingUnit: "Hours", Tags: tags[r%len(tags)],
		}
	}
	return f
}

// Lines returns the lines of days [from, from+days) after CostYearStart, by day, then resource.
func (f *CostFleet) Lines(from, days int) iter.Seq[*gpucost.CostLine] {
	return func(yield func(*gpucost.CostLine) bool) {
		var l gpucost.CostLine
		for d := from; d < from+days; d++ {
			start := CostYearStart.AddDate(0, 0, d)
			month := time.Date(start.Year(), start.Month(), 1, 0, 0, 0, 0, time.UTC)
			for r := range f.base {
				f.fill(&l, r, d, start, month)
				if !yield(&l) {
					return
				}
			}
		}
	}
}

func (f *CostFleet) fill(l *gpucost.CostLine, r, d int, start, month time.Time) {
	*l = f.base[r]
	hours, minutes := int64(24), int64(24*60)
	if (r+d)%10 == 0 {
		minutes = int64(60 + (r*31+d*17)%(22*60))
		hours = minutes / 60
	}
	list := benchSKUs[r%len(benchSKUs)].nanosPerHour * minutes / 60
	billed, effective := list, list
	switch l.PricingCategory {
	case "Dynamic":
		billed, effective = list*3/10, list*3/10
	case "Committed":
		billed, effective = 0, list*6/10
	}
	usd := func(n int64) gpucost.Money { return gpucost.Money{Nanos: n, Currency: "USD"} }
	l.BillingPeriodStart, l.ChargePeriodStart, l.ChargePeriodEnd = month, start, start.AddDate(0, 0, 1)
	l.BilledCost, l.EffectiveCost, l.ListCost, l.ContractedCost = usd(billed), usd(effective), usd(list), usd(billed)
	l.ConsumedQuantity, l.PricingQuantity, l.Rows = float64(minutes)/60, float64(hours), int(hours)
}

// CostYear opens a store holding a year of daily lines for `resources` resources (3.65 M for
// 10,000), as twelve monthly imports from CostYearStart, building it if no complete one is
// cached in the temporary folder.
func CostYear(b testing.TB, resources int) *sqlite.DB {
	b.Helper()
	const benchDays = 365
	ctx := context.Background()
	path := filepath.Join(os.TempDir(), fmt.Sprintf("gpucost-bench-costs-%d-%d-v%d.db", resources, benchDays, sqlite.CostChunkFormat))
	db, err := sqlite.Open(ctx, path)
	if err != nil {
		b.Fatal(err)
	}
	if done, _ := db.Setting(ctx, "bench_costs_fixture", ""); done == "complete" {
		return db
	}
	db.Close()
	for _, suffix := range []string{"", "-wal", "-shm"} {
		os.Remove(path + suffix)
	}
	if db, err = sqlite.Open(ctx, path); err != nil {
		b.Fatal(err)
	}
	began := time.Now()
	fleet := NewCostFleet(resources)
	for m := range 12 {
		from := CostYearStart.AddDate(0, m, 0)
		days := int(from.AddDate(0, 1, 0).Sub(from) / (24 * time.Hour))
		d0 := int(from.Sub(CostYearStart) / (24 * time.Hour))
		imp := gpucost.CostImport{Name: fmt.Sprintf("focus-%s.csv", from.Format("2006-01")), Checksum: fmt.Sprint("bench-", m),
			Format: "focus", Version: "1.2", Grain: 24 * time.Hour, Rows: days * resources * 24}
		if _, err := db.PutCosts(ctx, imp, fleet.Lines(d0, days), nil); err != nil {
			b.Fatal(err)
		}
	}
	if err := db.SetSetting(ctx, "bench_costs_fixture", "complete"); err != nil {
		b.Fatal(err)
	}
	if _, err := db.SQL().ExecContext(ctx, `PRAGMA wal_checkpoint(TRUNCATE)`); err != nil {
		b.Fatal(err)
	}
	info, _ := os.Stat(path)
	b.Logf("built %s (%d MiB) in %s", path, info.Size()>>20, time.Since(began).Round(time.Second))
	return db
}

// BilledFleet opens HourFleet's 10,000-GPU store with a bill for it: one AWS p4de.24xlarge
// (8 × A100-80GB) per telemetry host, billed on-demand for every day of the 30 days, the
// resource id being the host name. The bill is added on first use and kept with the fixture.
func BilledFleet(tb testing.TB) *sqlite.DB {
	tb.Helper()
	const gpus, days = 10_000, 30
	db := HourFleet(tb, gpus, days)
	ctx := context.Background()
	if done, _ := db.Setting(ctx, "bench_bill", ""); done == "complete" {
		return db
	}
	start := End.AddDate(0, 0, -days)
	day := gpucost.USD(24 * 27_447_000_000) // p4de.24xlarge at $27.447/h
	lines := func(yield func(*gpucost.CostLine) bool) {
		var l gpucost.CostLine
		for d := range days {
			t := start.AddDate(0, 0, d)
			for h := range gpus / 8 {
				l = gpucost.CostLine{Provider: "AWS", SubAccountID: "123456789012", ChargeCategory: "Usage", PricingCategory: "Standard",
					ChargePeriodStart: t, ChargePeriodEnd: t.AddDate(0, 0, 1), BilledCost: day, EffectiveCost: day, ListCost: day, ContractedCost: day,
					ResourceID: fmt.Sprintf("node%04d", h), InstanceType: "p4de.24xlarge", ServiceName: "Amazon Elastic Compute Cloud",
					RegionID: "us-east-1", SkuID: "P4DE", ConsumedQuantity: 24, ConsumedUnit: "Hours",
					Tags: gpucost.Labels{"team": fmt.Sprintf("team%d", h%13)}}
				if !yield(&l) {
					return
				}
			}
		}
	}
	imp := gpucost.CostImport{Name: "bench-bill.csv", Checksum: "bench-bill", Format: "focus", Grain: 24 * time.Hour, Rows: days * gpus / 8}
	if _, err := db.PutCosts(ctx, imp, lines, nil); err != nil {
		tb.Fatal(err)
	}
	if err := db.SetSetting(ctx, "bench_bill", "complete"); err != nil {
		tb.Fatal(err)
	}
	return db
}
