package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"

	"github.com/gpucost/gpucost"
)

// ScanCosts calls fn for each stored line that matches f, in order of import and then line.
// Providers match without regard to case; resource ids exactly. The *CostLine is reused and
// valid only during the call; fn may change it, but not its Tags and Extra maps, which are
// shared by the lines that hold the same ones. Times are in UTC.
//
// The data of a chunk whose charge periods all start outside [f.From, f.To) is not read, and a
// chunk with no line that matches is left once its provider, resource and start columns are
// decoded. One goroutine reads and decodes chunks while the calling goroutine passes their lines
// to fn, so fn is never called concurrently.
func (db *DB) ScanCosts(ctx context.Context, f gpucost.CostFilter, fn func(*gpucost.CostLine) error) error {
	return db.scanCosts(ctx, f, 0, fn)
}

// scanCosts is ScanCosts of the lines of one import, or of all if importID is 0.
func (db *DB) scanCosts(ctx context.Context, f gpucost.CostFilter, importID int64, fn func(*gpucost.CostLine) error) error {
	cf := newCostFilter(f)
	// A connection of its own reading through memory mapping, as ScanRollups does.
	conn, err := db.sql.Conn(ctx)
	if err != nil {
		return fmt.Errorf("scan costs in %s: %w", db.Path, err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, `PRAGMA mmap_size = 2147418112`); err != nil {
		return fmt.Errorf("scan costs in %s: %w", db.Path, err)
	}
	defer conn.ExecContext(context.WithoutCancel(ctx), `PRAGMA mmap_size = 0`)
	// Every chunk's strings are read, to rebuild each import's dictionary; data only where the
	// chunk's charge periods may start in the range asked for.
	q, args := `SELECT import_id, seq, min_start, max_start, strings,
		CASE WHEN max_start >= ? AND min_start <= ? THEN data END
		FROM cost_chunks`, []any{cf.fromSec, cf.toSec}
	if importID != 0 {
		q, args = q+` WHERE import_id = ?`, append(args, importID)
	}
	rows, err := conn.QueryContext(ctx, q+` ORDER BY import_id, seq`, args...)
	if err != nil {
		return fmt.Errorf("scan costs in %s: %w", db.Path, err)
	}
	defer rows.Close()

	parent := ctx
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	chunks, free := make(chan *chunkDecoder, chunksInFlight), make(chan *chunkDecoder, chunksInFlight+1)
	var decoders [chunksInFlight + 1]*chunkDecoder
	for i := range decoders {
		decoders[i], _ = chunkDecoders.Get().(*chunkDecoder)
		if decoders[i] == nil {
			decoders[i] = &chunkDecoder{}
		}
		free <- decoders[i]
	}
	done := make(chan struct{})
	var readErr error
	go func() {
		defer close(done)
		defer close(chunks)
		readErr = cf.read(ctx, rows, chunks, free)
	}()
	var (
		line   gpucost.CostLine
		shared [numMapCols]sharedMaps
	)
	for d := range chunks {
		if parent.Err() != nil {
			break
		}
		if err = d.emit(&line, &shared, fn); err != nil {
			err = callbackError{err}
			break
		}
		free <- d
	}
	cancel()
	<-done
	for _, d := range decoders { // neither goroutine holds one now
		chunkDecoders.Put(d)
	}
	if err == nil {
		err = readErr
	}
	if err == nil {
		err = parent.Err() // the reader stops early, without an error, when ctx is done
	}
	if cb, ok := err.(callbackError); ok {
		return cb.err
	}
	if err != nil {
		return fmt.Errorf("scan costs in %s: %w", db.Path, err)
	}
	return nil
}

// chunkDecoders keeps decoders and their buffers (2.7 MB each) from scan to scan.
var chunkDecoders sync.Pool

// read decodes the chunks rows returns into decoders taken from free and sends those with lines
// to pass on, until it has read all or ctx is done.
func (cf *costFilter) read(ctx context.Context, rows *sql.Rows, chunks, free chan *chunkDecoder) error {
	var dict scanDict
	for rows.Next() {
		var (
			importID, seq, minStart, maxStart int64
			strs, data                        sql.RawBytes
		)
		if err := rows.Scan(&importID, &seq, &minStart, &maxStart, &strs, &data); err != nil {
			return fmt.Errorf("read cost chunks: %w", err)
		}
		if err := dict.add(importID, strs); err != nil {
			return fmt.Errorf("cost chunk %d of import %d: strings: %w", seq, importID, err)
		}
		if data == nil {
			continue
		}
		var d *chunkDecoder
		select {
		case d = <-free:
		case <-ctx.Done():
			return nil
		}
		if err := cf.decode(d, &dict, data, minStart, maxStart); err != nil {
			return fmt.Errorf("cost chunk %d of import %d: %w", seq, importID, err)
		}
		if len(d.sel) == 0 {
			free <- d
			continue
		}
		select {
		case chunks <- d:
		case <-ctx.Done():
			return nil
		}
	}
	if err := rows.Err(); err != nil && ctx.Err() == nil {
		return fmt.Errorf("read cost chunks: %w", err)
	}
	return nil
}

// costFilter is a CostFilter prepared for scanning chunks.
type costFilter struct {
	fromSec, toSec   int64 // chunks with starts in [fromSec, toSec] may hold lines in range
	fromNano, toNano int64
	providers        dictMatch
	resources        dictMatch
	billed           *billedRange // nil: any billing period
	cols             []int        // the value columns that select lines (filterColumns)
}

func newCostFilter(f gpucost.CostFilter) *costFilter {
	cf := &costFilter{fromSec: math.MinInt64, toSec: math.MaxInt64, toNano: math.MaxInt64}
	if !f.From.IsZero() {
		cf.fromSec, cf.fromNano = f.From.Unix(), int64(f.From.Nanosecond())
	}
	if !f.To.IsZero() {
		cf.toSec, cf.toNano = f.To.Unix(), int64(f.To.Nanosecond())
	}
	if len(f.Providers) > 0 {
		cf.providers.keep = func(s string) bool {
			return slices.ContainsFunc(f.Providers, func(p string) bool { return strings.EqualFold(p, s) })
		}
	}
	if len(f.ResourceIDs) > 0 {
		ids := make(map[string]bool, len(f.ResourceIDs))
		for _, id := range f.ResourceIDs {
			ids[id] = true
		}
		cf.resources.keep = func(s string) bool { return ids[s] }
	}
	cf.billed = newBilledRange(f)
	cf.cols = cf.filterColumns()
	return cf
}

// decode decodes the chunk's data blob into d, given the import's dictionary, leaving in d.sel
// the lines that match. The chunk's charge periods start between minStart and maxStart, in Unix
// seconds.
func (cf *costFilter) decode(d *chunkDecoder, dict *scanDict, blob []byte, minStart, maxStart int64) error {
	d.sel = d.sel[:0]
	if err := d.parse(blob, dict.strs); err != nil {
		return err
	}
	d.gen = dict.gen
	defer func() { d.blob = nil }()
	for _, c := range cf.cols {
		if err := d.decodeValues(c); err != nil {
			return err
		}
	}
	cf.providers.sync(dict)
	cf.resources.sync(dict)
	inRange := (minStart > cf.fromSec || minStart == cf.fromSec && cf.fromNano == 0) && maxStart < cf.toSec
	secs, nanos := d.vals[numStrCols+intStartSec], d.vals[numStrCols+intStartNano]
	providers, resources := d.vals[colProvider], d.vals[colResourceID]
	for i := range d.n {
		if !inRange && !cf.inRange(secs[i], nanos[i]) ||
			!cf.providers.ok(providers[i]) || !cf.resources.ok(resources[i]) || !cf.billed.ok(d, i) {
			continue
		}
		d.sel = append(d.sel, int32(i))
	}
	if len(d.sel) == 0 {
		return nil
	}
	for c := range numValueCols {
		if slices.Contains(cf.cols, c) {
			continue
		}
		if err := d.decodeValues(c); err != nil {
			return err
		}
	}
	for c := range numMapCols {
		if err := d.decodeMaps(c); err != nil {
			return err
		}
	}
	return nil
}

func (cf *costFilter) inRange(sec, nano int64) bool {
	return (sec > cf.fromSec || sec == cf.fromSec && nano >= cf.fromNano) &&
		(sec < cf.toSec || sec == cf.toSec && nano < cf.toNano)
}

// dictMatch says which entries of an import's dictionary a filter keeps, asking keep once for
// each entry a line holds. With no keep it keeps everything.
type dictMatch struct {
	keep  func(string) bool
	dict  []string
	gen   int
	known []int8 // by dictionary index: 0 not asked yet, 1 kept, -1 not
}

// sync makes m answer for the dictionary as it is now.
func (m *dictMatch) sync(sd *scanDict) {
	if m.keep == nil {
		return
	}
	if m.gen != sd.gen {
		m.known, m.gen = m.known[:0], sd.gen
	}
	m.dict = sd.strs
}

func (m *dictMatch) ok(id int64) bool {
	if m.keep == nil {
		return true
	}
	if int(id) >= len(m.known) {
		m.known = append(m.known, make([]int8, len(m.dict)-len(m.known))...)
	}
	switch m.known[id] {
	case 1:
		return true
	case -1:
		return false
	}
	ok := m.keep(m.dict[id])
	m.known[id] = -1
	if ok {
		m.known[id] = 1
	}
	return ok
}
