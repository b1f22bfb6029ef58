package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/internal/storeutil"
)

// DB keeps the offers users import on top of the bundled catalog (migration 0003_offers.sql).
var _ gpucost.OfferStore = (*DB)(nil)

// PutOffers adds offers, replacing stored ones with the same provider, region, zone and instance
// type, in one transaction: on any error nothing is stored. Providers are stored lower-case.
// Within one call a later offer with the same key replaces an earlier one and is not counted
// again.
func (db *DB) PutOffers(ctx context.Context, offers []gpucost.Offer) (added, replaced int, err error) {
	if err := storeutil.CheckOffers(offers); err != nil {
		return 0, 0, err
	}
	tx, err := db.sql.BeginTx(ctx, nil)
	if err != nil {
		return 0, 0, fmt.Errorf("store offers in %s: %w", db.Path, err)
	}
	defer tx.Rollback()
	var tally storeutil.Tally[storeutil.OfferKey]
	for _, o := range offers {
		k := storeutil.KeyOf(o)
		if tally.First(k) {
			var n int
			err := tx.QueryRowContext(ctx, `SELECT count(*) FROM offers
				WHERE provider = ? AND region = ? AND zone = ? AND instance_type = ?`,
				k.Provider, k.Region, k.Zone, k.Instance).Scan(&n)
			if err != nil {
				return 0, 0, fmt.Errorf("store offers in %s: look up %s %s %s: %w", db.Path, k.Provider, k.Region, k.Instance, err)
			}
			tally.Count(n == 0)
		}
		if err := putOffer(ctx, tx, k.Provider, o); err != nil {
			return 0, 0, fmt.Errorf("store offers in %s: %s %s %s: %w", db.Path, k.Provider, k.Region, k.Instance, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return 0, 0, fmt.Errorf("store offers in %s: %w", db.Path, err)
	}
	return tally.Added, tally.Replaced, nil
}

func putOffer(ctx context.Context, tx *sql.Tx, provider string, o gpucost.Offer) error {
	currency := o.OnDemand.Currency
	if currency == "" {
		currency = o.SpotPrice.Currency
	}
	if currency == "" {
		currency = "USD"
	}
	asOf := ""
	if !o.AsOf.IsZero() {
		asOf = o.AsOf.UTC().Format(time.RFC3339Nano)
	}
	_, err := tx.ExecContext(ctx, `INSERT INTO offers (provider, region, zone, instance_type, gpu_model,
		gpu_count, gpu_memory_gb, vcpus, memory_gib, currency, on_demand_nanos, spot_nanos, source, as_of)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (provider, region, zone, instance_type) DO UPDATE SET
		gpu_model = excluded.gpu_model, gpu_count = excluded.gpu_count, gpu_memory_gb = excluded.gpu_memory_gb,
		vcpus = excluded.vcpus, memory_gib = excluded.memory_gib, currency = excluded.currency,
		on_demand_nanos = excluded.on_demand_nanos, spot_nanos = excluded.spot_nanos,
		source = excluded.source, as_of = excluded.as_of`,
		provider, o.Region, o.Zone, o.InstanceType, o.GPUModel, o.GPUCount, o.GPUMemoryGB, o.VCPUs, o.MemoryGiB,
		currency, nullNanos(o.OnDemand, o.HasOnDemand), nullNanos(o.SpotPrice, o.HasSpot), o.Source, asOf)
	return err
}

func nullNanos(m gpucost.Money, ok bool) sql.NullInt64 {
	return sql.NullInt64{Int64: m.Nanos, Valid: ok}
}

// Offers returns the stored offers that match f, by provider, region, zone and instance type.
func (db *DB) Offers(ctx context.Context, f gpucost.OfferFilter) ([]gpucost.Offer, error) {
	q := `SELECT provider, region, zone, instance_type, gpu_model, gpu_count, gpu_memory_gb, vcpus,
		memory_gib, currency, on_demand_nanos, spot_nanos, source, as_of FROM offers WHERE 1 = 1`
	var args []any
	in := func(col string, vals []string, lower bool) {
		if len(vals) == 0 {
			return
		}
		q += " AND " + col + " IN (" + strings.TrimSuffix(strings.Repeat("?, ", len(vals)), ", ") + ")"
		for _, v := range vals {
			if lower {
				v = strings.ToLower(v)
			}
			args = append(args, v)
		}
	}
	in("provider", f.Providers, true)
	in("region", f.Regions, false)
	in("gpu_model", f.GPUModels, false)
	q += " ORDER BY provider, region, zone, instance_type"
	rows, err := db.sql.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("read offers from %s: %w", db.Path, err)
	}
	defer rows.Close()
	var out []gpucost.Offer
	for rows.Next() {
		o, err := scanOffer(rows)
		if err != nil {
			return nil, fmt.Errorf("read offers from %s: %w", db.Path, err)
		}
		out = append(out, o)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read offers from %s: %w", db.Path, err)
	}
	return out, nil
}

func scanOffer(rows *sql.Rows) (gpucost.Offer, error) {
	var o gpucost.Offer
	var currency, asOf string
	var od, spot sql.NullInt64
	err := rows.Scan(&o.Provider, &o.Region, &o.Zone, &o.InstanceType, &o.GPUModel, &o.GPUCount, &o.GPUMemoryGB,
		&o.VCPUs, &o.MemoryGiB, &currency, &od, &spot, &o.Source, &asOf)
	if err != nil {
		return o, err
	}
	if od.Valid {
		o.OnDemand, o.HasOnDemand = gpucost.Money{Nanos: od.Int64, Currency: currency}, true
	}
	if spot.Valid {
		o.SpotPrice, o.HasSpot = gpucost.Money{Nanos: spot.Int64, Currency: currency}, true
	}
	if asOf != "" {
		t, err := time.Parse(time.RFC3339Nano, asOf)
		if err != nil {
			return o, fmt.Errorf("offer %s %s %s: as_of %q: %w", o.Provider, o.Region, o.InstanceType, asOf, err)
		}
		o.AsOf = t
	}
	return o, nil
}
