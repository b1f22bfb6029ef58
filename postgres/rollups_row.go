package postgres

import (
	"encoding/binary"
	"errors"
	"fmt"
	"time"

	"github.com/gpucost/gpucost"
)

// rollupRow is a rollup as its table holds it (see migrations/0001_store.sql).
type rollupRow struct {
	series, start                      int64
	samples, powerSamples, profSamples int32
	idleMinutes                        int32
	coverage, idleMask                 int64
	utilSum, utilMax, utilP50, utilP95 float64
	memMax, memP95, memTotal           float64
	powerSum, powerMax, tempMax        float64
	smActive, smOccupancy, grActive    float64
	hist                               []byte
}

// dest returns pointers to the fields in the order of rollupColumns, for Scan.
func (w *rollupRow) dest() []any {
	return []any{&w.series, &w.start, &w.samples, &w.coverage, &w.utilSum, &w.utilMax, &w.utilP50,
		&w.utilP95, &w.memMax, &w.memP95, &w.memTotal, &w.powerSamples, &w.powerSum, &w.powerMax, &w.tempMax,
		&w.profSamples, &w.smActive, &w.smOccupancy, &w.grActive, &w.idleMinutes, &w.idleMask, &w.hist}
}

// decodeRaw sets the fields from the binary values of a row of rollupColumns, without pgx's
// per-value scan plans (a scan reads millions of rows). hist aliases the row's buffer: it is
// valid until the next row is read.
func (w *rollupRow) decodeRaw(vals [][]byte) error {
	if len(vals) != len(rollupColumns) {
		return fmt.Errorf("%d columns, want %d", len(vals), len(rollupColumns))
	}
	c := &cursor{vals: vals}
	w.series, w.start, w.samples, w.coverage = c.int64(), c.int64(), c.int32(), c.int64()
	w.utilSum, w.utilMax, w.utilP50, w.utilP95 = c.float64(), c.float64(), c.float64(), c.float64()
	w.memMax, w.memP95, w.memTotal = c.float64(), c.float64(), c.float64()
	w.powerSamples, w.powerSum, w.powerMax, w.tempMax = c.int32(), c.float64(), c.float64(), c.float64()
	w.profSamples, w.smActive, w.smOccupancy, w.grActive = c.int32(), c.float64(), c.float64(), c.float64()
	w.idleMinutes, w.idleMask, w.hist = c.int32(), c.int64(), c.next(-1)
	if c.err != nil {
		return fmt.Errorf("column %s: %w", rollupColumns[c.bad], c.err)
	}
	return nil
}

// errBadHist says a stored histogram is not a whole number of 4-byte counts.
var errBadHist = errors.New("util_hist is not a whole number of 4-byte counts, at most 101")

// rollup returns the row as a rollup of s, its histogram decoded into buf's backing array (a new
// one if buf is nil).
func (w *rollupRow) rollup(s *gpucost.Series, width time.Duration, buf []uint32) (gpucost.Rollup, error) {
	r := gpucost.Rollup{Series: s, Start: time.Unix(w.start, 0).UTC(), Width: width,
		Samples: int(w.samples), Coverage: uint64(w.coverage),
		UtilSum: w.utilSum, UtilMax: w.utilMax, UtilP50: w.utilP50, UtilP95: w.utilP95,
		MemMaxMiB: w.memMax, MemP95MiB: w.memP95, MemTotalMiB: w.memTotal,
		PowerSamples: int(w.powerSamples), PowerSum: w.powerSum, PowerMax: w.powerMax, TempMaxC: w.tempMax,
		ProfSamples: int(w.profSamples), SMActiveSum: w.smActive, SMOccupancySum: w.smOccupancy,
		GrEngineActiveSum: w.grActive, IdleMinutes: int(w.idleMinutes), IdleMask: uint64(w.idleMask)}
	if len(w.hist)%4 != 0 || len(w.hist) > 4*histBins {
		return r, errBadHist
	}
	r.UtilHist = decodeHist(w.hist, buf)
	return r, nil
}

// decodeHist decodes a stored histogram into buf's backing array, nil for none.
func decodeHist(b []byte, buf []uint32) []uint32 {
	if b == nil {
		return nil
	}
	out := buf[:0]
	if out == nil {
		out = make([]uint32, 0, len(b)/4)
	}
	for i := 0; i < len(b); i += 4 {
		out = append(out, binary.LittleEndian.Uint32(b[i:]))
	}
	return out
}

// encodeHist returns h as 4-byte little-endian counts, nil for nil.
func encodeHist(h []uint32) []byte {
	if h == nil {
		return nil
	}
	b := make([]byte, 0, 4*len(h))
	for _, v := range h {
		b = binary.LittleEndian.AppendUint32(b, v)
	}
	return b
}

// rollupSource feeds rollups to CopyFrom.
type rollupSource struct {
	rs   []keyed
	at   int
	vals [22]any
}

// Next advances to the next rollup.
func (s *rollupSource) Next() bool {
	s.at++
	return s.at < len(s.rs)
}

// Values returns the current rollup's columns, in the order of rollupColumns.
func (s *rollupSource) Values() ([]any, error) {
	k, r := s.rs[s.at].key, &s.rs[s.at].r
	s.vals = [22]any{k.series, k.start, int32(r.Samples), int64(r.Coverage), r.UtilSum, r.UtilMax, r.UtilP50,
		r.UtilP95, r.MemMaxMiB, r.MemP95MiB, r.MemTotalMiB, int32(r.PowerSamples), r.PowerSum, r.PowerMax, r.TempMaxC,
		int32(r.ProfSamples), r.SMActiveSum, r.SMOccupancySum, r.GrEngineActiveSum, int32(r.IdleMinutes),
		int64(r.IdleMask), encodeHist(r.UtilHist)}
	return s.vals[:], nil
}

// Err returns nil: the rollups are in memory.
func (s *rollupSource) Err() error { return nil }
