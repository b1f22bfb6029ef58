package postgres

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/internal/storeutil"
	"github.com/jackc/pgx/v5"
)

// DB keeps the offers users import on top of the bundled catalog.
var _ gpucost.OfferStore = (*DB)(nil)

// PutOffers adds offers, replacing stored ones with the same provider, region, zone and instance
// type, in one transaction: on any error nothing is stored. Providers are stored lower-case.
// Within one call a later offer with the same key replaces an earlier one and is not counted
// again.
func (db *DB) PutOffers(ctx context.Context, offers []gpucost.Offer) (added, replaced int, err error) {
	if err := storeutil.CheckOffers(offers); err != nil {
		return 0, 0, err
	}
	tx, err := db.pool.Begin(ctx)
	if err != nil {
		return 0, 0, fmt.Errorf("store offers in %s: %w", db.name, err)
	}
	defer tx.Rollback(context.WithoutCancel(ctx))
	var tally storeutil.Tally[storeutil.OfferKey]
	for _, o := range offers {
		k := storeutil.KeyOf(o)
		// xmax is 0 for a row this statement inserted, the updating transaction's id otherwise.
		var inserted bool
		if err := putOffer(ctx, tx, k.Provider, o).Scan(&inserted); err != nil {
			return 0, 0, fmt.Errorf("store offers in %s: %s %s %s: %w", db.name, k.Provider, k.Region, k.Instance, err)
		}
		if tally.First(k) {
			tally.Count(inserted)
		}
	}
	if err := tx.Commit(ctx); err != nil {
		return 0, 0, fmt.Errorf("store offers in %s: %w", db.name, err)
	}
	return tally.Added, tally.Replaced, nil
}

func putOffer(ctx context.Context, tx pgx.Tx, provider string, o gpucost.Offer) pgx.Row {
	currency := o.OnDemand.Currency
	if currency == "" {
		currency = o.SpotPrice.Currency
	}
	if currency == "" {
		currency = "USD"
	}
	var asOf *time.Time
	if !o.AsOf.IsZero() {
		t := o.AsOf.UTC()
		asOf = &t
	}
	ns := subMicro(o.AsOf)
	return tx.QueryRow(ctx, `INSERT INTO offers (provider, region, zone, instance_type, gpu_model,
		gpu_count, gpu_memory_gb, vcpus, memory_gib, currency, on_demand_nanos, spot_nanos, source, as_of, as_of_ns)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)
		ON CONFLICT (provider, region, zone, instance_type) DO UPDATE SET
		gpu_model = excluded.gpu_model, gpu_count = excluded.gpu_count, gpu_memory_gb = excluded.gpu_memory_gb,
		vcpus = excluded.vcpus, memory_gib = excluded.memory_gib, currency = excluded.currency,
		on_demand_nanos = excluded.on_demand_nanos, spot_nanos = excluded.spot_nanos,
		source = excluded.source, as_of = excluded.as_of, as_of_ns = excluded.as_of_ns
		RETURNING xmax = 0`,
		provider, o.Region, o.Zone, o.InstanceType, o.GPUModel, o.GPUCount, o.GPUMemoryGB, o.VCPUs, o.MemoryGiB,
		currency, nullNanos(o.OnDemand, o.HasOnDemand), nullNanos(o.SpotPrice, o.HasSpot), o.Source, asOf, ns)
}

func nullNanos(m gpucost.Money, ok bool) *int64 {
	if !ok {
		return nil
	}
	return &m.Nanos
}

// Offers returns the stored offers that match f, by provider, region, zone and instance type.
func (db *DB) Offers(ctx context.Context, f gpucost.OfferFilter) ([]gpucost.Offer, error) {
	q := `SELECT provider, region, zone, instance_type, gpu_model, gpu_count, gpu_memory_gb, vcpus,
		memory_gib, currency, on_demand_nanos, spot_nanos, source, as_of, as_of_ns FROM offers WHERE true`
	var args []any
	in := func(col string, vals []string, lower bool) {
		if len(vals) == 0 {
			return
		}
		if lower {
			vals = append([]string(nil), vals...)
			for i, v := range vals {
				vals[i] = strings.ToLower(v)
			}
		}
		args = append(args, vals)
		q += fmt.Sprintf(" AND %s = ANY($%d)", col, len(args))
	}
	in("provider", f.Providers, true)
	in("region", f.Regions, false)
	in("gpu_model", f.GPUModels, false)
	q += " ORDER BY provider, region, zone, instance_type"
	rows, err := db.pool.Query(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("read offers from %s: %w", db.name, err)
	}
	defer rows.Close()
	var out []gpucost.Offer
	for rows.Next() {
		var o gpucost.Offer
		var currency string
		var od, spot *int64
		var asOf *time.Time
		var ns int16
		if err := rows.Scan(&o.Provider, &o.Region, &o.Zone, &o.InstanceType, &o.GPUModel, &o.GPUCount, &o.GPUMemoryGB,
			&o.VCPUs, &o.MemoryGiB, &currency, &od, &spot, &o.Source, &asOf, &ns); err != nil {
			return nil, fmt.Errorf("read offers from %s: %w", db.name, err)
		}
		if od != nil {
			o.OnDemand, o.HasOnDemand = gpucost.Money{Nanos: *od, Currency: currency}, true
		}
		if spot != nil {
			o.SpotPrice, o.HasSpot = gpucost.Money{Nanos: *spot, Currency: currency}, true
		}
		if asOf != nil {
			o.AsOf = asOf.UTC().Add(time.Duration(ns))
		}
		out = append(out, o)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read offers from %s: %w", db.name, err)
	}
	return out, nil
}
