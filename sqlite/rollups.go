package sqlite

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"math/bits"
	"slices"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/internal/storeutil"
)

// DB keeps series and their rollups packed many to a row (see rollups_codec.go and
// migrations/0002_telemetry.sql), and merges what is written with what is stored by
// gpucost.MergeRollups, the root package's rule, so both stores merge alike.
var _ gpucost.RollupStore = (*DB)(nil)

// rowItem is one incoming rollup placed in its packed row.
type rowItem struct {
	hour   bool  // an hour rollup (hours are merged after minutes)
	key    int64 // the row's key
	series int64
	row    int64 // the row number: day or hour since 1970
	slot   int
	i      int // index into the rollups written
}

// splitKey names one minute of one series.
type splitKey struct {
	series int64
	minute int64 // Unix seconds
}

// WriteRollups stores rollups of both widths in one transaction, merging each with the stored
// rollup of its series and start: gpucost.MergeRollups for minutes and gpucost.MergeHours for hours,
// given the minutes of this write whose seconds were disjoint from the stored ones'.
func (db *DB) WriteRollups(ctx context.Context, rs []gpucost.Rollup) (gpucost.WriteStats, error) {
	var st gpucost.WriteStats
	if len(rs) == 0 {
		return st, nil
	}
	if err := storeutil.CheckRollups(rs); err != nil {
		return st, err
	}
	tx, err := db.sql.BeginTx(ctx, nil)
	if err != nil {
		return st, fmt.Errorf("write rollups to %s: %w", db.Path, err)
	}
	defer tx.Rollback()
	ids, err := upsertSeries(ctx, tx, rs)
	if err != nil {
		return st, fmt.Errorf("write rollups to %s: %w", db.Path, err)
	}
	// Minutes first, then hours, each in the order written: a writer's rollups, series by
	// series and each in time order, are then in order already, most often.
	items := make([]rowItem, 0, len(rs))
	for _, hour := range []bool{false, true} {
		for i := range rs {
			r := &rs[i]
			if (r.Width == time.Hour) != hour {
				continue
			}
			l := layoutOf(r.Width)
			row, slot := l.rowOf(r.Start)
			id := ids[r.Series]
			items = append(items, rowItem{hour: hour, key: l.key(id, row), series: id, row: row, slot: slot, i: i})
		}
	}
	items = sortItems(items)
	m, err := newRowMerger(ctx, tx)
	if err != nil {
		return st, fmt.Errorf("write rollups to %s: %w", db.Path, err)
	}
	defer m.close()
	for lo, end := 0, 0; lo < len(items); {
		if lo == end {
			// A new stretch of rows of one series and width, no more than maxGap rows apart:
			// its stored rows in one read.
			for end = lo + 1; end < len(items) && items[end].hour == items[lo].hour && items[end].series == items[lo].series &&
				items[end].key-items[end-1].key <= maxGap; end++ {
			}
			if err := m.fetch(ctx, items[lo], items[end-1].key); err != nil {
				return gpucost.WriteStats{}, fmt.Errorf("write rollups to %s: %w", db.Path, err)
			}
		}
		hi := lo + 1
		for hi < len(items) && items[hi].hour == items[lo].hour && items[hi].key == items[lo].key {
			hi++
		}
		if err := m.mergeRow(ctx, items[lo:hi], rs, &st); err != nil {
			return gpucost.WriteStats{}, fmt.Errorf("write rollups to %s: %w", db.Path, err)
		}
		lo = hi
	}
	if err := tx.Commit(); err != nil {
		return gpucost.WriteStats{}, fmt.Errorf("write rollups to %s: commit: %w", db.Path, err)
	}
	return st, nil
}

// sortItems returns items in the order of cmpItems. A writer's rollups come series by series,
// each in time order, and a series' row keys are a range of their own: items is then a few
// stretches of one series each, in order, which are put in order of their first items rather
// than sorted item by item.
func sortItems(items []rowItem) []rowItem {
	var runs [][]rowItem
	for lo := 0; lo < len(items); {
		hi := lo + 1
		for hi < len(items) && items[hi].series == items[lo].series && items[hi].hour == items[lo].hour &&
			cmpItems(items[hi-1], items[hi]) <= 0 {
			hi++
		}
		runs = append(runs, items[lo:hi])
		lo = hi
	}
	if len(runs) <= len(items)/16 {
		slices.SortFunc(runs, func(a, b []rowItem) int { return cmpItems(a[0], b[0]) })
		out := make([]rowItem, 0, len(items))
		for _, r := range runs {
			out = append(out, r...)
		}
		if slices.IsSortedFunc(out, cmpItems) {
			return out
		}
	}
	slices.SortFunc(items, cmpItems)
	return items
}

