package gcp

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/maphash"
	"math"
	"strconv"
	"time"
	"unsafe"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/billing/internal/intern"
	"github.com/gpucost/gpucost/billing/internal/totals"
)

// esc says how a cell's bytes are escaped.
type esc uint8

const (
	escNone esc = iota
	escCSV      // a quoted CSV field, quotes doubled
	escJSON     // the content of a JSON string, backslash escapes
)

// cell is one value of the row being read, as it lies in the source's buffer.
type cell struct {
	b   []byte
	esc esc
	pos int // the CSV column index, or the value's byte offset in a JSON record
}

// source locates cells for messages: the CSV file's columns or the JSON record's fields. It
// also puts the dimension cells of a row whose dimensions were not cached, for a source that
// keys them without putting them.
type source interface {
	where(c *cell, f field) (at, column string) // file:line of cell c of field f, and its column
	whereRow() string                           // file:line of the row
	column(f field) string                      // a field's column as readerr.Column names it
	putDims()
}

// reader holds what reading a file needs, whatever its format: the row's cells, the caches, the
// line handed out and the tally.
type reader struct {
	name  string
	emit  func(*gpucost.CostLine) error
	src   source
	cells [numFields]cell
	set   uint64 // bit f: cells[f] holds a value (not null)
	line  int

	scratch  []byte // unescaped text of the current row
	key      []byte
	tagKey   []byte
	extraKey []byte
	vbuf     []byte // one JSON value unescaped, valid until interned
	lastKey  dimsKey
	last     *dims
	dims     dimsCache
	in       intern.Strings
	tagSets  intern.Map[gpucost.Labels]
	extras   intern.Map[map[string]string]
	times    [2]timeCache
	qtys     [2]quantityCache

	vals     rowValues
	out      gpucost.CostLine
	tally    tally
	detailed bool
	unknown  map[string]bool  // names not in the schema (JSON)
	aliases  map[string]*node // top-level JSON names looked up
	seq      [][]seqEntry     // by record: the keys of the last JSON row, in order
}

func newReader(name string, emit func(*gpucost.CostLine) error) *reader {
	rd := &reader{name: name, emit: emit, tally: tally{credits: totals.Currencies[creditSums]{New: newCredits}}}
	rd.dims = newDimsCache()
	rd.unknown, rd.aliases = map[string]bool{}, map[string]*node{}
	rd.seq = make([][]seqEntry, numRecords)
	return rd
}

// begin starts a row at a source line.
func (rd *reader) begin(line int) {
	rd.set, rd.line, rd.scratch = 0, line, rd.scratch[:0]
}

// put sets a field's cell; a null value is not put.
func (rd *reader) put(f field, b []byte, e esc, pos int) {
	rd.cells[f] = cell{b: b, esc: e, pos: pos}
	rd.set |= 1 << f
}

func (rd *reader) has(f field) bool { return rd.set&(1<<f) != 0 }

// text returns a cell's unescaped bytes, valid until the next row.
func (rd *reader) text(f field) ([]byte, error) {
	c := &rd.cells[f]
	switch c.esc {
	case escCSV:
		return rd.unquote(c.b), nil
	case escJSON:
		from := len(rd.scratch)
		var err error
		rd.scratch, err = unescape(rd.scratch, c.b, 0)
		if err != nil {
			return nil, rd.bad(f, string(c.b), err)
		}
		return rd.scratch[from:len(rd.scratch):len(rd.scratch)], nil
	}
	return c.b, nil
}

// unquote returns a quoted CSV field's content with its doubled quotes made single, in scratch.
func (rd *reader) unquote(b []byte) []byte {
	from := len(rd.scratch)
	for len(b) > 0 {
		i := bytes.IndexByte(b, '"')
		if i < 0 {
			rd.scratch = append(rd.scratch, b...)
			break
		}
		rd.scratch = append(rd.scratch, b[:i+1]...)
		b = b[min(i+2, len(b)):] // the quote is doubled: the scanner checked
	}
	return rd.scratch[from:len(rd.scratch):len(rd.scratch)]
}

