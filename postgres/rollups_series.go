package postgres

import (
	"context"
	"fmt"
	"maps"
	"slices"

	"github.com/gpucost/gpucost"
	"github.com/jackc/pgx/v5"
)

// seriesSpan is one series being written and the time its rollups span.
type seriesSpan struct {
	series      *gpucost.Series
	first, last int64 // Unix seconds
}

// upsertSeries adds the series of rs that are new, widens the first and last seen times of the
// others and fills in what they lacked (a later model name wins, as in the SQLite store), and
// returns the id of each series pointer. Series are upserted in key order, so that writers
// that share series lock their rows in the same order and cannot deadlock.
func upsertSeries(ctx context.Context, tx pgx.Tx, rs []gpucost.Rollup) (map[*gpucost.Series]int64, error) {
	byKey := map[string]*seriesSpan{}
	keyOf := map[*gpucost.Series]string{}
	for i := range rs {
		r := &rs[i]
		k, ok := keyOf[r.Series]
		if !ok {
			k = r.Series.Key()
			keyOf[r.Series] = k
		}
		first, last := r.Start.Unix(), r.Start.Add(r.Width).Unix()
		if s := byKey[k]; s != nil {
			s.first, s.last = min(s.first, first), max(s.last, last)
		} else {
			byKey[k] = &seriesSpan{r.Series, first, last}
		}
	}
	keys := slices.Sorted(maps.Keys(byKey))
	b := &pgx.Batch{}
	for _, k := range keys {
		s := byKey[k]
		g := s.series.GPU
		b.Queue(`INSERT INTO series AS s (host, uuid, model, parent, profile, gpu_index, labels, first_seen, last_seen)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
			ON CONFLICT (host, uuid, labels) DO UPDATE SET
			model = CASE WHEN excluded.model <> '' THEN excluded.model ELSE s.model END,
			parent = CASE WHEN excluded.parent <> '' THEN excluded.parent ELSE s.parent END,
			profile = CASE WHEN excluded.profile <> '' THEN excluded.profile ELSE s.profile END,
			gpu_index = CASE WHEN excluded.gpu_index >= 0 THEN excluded.gpu_index ELSE s.gpu_index END,
			first_seen = least(s.first_seen, excluded.first_seen), last_seen = greatest(s.last_seen, excluded.last_seen)
			RETURNING id`, g.Host, g.UUID, g.Model, g.Parent, g.Profile, int32(g.Index), s.series.Labels.String(), s.first, s.last)
	}
	res := tx.SendBatch(ctx, b)
	idOf := make(map[string]int64, len(keys))
	for _, k := range keys {
		var id int64
		if err := res.QueryRow().Scan(&id); err != nil {
			res.Close()
			g := byKey[k].series.GPU
			return nil, fmt.Errorf("store series %s on %s: %w", g.UUID, g.Host, err)
		}
		idOf[k] = id
	}
	if err := res.Close(); err != nil {
		return nil, fmt.Errorf("store series: %w", err)
	}
	ids := make(map[*gpucost.Series]int64, len(keyOf))
	for p, k := range keyOf {
		ids[p] = idOf[k]
	}
	return ids, nil
}

// storedSeries is a series as stored, with its id.
type storedSeries struct {
	id     int64
	series *gpucost.Series
}

// matchSeries returns the stored series that match f's hosts, GPUs, models and labels, in
// order of host, UUID and labels (byte order, as the SQLite store sorts).
func (db *DB) matchSeries(ctx context.Context, f gpucost.RollupFilter) ([]storedSeries, error) {
	rows, err := db.pool.Query(ctx, `SELECT id, host, uuid, model, parent, profile, gpu_index, labels
		FROM series ORDER BY host, uuid, labels`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []storedSeries
	for rows.Next() {
		var (
			id     int64
			g      gpucost.GPU
			index  int32
			labels string
		)
		if err := rows.Scan(&id, &g.Host, &g.UUID, &g.Model, &g.Parent, &g.Profile, &index, &labels); err != nil {
			return nil, err
		}
		g.Index = int(index)
		s := &gpucost.Series{GPU: g, Labels: gpucost.ParseLabels(labels)}
		if matches(s, f) {
			out = append(out, storedSeries{id, s})
		}
	}
	return out, rows.Err()
}

func matches(s *gpucost.Series, f gpucost.RollupFilter) bool {
	if len(f.Hosts) > 0 && !slices.Contains(f.Hosts, s.GPU.Host) ||
		len(f.GPUs) > 0 && !slices.Contains(f.GPUs, s.GPU.UUID) ||
		len(f.Models) > 0 && !slices.Contains(f.Models, s.GPU.Model) {
		return false
	}
	for k, v := range f.Labels {
		if got, ok := s.Labels[k]; !ok || got != v {
			return false
		}
	}
	return true
}
