package postgres

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/internal/storeutil"
)

// DB keeps the inventory that ties billed resources to telemetry hosts. Tags are stored as a
// JSON object, so any key and value round-trip exactly.
var _ gpucost.InventoryStore = (*DB)(nil)

// PutInventory adds entries, replacing stored ones with the same resource id, in one
// transaction: on any error nothing is stored. Within one call a later entry with the same
// resource id replaces an earlier one and is not counted again.
func (db *DB) PutInventory(ctx context.Context, entries []gpucost.InventoryEntry) (added, replaced int, err error) {
	if err := storeutil.CheckInventory(entries); err != nil {
		return 0, 0, err
	}
	tx, err := db.pool.Begin(ctx)
	if err != nil {
		return 0, 0, fmt.Errorf("store inventory in %s: %w", db.name, err)
	}
	defer tx.Rollback(context.WithoutCancel(ctx))
	var tally storeutil.Tally[string]
	for _, e := range entries {
		tags, err := json.Marshal(e.Tags)
		if err != nil {
			return 0, 0, fmt.Errorf("store inventory in %s: tags of %s: %w", db.name, e.ResourceID, err)
		}
		var inserted bool // xmax is 0 for a row this statement inserted
		err = tx.QueryRow(ctx, `INSERT INTO inventory (resource_id, host, provider, instance_type, gpu_model, gpus, tags)
			VALUES ($1, $2, $3, $4, $5, $6, $7)
			ON CONFLICT (resource_id) DO UPDATE SET host = excluded.host, provider = excluded.provider,
			instance_type = excluded.instance_type, gpu_model = excluded.gpu_model, gpus = excluded.gpus, tags = excluded.tags
			RETURNING xmax = 0`, e.ResourceID, e.Host, e.Provider, e.InstanceType, e.GPUModel, e.GPUs, string(tags)).Scan(&inserted)
		if err != nil {
			return 0, 0, fmt.Errorf("store inventory in %s: %s: %w", db.name, e.ResourceID, err)
		}
		if tally.First(e.ResourceID) {
			tally.Count(inserted)
		}
	}
	if err := tx.Commit(ctx); err != nil {
		return 0, 0, fmt.Errorf("store inventory in %s: %w", db.name, err)
	}
	return tally.Added, tally.Replaced, nil
}

// Inventory returns every entry, ordered by resource id.
func (db *DB) Inventory(ctx context.Context) ([]gpucost.InventoryEntry, error) {
	rows, err := db.pool.Query(ctx, `SELECT resource_id, host, provider, instance_type, gpu_model, gpus, tags::text
		FROM inventory ORDER BY resource_id`)
	if err != nil {
		return nil, fmt.Errorf("read inventory from %s: %w", db.name, err)
	}
	defer rows.Close()
	var out []gpucost.InventoryEntry
	for rows.Next() {
		var e gpucost.InventoryEntry
		var gpus int32
		var tags string
		if err := rows.Scan(&e.ResourceID, &e.Host, &e.Provider, &e.InstanceType, &e.GPUModel, &gpus, &tags); err != nil {
			return nil, fmt.Errorf("read inventory from %s: %w", db.name, err)
		}
		e.GPUs = int(gpus)
		if err := json.Unmarshal([]byte(tags), &e.Tags); err != nil {
			return nil, fmt.Errorf("read inventory from %s: tags of %s: %w", db.name, e.ResourceID, err)
		}
		out = append(out, e)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read inventory from %s: %w", db.name, err)
	}
	return out, nil
}
