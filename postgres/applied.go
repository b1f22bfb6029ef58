package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/gpucost/gpucost"
	"github.com/jackc/pgx/v5"
)

// DB keeps the plan steps teams applied (migration 0023_applied_steps.sql).
var _ gpucost.AppliedStepStore = (*DB)(nil)

const appliedColumns = `id, grp, lever, action, currency, predicted_nanos, before_nanos, after_nanos,
	provider, region, instance_type, namespace, resources, applied_at, how, actor, note, recorded_at`

// PutAppliedStep records s; a step already recorded under its id is an EConflict.
func (db *DB) PutAppliedStep(ctx context.Context, s gpucost.AppliedStep) error {
	if err := s.Check(); err != nil {
		return err
	}
	tag, err := db.pool.Exec(ctx, `INSERT INTO applied_steps(`+appliedColumns+`)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18) ON CONFLICT (id) DO NOTHING`,
		s.ID, s.Group, s.Lever, s.Action, s.Predicted.Currency, s.Predicted.Nanos, s.Before.Nanos, s.After.Nanos,
		s.Provider, s.Region, s.InstanceType, s.Namespace, append([]string{}, s.Resources...), s.At.UTC(), s.How, s.Actor, s.Note, s.Recorded.UTC())
	if err != nil {
		return fmt.Errorf("record applied step %s in %s: %w", s.ID, db.name, err)
	}
	if tag.RowsAffected() == 0 {
		return gpucost.Errorf(gpucost.EConflict, "step %s is recorded applied already: remove it first (gpucost recommend applied --remove %s)", s.ID, s.ID)
	}
	return nil
}

// AppliedSteps returns every recorded step, in order of the time it was applied and then id.
func (db *DB) AppliedSteps(ctx context.Context) ([]gpucost.AppliedStep, error) {
	rows, err := db.pool.Query(ctx, `SELECT `+appliedColumns+` FROM applied_steps ORDER BY applied_at, id`)
	if err != nil {
		return nil, fmt.Errorf("read applied steps in %s: %w", db.name, err)
	}
	defer rows.Close()
	out := []gpucost.AppliedStep{}
	for rows.Next() {
		s, err := scanApplied(rows)
		if err != nil {
			return nil, fmt.Errorf("read applied steps in %s: %w", db.name, err)
		}
		out = append(out, s)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read applied steps in %s: %w", db.name, err)
	}
	return out, nil
}

// RemoveAppliedStep deletes the step recorded under id and returns it.
func (db *DB) RemoveAppliedStep(ctx context.Context, id string) (gpucost.AppliedStep, error) {
	s, err := scanApplied(db.pool.QueryRow(ctx, `DELETE FROM applied_steps WHERE id = $1 RETURNING `+appliedColumns, id))
	if errors.Is(err, pgx.ErrNoRows) {
		return s, gpucost.Errorf(gpucost.ENotFound, "step %s is not recorded applied: gpucost recommend applied lists those that are", id)
	}
	if err != nil {
		return s, fmt.Errorf("remove applied step %s in %s: %w", id, db.name, err)
	}
	return s, nil
}

func scanApplied(row pgx.Row) (gpucost.AppliedStep, error) {
	var s gpucost.AppliedStep
	var cur string
	err := row.Scan(&s.ID, &s.Group, &s.Lever, &s.Action, &cur, &s.Predicted.Nanos, &s.Before.Nanos, &s.After.Nanos,
		&s.Provider, &s.Region, &s.InstanceType, &s.Namespace, &s.Resources, &s.At, &s.How, &s.Actor, &s.Note, &s.Recorded)
	if err != nil {
		return s, err
	}
	s.Predicted.Currency, s.Before.Currency, s.After.Currency = cur, cur, cur
	s.At, s.Recorded = s.At.UTC(), s.Recorded.UTC()
	if s.Resources == nil {
		s.Resources = []string{}
	}
	return s, nil
}