// cmpItems orders rollups as they are merged: minutes before hours, then by row and slot, and
// in the order written.
func cmpItems(a, b rowItem) int {
	if a.hour != b.hour {
		return cmpBool(a.hour, b.hour)
	}
	return cmp.Or(cmp.Compare(a.key, b.key), cmp.Compare(a.slot, b.slot), cmp.Compare(a.i, b.i))
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

func layoutOf(width time.Duration) rowLayout {
	if width == time.Hour {
		return hourRows
	}
	return minuteRows
}

// maxGap is how many rows apart two rows of a series written at once may be and still be read
// in one range: the rows between are read too.
const maxGap = 16

// rowMerger reads, merges and writes packed rows within one transaction.
type rowMerger struct {
	get, put [2]*sql.Stmt // [0] minute rows, [1] hour rows
	putDay   *sql.Stmt    // the day row of an hour row (rollups_day.go)
	day      dayBuf
	stored   map[int64][]byte // the stored rows of the stretch being merged, by key
	slots    [maxSlots]gpucost.Rollup
	row      rowBuf // decodes stored rows, each with new histograms
	buf      []byte
	split    map[splitKey]bool // minutes merged from disjoint seconds in this write: idle or not
}

func newRowMerger(ctx context.Context, tx *sql.Tx) (*rowMerger, error) {
	m := &rowMerger{split: map[splitKey]bool{}, stored: map[int64][]byte{}}
	for i, l := range []rowLayout{minuteRows, hourRows} {
		var err error
		if m.get[i], err = tx.PrepareContext(ctx, `SELECT key, data FROM `+l.table+` WHERE key BETWEEN ? AND ?`); err != nil {
			m.close()
			return nil, err
		}
		if m.put[i], err = tx.PrepareContext(ctx, `INSERT INTO `+l.table+`(key, data) VALUES (?, ?)
			ON CONFLICT(key) DO UPDATE SET data = excluded.data`); err != nil {
			m.close()
			return nil, err
		}
	}
	var err error
	if m.putDay, err = tx.PrepareContext(ctx, `INSERT INTO `+dayTable+`(key, data) VALUES (?, ?)
		ON CONFLICT(key) DO UPDATE SET data = excluded.data`); err != nil {
		m.close()
		return nil, err
	}
	return m, nil
}

func (m *rowMerger) close() {
	for _, s := range append(m.get[:], m.put[0], m.put[1], m.putDay) {
		if s != nil {
			s.Close()
		}
	}
}

// mergeRow merges items, all in one packed row, into what the row holds, counting in st.
func (m *rowMerger) mergeRow(ctx context.Context, items []rowItem, rs []gpucost.Rollup, st *gpucost.WriteStats) error {
	first := items[0]
	l, which := minuteRows, 0
	if first.hour {
		l, which = hourRows, 1
	}
	present, err := m.load(l, first, rs[first.i].Series)
	if err != nil {
		return fmt.Errorf("read %s row %d: %w", l.table, first.key, err)
	}
	changed := false
	for _, it := range items {
		in, bit := rs[it.i], uint64(1)<<it.slot
		if present&bit == 0 {
			m.slots[it.slot], present, changed = in, present|bit, true
			st.Written++
			continue
		}
		var out gpucost.Rollup
		var kind gpucost.MergeKind
		if first.hour {
			split, idle := m.splitMinutes(it.series, in.Start, m.slots[it.slot].Coverage&in.Coverage)
			out, kind = gpucost.MergeHours(m.slots[it.slot], in, split, idle)
		} else {
			out, kind = gpucost.MergeRollups(m.slots[it.slot], in)
			if kind == gpucost.RollupMerged {
				m.split[splitKey{it.series, in.Start.Unix()}] = out.IdleMask != 0
			}
		}
		m.slots[it.slot] = out
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
		changed = changed || kind != gpucost.RollupUnchanged
	}
	if !changed {
		return nil
	}
	m.buf = encodeRow(m.buf, m.slots[:], present)
	if _, err := m.put[which].ExecContext(ctx, first.key, m.buf); err != nil {
		return fmt.Errorf("store %s row %d: %w", l.table, first.key, err)
	}
	if first.hour {
		// The day row goes with its hour row, in the same transaction (docs/architecture.md
		// "Speed of the reports").
		day, err := m.day.encode(m.slots[:], present)
		if err != nil {
			return fmt.Errorf("make %s row %d: %w", dayTable, first.key, err)
		}
		if _, err := m.putDay.ExecContext(ctx, first.key, day); err != nil {
			return fmt.Errorf("store %s row %d: %w", dayTable, first.key, err)
		}
	}
	return nil
}

// fetch reads the stored rows from first's to key last of first's table into m.stored: a
// stretch of rows of one series takes one read, rather than one a row.
func (m *rowMerger) fetch(ctx context.Context, first rowItem, last int64) error {
	which := 0
	if first.hour {
		which = 1
	}
	clear(m.stored)
	rows, err := m.get[which].QueryContext(ctx, first.key, last)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var key int64
		var data []byte
		if err := rows.Scan(&key, &data); err != nil {
			return err
		}
		m.stored[key] = data
	}
	return rows.Err()
}

