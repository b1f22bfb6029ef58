package sqlite

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/gpucost/gpucost"
)

// seriesSpan is one series being written and the time its rollups span.
type seriesSpan struct {
	series      *gpucost.Series
	first, last int64 // Unix seconds
}

// upsertSeries adds the series of rs that are new, widens the first and last seen times of the
// others, and returns the id of each series pointer.
func upsertSeries(ctx context.Context, tx *sql.Tx, rs []gpucost.Rollup) (map[*gpucost.Series]int64, error) {
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
	st, err := prepareSeries(ctx, tx)
	if err != nil {
		return nil, err
	}
	defer st.close()
	idOf := make(map[string]int64, len(byKey))
	for _, k := range slices.Sorted(maps.Keys(byKey)) {
		s := byKey[k]
		id, err := st.upsert(ctx, s)
		if err != nil {
			g := s.series.GPU
			return nil, fmt.Errorf("store series %s on %s: %w", g.UUID, g.Host, err)
		}
		idOf[k] = id
	}
	ids := make(map[*gpucost.Series]int64, len(keyOf))
	for p, k := range keyOf {
		ids[p] = idOf[k]
	}
	return ids, nil
}

// seriesStmts are the statements that look series up and add or update them.
type seriesStmts struct{ get, add, update *sql.Stmt }

func prepareSeries(ctx context.Context, tx *sql.Tx) (*seriesStmts, error) {
	var st seriesStmts
	var err error
	if st.get, err = tx.PrepareContext(ctx, `SELECT id, model, parent, profile, gpu_index, first_seen, last_seen
		FROM series WHERE host = ? AND uuid = ? AND labels = ?`); err != nil {
		return nil, err
	}
	if st.add, err = tx.PrepareContext(ctx, `INSERT INTO series(host, uuid, model, parent, profile, gpu_index, labels, first_seen, last_seen)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`); err != nil {
		st.close()
		return nil, err
	}
	if st.update, err = tx.PrepareContext(ctx, `UPDATE series SET model = ?, parent = ?, profile = ?, gpu_index = ?,
		first_seen = ?, last_seen = ? WHERE id = ?`); err != nil {
		st.close()
		return nil, err
	}
	return &st, nil
}

func (st *seriesStmts) close() {
	for _, s := range []*sql.Stmt{st.get, st.add, st.update} {
		if s != nil {
			s.Close()
		}
	}
}

// upsert returns the id of s's series, adding it if it is new and updating it when s widens
// its first or last seen time or names what the stored row lacks (a later model name wins).
func (st *seriesStmts) upsert(ctx context.Context, s *seriesSpan) (int64, error) {
	g, labels := s.series.GPU, s.series.Labels.String()
	var (
		id          int64
		old         gpucost.GPU
		first, last int64
	)
	err := st.get.QueryRowContext(ctx, g.Host, g.UUID, labels).Scan(&id, &old.Model, &old.Parent, &old.Profile, &old.Index, &first, &last)
	if errors.Is(err, sql.ErrNoRows) {
		res, err := st.add.ExecContext(ctx, g.Host, g.UUID, g.Model, g.Parent, g.Profile, g.Index, labels, s.first, s.last)
		if err != nil {
			return 0, err
		}
		return res.LastInsertId()
	}
	if err != nil {
		return 0, err
	}
	now := old
	now.Model, now.Parent, now.Profile = cmp.Or(g.Model, old.Model), cmp.Or(g.Parent, old.Parent), cmp.Or(g.Profile, old.Profile)
	if g.Index >= 0 {
		now.Index = g.Index
	}
	if now == old && s.first >= first && s.last <= last {
		return id, nil
	}
	_, err = st.update.ExecContext(ctx, now.Model, now.Parent, now.Profile, now.Index, min(first, s.first), max(last, s.last), id)
	return id, err
}

// storedSeries is a series as stored, with its id.
type storedSeries struct {
	id          int64
	series      *gpucost.Series
	first, last int64 // Unix seconds: every stored rollup of the series lies in [first, last)
}

// matchSeries returns the stored series that match f's hosts, GPUs, models and labels, in
// order of host, UUID and labels.
func (db *DB) matchSeries(ctx context.Context, f gpucost.RollupFilter) ([]storedSeries, error) {
	rows, err := db.sql.QueryContext(ctx, `SELECT id, host, uuid, model, parent, profile, gpu_index, labels, first_seen, last_seen
		FROM series ORDER BY host, uuid, labels`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []storedSeries
	for rows.Next() {
		var (
			id, first, last int64
			g               gpucost.GPU
			labels          string
		)
		if err := rows.Scan(&id, &g.Host, &g.UUID, &g.Model, &g.Parent, &g.Profile, &g.Index, &labels, &first, &last); err != nil {
			return nil, err
		}
		s := &gpucost.Series{GPU: g, Labels: gpucost.ParseLabels(labels)}
		if matches(s, f) {
			out = append(out, storedSeries{id, s, first, last})
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