// row maps the current row onto a CostLine, counts it and hands it to emit. key identifies the
// row's dimension cells (cellKey builds it from the cells).
func (rd *reader) row(key []byte) error {
	d, err := rd.dimensions(key)
	if err != nil {
		return err
	}
	v := &rd.vals
	if err := rd.values(d, v); err != nil {
		return err
	}
	fill(&rd.out, d, v, rd)
	if err := rd.tally.add(&rd.out, d, v); err != nil {
		return fmt.Errorf("%s: %w", rd.src.whereRow(), err)
	}
	if err := rd.emit(&rd.out); err != nil {
		return fmt.Errorf("%s: %w", rd.src.whereRow(), err)
	}
	return nil
}

// rowValues are the values read on every row.
type rowValues struct {
	start, end    time.Time
	cost, list    int64
	hasList       bool
	usage, priced float64
	credits       credits
}

// values reads the row's times, amounts, quantities and credits.
func (rd *reader) values(d *dims, v *rowValues) error {
	for _, f := range required {
		if f == fCurrency && d.str[f] == "" || f != fCurrency && (!rd.has(f) || f != aCost && len(rd.cells[f].b) == 0) {
			return rd.missing(f)
		}
	}
	var err error
	if v.start, err = rd.time(tStart); err != nil {
		return err
	}
	if v.end, err = rd.time(tEnd); err != nil {
		return err
	}
	if v.cost, _, err = rd.amount(aCost); err != nil {
		return err
	}
	if v.list, v.hasList, err = rd.amount(aCostAtList); err != nil {
		return err
	}
	if v.usage, err = rd.quantity(qUsage); err != nil {
		return err
	}
	if v.priced, err = rd.quantity(qPricing); err != nil {
		return err
	}
	return rd.credits(&v.credits)
}

// time parses a timestamp cell, reusing the previous row's result when the cell repeats.
func (rd *reader) time(f field) (time.Time, error) {
	tc := &rd.times[f-tStart]
	b, err := rd.text(f)
	if err != nil {
		return time.Time{}, err
	}
	if tc.ok && string(b) == string(tc.raw) {
		return tc.t, nil
	}
	t, ok := parseTime(b)
	if !ok {
		tc.ok = false
		return time.Time{}, rd.bad(f, string(b), nil)
	}
	tc.t, tc.raw, tc.ok = t, append(tc.raw[:0], b...), true
	return t, nil
}

// timeCache is the last timestamp parsed for a field.
type timeCache struct {
	raw []byte
	t   time.Time
	ok  bool
}

// amount parses an amount cell into nano-units; ok is false for an absent or empty cell.
func (rd *reader) amount(f field) (n int64, ok bool, err error) {
	if !rd.has(f) {
		return 0, false, nil
	}
	b, err := rd.text(f)
	if err != nil || len(b) == 0 {
		if f == aCost && err == nil {
			return 0, false, rd.missing(f)
		}
		return 0, false, err
	}
	n, err = gpucost.ParseNanos(b)
	if err != nil {
		return 0, false, rd.bad(f, string(b), nil)
	}
	return n, true, nil
}

// quantity parses a usage quantity, reusing the previous row's result when the cell repeats;
// absent or empty is 0.
func (rd *reader) quantity(f field) (float64, error) {
	if !rd.has(f) || len(rd.cells[f].b) == 0 {
		return 0, nil
	}
	b, err := rd.text(f)
	if err != nil {
		return 0, err
	}
	qc := &rd.qtys[f-qUsage]
	if qc.ok && string(b) == string(qc.raw) {
		return qc.v, nil
	}
	x, err := strconv.ParseFloat(unsafe.String(unsafe.SliceData(b), len(b)), 64)
	if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
		qc.ok = false
		return 0, rd.bad(f, string(b), nil)
	}
	qc.raw, qc.v, qc.ok = append(qc.raw[:0], b...), x, true
	return x, nil
}

