package postgres

import (
	"cmp"
	"context"
	"fmt"
	"math/bits"
	"slices"
	"strings"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/internal/storeutil"
	"github.com/jackc/pgx/v5"
)

// DB keeps series and their rollups a row each, and merges what is written with what is stored
// by gpucost.MergeRollups, as the SQLite store does.
var _ gpucost.RollupStore = (*DB)(nil)

// rollupColumns are the columns of minute_rollups and hour_rollups, in the order of rollupRow.
var rollupColumns = []string{"series_id", "start", "samples", "coverage", "util_sum", "util_max", "util_p50",
	"util_p95", "mem_max", "mem_p95", "mem_total", "power_samples", "power_sum", "power_max", "temp_max",
	"prof_samples", "sm_active_sum", "sm_occupancy_sum", "gr_active_sum", "idle_minutes", "idle_mask", "util_hist"}

// rollupSelect selects rollupColumns from a rollup table named r.
var rollupSelect = "r." + strings.Join(rollupColumns, ", r.")

const histBins = storeutil.HistBins

// rollupKey names one rollup of one series.
type rollupKey struct {
	series int64
	start  int64 // Unix seconds
}

// item is one incoming rollup with its series id.
type item struct {
	hour bool
	key  rollupKey
	i    int // index into the rollups written
}

// WriteRollups stores rollups of both widths in one transaction, merging each with the stored
// rollup of its series and start: gpucost.MergeRollups for minutes and gpucost.MergeHours for hours,
// given the minutes of this write whose seconds were disjoint from the stored ones'. The rows of
// the series written stay locked until the transaction ends, so replicas writing the same series
// at once merge one after the other.
func (db *DB) WriteRollups(ctx context.Context, rs []gpucost.Rollup) (gpucost.WriteStats, error) {
	var st gpucost.WriteStats
	if len(rs) == 0 {
		return st, nil
	}
	if err := storeutil.CheckRollups(rs); err != nil {
		return st, err
	}
	tx, err := db.pool.Begin(ctx)
	if err != nil {
		return st, fmt.Errorf("write rollups to %s: %w", db.name, err)
	}
	defer tx.Rollback(context.WithoutCancel(ctx))
	ids, err := upsertSeries(ctx, tx, rs)
	if err != nil {
		return st, fmt.Errorf("write rollups to %s: %w", db.name, err)
	}
	items := make([]item, len(rs))
	for i := range rs {
		r := &rs[i]
		items[i] = item{hour: r.Width == time.Hour, key: rollupKey{ids[r.Series], r.Start.Unix()}, i: i}
	}
	slices.SortFunc(items, func(a, b item) int {
		return cmp.Or(cmpBool(a.hour, b.hour), cmp.Compare(a.key.series, b.key.series),
			cmp.Compare(a.key.start, b.key.start), cmp.Compare(a.i, b.i))
	})
	split := map[rollupKey]bool{} // minutes merged from disjoint seconds in this write: idle or not
	hourAt := slices.IndexFunc(items, func(it item) bool { return it.hour })
	if hourAt < 0 {
		hourAt = len(items)
	}
	for w, part := range [][]item{items[:hourAt], items[hourAt:]} {
		if len(part) == 0 {
			continue
		}
		m := merger{table: tables[w], hour: w == 1, split: split}
		if err := m.run(ctx, tx, part, rs, &st); err != nil {
			return gpucost.WriteStats{}, fmt.Errorf("write rollups to %s: %w", db.name, err)
		}
		if m.hour {
			// The days go with their hours, in the same transaction (docs/architecture.md
			// "Speed of the reports").
			if err := writeDays(ctx, tx, m.changed); err != nil {
				return gpucost.WriteStats{}, fmt.Errorf("write rollups to %s: %w", db.name, err)
			}
		}
	}
	if err := tx.Commit(ctx); err != nil {
		return gpucost.WriteStats{}, fmt.Errorf("write rollups to %s: commit: %w", db.name, err)
	}
	return st, nil
}

// tables are the rollup tables: [0] minutes, [1] hours.
var tables = [2]string{"minute_rollups", "hour_rollups"}

func tableOf(width time.Duration) string {
	if width == time.Hour {
		return tables[1]
	}
	return tables[0]
}

func cmpBool(a, b bool) int {
	if a == b {
		return 0
	}
	if a {
		return 1
	}
	return -1
}

// merger merges the incoming rollups of one width with the stored ones.
type merger struct {
	table   string
	hour    bool
	split   map[rollupKey]bool
	changed []rollupKey // the rows written, in order
}

