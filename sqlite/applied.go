package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"time"

	"github.com/gpucost/gpucost"
)

// DB keeps the plan steps teams applied (migration 0023_applied_steps.sql).
var _ gpucost.AppliedStepStore = (*DB)(nil)

const appliedColumns = `id, grp, lever, action, currency, predicted_nanos, before_nanos, after_nanos,
	provider, region, instance_type, namespace, resources, applied_ns, how, actor, note, recorded_ns`

// PutAppliedStep records s; a step already recorded under its id is an EConflict.
func (db *DB) PutAppliedStep(ctx context.Context, s gpucost.AppliedStep) error {
	if err := s.Check(); err != nil {
		return err
	}
	res, err := json.Marshal(append([]string{}, s.Resources...))
	if err != nil {
		return err
	}
	r, err := db.sql.ExecContext(ctx, `INSERT INTO applied_steps(`+appliedColumns+`)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING`,
		s.ID, s.Group, s.Lever, s.Action, s.Predicted.Currency, s.Predicted.Nanos, s.Before.Nanos, s.After.Nanos,
		s.Provider, s.Region, s.InstanceType, s.Namespace, string(res), s.At.UnixNano(), s.How, s.Actor, s.Note, s.Recorded.UnixNano())
	if err != nil {
		return fmt.Errorf("record applied step %s in %s: %w", s.ID, db.Path, err)
	}
	if n, err := r.RowsAffected(); err != nil || n == 0 {
		return gpucost.Errorf(gpucost.EConflict, "step %s is recorded applied already: remove it first (gpucost recommend applied --remove %s)", s.ID, s.ID)
	}
	return nil
}

// AppliedSteps returns every recorded step, in order of the time it was applied and then id.
func (db *DB) AppliedSteps(ctx context.Context) ([]gpucost.AppliedStep, error) {
	rows, err := db.sql.QueryContext(ctx, `SELECT `+appliedColumns+` FROM applied_steps ORDER BY applied_ns, id`)
	if err != nil {
		return nil, fmt.Errorf("read applied steps in %s: %w", db.Path, err)
	}
	defer rows.Close()
	out := []gpucost.AppliedStep{}
	for rows.Next() {
		s, err := scanApplied(rows)
		if err != nil {
			return nil, fmt.Errorf("read applied steps in %s: %w", db.Path, err)
		}
		out = append(out, s)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read applied steps in %s: %w", db.Path, err)
	}
	return out, nil
}

// RemoveAppliedStep deletes the step recorded under id and returns it.
func (db *DB) RemoveAppliedStep(ctx context.Context, id string) (gpucost.AppliedStep, error) {
	tx, err := db.sql.BeginTx(ctx, nil)
	if err != nil {
		return gpucost.AppliedStep{}, fmt.Errorf("remove applied step %s in %s: %w", id, db.Path, err)
	}
	defer tx.Rollback()
	s, err := scanApplied(tx.QueryRowContext(ctx, `SELECT `+appliedColumns+` FROM applied_steps WHERE id = ?`, id))
	if err == sql.ErrNoRows {
		return s, gpucost.Errorf(gpucost.ENotFound, "step %s is not recorded applied: gpucost recommend applied lists those that are", id)
	}
	if err != nil {
		return s, fmt.Errorf("remove applied step %s in %s: %w", id, db.Path, err)
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM applied_steps WHERE id = ?`, id); err != nil {
		return s, fmt.Errorf("remove applied step %s in %s: %w", id, db.Path, err)
	}
	if err := tx.Commit(); err != nil {
		return s, fmt.Errorf("remove applied step %s in %s: %w", id, db.Path, err)
	}
	return s, nil
}

func scanApplied(row interface{ Scan(...any) error }) (gpucost.AppliedStep, error) {
	var s gpucost.AppliedStep
	var cur, res string
	var at, recorded int64
	err := row.Scan(&s.ID, &s.Group, &s.Lever, &s.Action, &cur, &s.Predicted.Nanos, &s.Before.Nanos, &s.After.Nanos,
		&s.Provider, &s.Region, &s.InstanceType, &s.Namespace, &res, &at, &s.How, &s.Actor, &s.Note, &recorded)
	if err != nil {
		return s, err
	}
	s.Predicted.Currency, s.Before.Currency, s.After.Currency = cur, cur, cur
	s.At, s.Recorded = time.Unix(0, at).UTC(), time.Unix(0, recorded).UTC()
	if err := json.Unmarshal([]byte(res), &s.Resources); err != nil {
		return s, fmt.Errorf("step %s: resources %q: %w", s.ID, res, err)
	}
	return s, nil
}