// quantityCache is the last quantity parsed for a field.
type quantityCache struct {
	raw []byte
	v   float64
	ok  bool
}

// cellKey returns the key of the row's dimension cells.
func (rd *reader) cellKey() []byte {
	key := rd.key[:0]
	for f := field(0); f < field(numDims); f++ {
		if !rd.has(f) {
			key = append(key, 0)
			continue
		}
		c := &rd.cells[f]
		key = binary.AppendUvarint(key, uint64(len(c.b))<<2|uint64(c.esc)+1)
		key = append(key, c.b...)
	}
	rd.key = key
	return key
}

// dimensions returns the row's dimensions, from the cache when cells with the same key were
// seen before.
func (rd *reader) dimensions(key []byte) (*dims, error) {
	h := rd.dims.hash(key)
	if rd.last != nil && h == rd.lastKey {
		return rd.last, nil
	}
	d, ok := rd.dims.get(h)
	if !ok {
		rd.src.putDims()
		var err error
		if d, err = rd.newDims(); err != nil {
			return nil, err
		}
		rd.dims.put(h, d)
	}
	rd.last, rd.lastKey = d, h
	return d, nil
}

// newDims reads the dimension cells of the current row.
func (rd *reader) newDims() (*dims, error) {
	d := &dims{}
	for f := field(0); f < field(numStrings); f++ {
		if !rd.has(f) {
			continue
		}
		b, err := rd.text(f)
		if err != nil {
			return nil, err
		}
		d.str[f] = rd.in.Get(b)
	}
	if err := rd.labels(d); err != nil {
		return nil, err
	}
	return d, derive(d, rd)
}

// dimsGenEntries bounds one generation of the dimension cache. An entry holds about 1 KB (its
// strings, tags and extras are shared), so the cache stays under about 32 MB.
const dimsGenEntries = 16 << 10

// dimsKey is a 128-bit hash of a row's dimension cells: two 64-bit maphash sums with independent
// random seeds. Keying by it instead of the cells (about 1 KB a row) keeps many more resources
// cached in the same memory and saves comparing the cells on a hit; two distinct sets of cells
// would share a key with odds of about n²/2¹²⁹ for n distinct sets, below 10⁻²⁰ for a billion.
type dimsKey [2]uint64

// dimsCache keeps recent dimensions in two generations: when the current one is full it becomes
// the old one, and an old entry used again moves back to the current one. It keeps hitting when
// rows cycle through somewhat more resources than one generation holds, and bounds memory to two.
type dimsCache struct {
	cur, old map[dimsKey]*dims
	seeds    [2]maphash.Seed
}

func newDimsCache() dimsCache {
	return dimsCache{seeds: [2]maphash.Seed{maphash.MakeSeed(), maphash.MakeSeed()}}
}

func (dc *dimsCache) hash(key []byte) dimsKey {
	return dimsKey{maphash.Bytes(dc.seeds[0], key), maphash.Bytes(dc.seeds[1], key)}
}

func (dc *dimsCache) get(h dimsKey) (*dims, bool) {
	if d, ok := dc.cur[h]; ok {
		return d, true
	}
	d, ok := dc.old[h]
	if ok {
		dc.put(h, d)
	}
	return d, ok
}

func (dc *dimsCache) put(h dimsKey, d *dims) {
	if len(dc.cur) >= dimsGenEntries || dc.cur == nil {
		dc.old, dc.cur = dc.cur, make(map[dimsKey]*dims, len(dc.cur))
	}
	dc.cur[h] = d
}

// missing reports a required value the row lacks.
func (rd *reader) missing(f field) error {
	return gpucost.Errorf(gpucost.EInvalid, "%s: %s is empty; every row of a billing export has it, so export the table again with it",
		rd.src.whereRow(), rd.src.column(f))
}

// bad reports a value that is not of its field's kind.
func (rd *reader) bad(f field, v string, cause error) error {
	at, column := rd.src.where(&rd.cells[f], f)
	return cellError(at, column, v, wantOf(f), cause)
}
