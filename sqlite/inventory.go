package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/internal/storeutil"
)

// DB keeps the inventory that ties billed resources to telemetry hosts (migration
// 0004_costs.sql). Tags are stored as a JSON object, so any key and value round-trip exactly.
var _ gpucost.InventoryStore = (*DB)(nil)

// PutInventory adds entries, replacing stored ones with the same resource id, in one
// transaction: on any error nothing is stored. Within one call a later entry with the same
// resource id replaces an earlier one and is not counted again.
func (db *DB) PutInventory(ctx context.Context, entries []gpucost.InventoryEntry) (added, replaced int, err error) {
	if err := storeutil.CheckInventory(entries); err != nil {
		return 0, 0, err
	}
	tx, err := db.sql.BeginTx(ctx, nil)
	if err != nil {
		return 0, 0, fmt.Errorf("store inventory in %s: %w", db.Path, err)
	}
	defer tx.Rollback()
	exists, err := tx.PrepareContext(ctx, `SELECT count(*) FROM inventory WHERE resource_id = ?`)
	if err != nil {
		return 0, 0, fmt.Errorf("store inventory in %s: %w", db.Path, err)
	}
	defer exists.Close()
	put, err := tx.PrepareContext(ctx, `INSERT INTO inventory (resource_id, host, provider, instance_type, gpu_model, gpus, tags)
		VALUES (?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (resource_id) DO UPDATE SET host = excluded.host, provider = excluded.provider,
		instance_type = excluded.instance_type, gpu_model = excluded.gpu_model, gpus = excluded.gpus, tags = excluded.tags`)
	if err != nil {
		return 0, 0, fmt.Errorf("store inventory in %s: %w", db.Path, err)
	}
	defer put.Close()
	var tally storeutil.Tally[string]
	for _, e := range entries {
		if tally.First(e.ResourceID) {
			var n int
			if err := exists.QueryRowContext(ctx, e.ResourceID).Scan(&n); err != nil {
				return 0, 0, fmt.Errorf("store inventory in %s: look up %s: %w", db.Path, e.ResourceID, err)
			}
			tally.Count(n == 0)
		}
		tags, err := json.Marshal(e.Tags)
		if err != nil {
			return 0, 0, fmt.Errorf("store inventory in %s: tags of %s: %w", db.Path, e.ResourceID, err)
		}
		if _, err := put.ExecContext(ctx, e.ResourceID, e.Host, e.Provider, e.InstanceType, e.GPUModel, e.GPUs, string(tags)); err != nil {
			return 0, 0, fmt.Errorf("store inventory in %s: %s: %w", db.Path, e.ResourceID, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return 0, 0, fmt.Errorf("store inventory in %s: %w", db.Path, err)
	}
	return tally.Added, tally.Replaced, nil
}

// Inventory returns every entry, ordered by resource id.
func (db *DB) Inventory(ctx context.Context) ([]gpucost.InventoryEntry, error) {
	rows, err := db.sql.QueryContext(ctx, `SELECT resource_id, host, provider, instance_type, gpu_model, gpus, tags
		FROM inventory ORDER BY resource_id`)
	if err != nil {
		return nil, fmt.Errorf("read inventory from %s: %w", db.Path, err)
	}
	defer rows.Close()
	var out []gpucost.InventoryEntry
	for rows.Next() {
		e, err := scanInventory(rows)
		if err != nil {
			return nil, fmt.Errorf("read inventory from %s: %w", db.Path, err)
		}
		out = append(out, e)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read inventory from %s: %w", db.Path, err)
	}
	return out, nil
}

func scanInventory(rows *sql.Rows) (gpucost.InventoryEntry, error) {
	var e gpucost.InventoryEntry
	var tags string
	if err := rows.Scan(&e.ResourceID, &e.Host, &e.Provider, &e.InstanceType, &e.GPUModel, &e.GPUs, &tags); err != nil {
		return e, err
	}
	if err := json.Unmarshal([]byte(tags), &e.Tags); err != nil {
		return e, fmt.Errorf("tags of %s: %w", e.ResourceID, err)
	}
	return e, nil
}