// load decodes the stored row of it, fetched into m.stored, into m.slots and returns which
// slots it holds.
func (m *rowMerger) load(l rowLayout, it rowItem, s *gpucost.Series) (present uint64, err error) {
	data, ok := m.stored[it.key]
	if !ok {
		return 0, nil
	}
	if err := decodeRow(data, &m.row); err != nil {
		return 0, err
	}
	for k := range m.row.n {
		slot := m.row.slot[k]
		if slot >= len(m.slots) {
			return 0, errCorrupt
		}
		r := m.row.rs[k]
		r.Series, r.Start, r.Width = s, l.start(it.row, slot), l.width
		m.slots[slot] = r
		present |= 1 << slot
	}
	return present, nil
}

// splitMinutes returns which of the minutes overlap (bit i: minute i of the hour that starts at
// hour) were merged from disjoint seconds earlier in this write, and which of those are idle.
func (m *rowMerger) splitMinutes(series int64, hour time.Time, overlap uint64) (split, idle uint64) {
	if len(m.split) == 0 {
		return 0, 0
	}
	for o := overlap; o != 0; o &= o - 1 {
		i := bits.TrailingZeros64(o)
		if isIdle, ok := m.split[splitKey{series, hour.Unix() + int64(60*i)}]; ok {
			split |= 1 << i
			if isIdle {
				idle |= 1 << i
			}
		}
	}
	return split, idle
}

// PruneMinutes deletes the minute rollups of the hours that end at or before before (a minute
// rollup is kept with the rest of its hour) and returns how many it deleted. Hour rollups are
// kept; see telemetry.Retention for the usual cutoff.
func (db *DB) PruneMinutes(ctx context.Context, before time.Time) (int, error) {
	cutoff := before.Unix() / 3600 // rows (hours) below this one end at or before before
	if cutoff <= 0 {
		return 0, nil
	}
	tx, err := db.sql.BeginTx(ctx, nil)
	if err != nil {
		return 0, fmt.Errorf("prune minute rollups in %s: %w", db.Path, err)
	}
	defer tx.Rollback()
	const where = ` FROM minute_rollups WHERE (key & 16777215) < ?`
	rows, err := tx.QueryContext(ctx, `SELECT data`+where, cutoff)
	if err != nil {
		return 0, fmt.Errorf("prune minute rollups in %s: %w", db.Path, err)
	}
	n := 0
	for rows.Next() {
		var data sql.RawBytes
		if err := rows.Scan(&data); err != nil {
			rows.Close()
			return 0, fmt.Errorf("prune minute rollups in %s: %w", db.Path, err)
		}
		n += rowCount(data)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return 0, fmt.Errorf("prune minute rollups in %s: %w", db.Path, err)
	}
	if _, err := tx.ExecContext(ctx, `DELETE`+where, cutoff); err != nil {
		return 0, fmt.Errorf("prune minute rollups in %s: %w", db.Path, err)
	}
	if err := tx.Commit(); err != nil {
		return 0, fmt.Errorf("prune minute rollups in %s: %w", db.Path, err)
	}
	return n, nil
}