// run loads the stored rollups items name, merges items (sorted by key) into them, counting in
// st, and writes back those that changed.
func (m *merger) run(ctx context.Context, tx pgx.Tx, items []item, rs []gpucost.Rollup, st *gpucost.WriteStats) error {
	stored, err := m.load(ctx, tx, items, rs)
	if err != nil {
		return fmt.Errorf("read %s: %w", m.table, err)
	}
	var changed []keyed
	var replace []rollupKey // stored rows that changed
	for lo := 0; lo < len(items); {
		hi := lo + 1
		for hi < len(items) && items[hi].key == items[lo].key {
			hi++
		}
		k := items[lo].key
		cur, had := stored[k]
		present, dirty := had, false
		for _, it := range items[lo:hi] {
			in := rs[it.i]
			if !present {
				cur, present, dirty = in, true, true
				st.Written++
				continue
			}
			var kind gpucost.MergeKind
			cur, kind = m.merge(k, cur, in)
			count(st, kind)
			dirty = dirty || kind != gpucost.RollupUnchanged
		}
		if dirty {
			m.changed = append(m.changed, k)
			changed = append(changed, keyed{k, cur})
			if had {
				replace = append(replace, k)
			}
		}
		lo = hi
	}
	return m.store(ctx, tx, changed, replace)
}

// merge merges in into cur, the rollup stored or written before it under key k.
func (m *merger) merge(k rollupKey, cur, in gpucost.Rollup) (gpucost.Rollup, gpucost.MergeKind) {
	if m.hour {
		split, idle := m.splitMinutes(k, cur.Coverage&in.Coverage)
		return gpucost.MergeHours(cur, in, split, idle)
	}
	out, kind := gpucost.MergeRollups(cur, in)
	if kind == gpucost.RollupMerged {
		m.split[k] = out.IdleMask != 0
	}
	return out, kind
}

func count(st *gpucost.WriteStats, kind gpucost.MergeKind) {
	switch kind {
	case gpucost.RollupUnchanged:
		st.Unchanged++
	case gpucost.RollupReplaced:
		st.Replaced++
	case gpucost.RollupMerged:
		st.Merged++
	case gpucost.RollupConflict:
		st.Conflicts++
	}
}

// splitMinutes returns which of the minutes overlap (bit i: minute i of hour k) were merged from
// disjoint seconds earlier in this write, and which of those are idle.
func (m *merger) splitMinutes(k rollupKey, overlap uint64) (split, idle uint64) {
	if len(m.split) == 0 {
		return 0, 0
	}
	for o := overlap; o != 0; o &= o - 1 {
		i := bits.TrailingZeros64(o)
		if isIdle, ok := m.split[rollupKey{k.series, k.start + int64(60*i)}]; ok {
			split |= 1 << i
			if isIdle {
				idle |= 1 << i
			}
		}
	}
	return split, idle
}

// load reads the stored rollups with the keys of items, each given the series of its item.
func (m *merger) load(ctx context.Context, tx pgx.Tx, items []item, rs []gpucost.Rollup) (map[rollupKey]gpucost.Rollup, error) {
	series, starts := keyArrays(items)
	rows, err := tx.Query(ctx, `SELECT `+rollupSelect+` FROM `+m.table+` r
		JOIN unnest($1::bigint[], $2::bigint[]) AS k(s, t) ON r.series_id = k.s AND r.start = k.t`, series, starts)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	width := time.Minute
	if m.hour {
		width = time.Hour
	}
	seriesOf := make(map[int64]*gpucost.Series)
	for _, it := range items {
		seriesOf[it.key.series] = rs[it.i].Series
	}
	out := map[rollupKey]gpucost.Rollup{}
	var row rollupRow
	for rows.Next() {
		if err := rows.Scan(row.dest()...); err != nil {
			return nil, err
		}
		r, err := row.rollup(seriesOf[row.series], width, nil)
		if err != nil {
			return nil, fmt.Errorf("series %d at %d: %w", row.series, row.start, err)
		}
		out[rollupKey{row.series, row.start}] = r
	}
	return out, rows.Err()
}

// keyArrays returns the distinct keys of items, sorted, as two arrays.
func keyArrays(items []item) (series, starts []int64) {
	for i, it := range items {
		if i > 0 && items[i-1].key == it.key {
			continue
		}
		series, starts = append(series, it.key.series), append(starts, it.key.start)
	}
	return series, starts
}

// keyed is a rollup with its key.
type keyed struct {
	key rollupKey
	r   gpucost.Rollup
}

// store deletes the stored rows in replace and copies changed in.
func (m *merger) store(ctx context.Context, tx pgx.Tx, changed []keyed, replace []rollupKey) error {
	if len(replace) > 0 {
		series, starts := make([]int64, len(replace)), make([]int64, len(replace))
		for i, k := range replace {
			series[i], starts[i] = k.series, k.start
		}
		if _, err := tx.Exec(ctx, `DELETE FROM `+m.table+` r USING unnest($1::bigint[], $2::bigint[]) AS k(s, t)
			WHERE r.series_id = k.s AND r.start = k.t`, series, starts); err != nil {
			return fmt.Errorf("replace %d rows of %s: %w", len(replace), m.table, err)
		}
	}
	if len(changed) == 0 {
		return nil
	}
	src := &rollupSource{rs: changed, at: -1}
	if _, err := tx.CopyFrom(ctx, pgx.Identifier{m.table}, rollupColumns, src); err != nil {
		return fmt.Errorf("copy %d rows into %s: %w", len(changed), m.table, err)
	}
	return nil
}
