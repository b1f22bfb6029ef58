package awscur

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"strconv"
	"time"
	"unsafe"

	"github.com/gpucost/gpucost/billing/internal/csvscan"
	"github.com/gpucost/gpucost/billing/internal/intern"
	"github.com/gpucost/gpucost/billing/internal/jsontext"
	"github.com/gpucost/gpucost/billing/internal/readerr"

	"github.com/gpucost/gpucost"
)

// Read reads a CUR as CSV — a CUR 2.0 export (AWS Data Exports writes gzip-compressed CSV) or a
// legacy CUR CSV — and calls emit for each line, in file order. Gzip is detected by its magic
// bytes. Columns are found by name in any order; legacy names (lineItem/UnblendedCost,
// resourceTags/user:team) are read like their CUR 2.0 counterparts. name is used in messages.
//
// The *CostLine handed to emit is reused for the next line: emit must copy what it keeps. Its
// strings are shared between lines and its Tags and Extra maps are shared by every line with the
// same values: emit must not modify them.
//
// Read stops at the first value it cannot read, with a gpucost.EInvalid error naming the file,
// line and column, the value, and what to do. A file without the required columns fails before
// any line is emitted, listing all of them. Negative amounts (credits, refunds) are kept as such.
// Reading streams, so a truncated or damaged file fails when the damage is reached, after the
// lines before it were emitted: a caller that stores files whole keeps what emit gives it
// pending (a transaction) until Read returns nil.
func Read(r io.Reader, name string, emit func(*gpucost.CostLine) error) (Stats, error) {
	br, ok := r.(*bufio.Reader)
	if !ok {
		br = bufio.NewReaderSize(r, 64<<10)
	}
	format := "csv"
	var src io.Reader = br
	switch magic, _ := br.Peek(4); {
	case len(magic) >= 2 && magic[0] == 0x1f && magic[1] == 0x8b:
		zr, err := gzip.NewReader(br)
		if err != nil {
			return Stats{}, gpucost.Errorf(gpucost.EInvalid, "read AWS CUR %s: not a readable gzip file (%v); download it again", name, err)
		}
		defer zr.Close()
		src, format = zr, "csv.gz"
	case bytes.Equal(magic, parquetMagic):
		return Stats{}, gpucost.Errorf(gpucost.EInvalid, "read AWS CUR %s: a Parquet file; read it with ReadParquet or ReadFile", name)
	}
	rd := newReader(name, emit)
	err := rd.readCSV(csvscan.New(src, 256<<10))
	return rd.stats(format), err
}

// readCSV reads the header, then every record.
func (rd *reader) readCSV(sc *csvscan.Scanner) error {
	if !sc.Next() {
		if sc.Err() != nil {
			return rd.scanError(sc)
		}
		return gpucost.Errorf(gpucost.EInvalid, "read AWS CUR %s: the file is empty; want a CUR CSV with a header line", rd.name)
	}
	names := make([]string, sc.Count())
	for i := range names {
		names[i] = string(sc.Field(i))
	}
	sc.Names = names
	p, err := newPlan(names)
	if err != nil {
		return fmt.Errorf("read AWS CUR %s: %w", rd.name, err)
	}
	rd.plan = p
	cr := newCSVRow(rd, sc)
	for sc.Next() {
		if sc.Count() != len(names) {
			return gpucost.Errorf(gpucost.EInvalid, "read AWS CUR %s:%d: %d fields where the header has %d; the file is damaged or not one CSV",
				rd.name, sc.Line(), sc.Count(), len(names))
		}
		if err := cr.read(sc.Line()); err != nil {
			return err
		}
	}
	if sc.Err() != nil {
		return rd.scanError(sc)
	}
	return nil
}

func (rd *reader) scanError(sc *csvscan.Scanner) error { return sc.Invalid("read AWS CUR " + rd.name) }

// dimsGenBytes bounds one generation of the dimension cache of CSV rows (keys and entries).
const dimsGenBytes = 8 << 20

// newDimsCache returns the cache of the dimensions of CSV rows, keyed by their dimension cells.
func newDimsCache() intern.Generations[*dims] {
	return intern.Generations[*dims]{MaxBytes: dimsGenBytes, EntryBytes: int(unsafe.Sizeof(dims{})) + 64}
}

// dims are the values of a row that repeat across the hours of a resource: its strings, product
// and tags. They are cached by the raw cells they come from, so a row whose cells were seen
// before costs one hash instead of a lookup per string and a parse per map.
type dims struct {
	str  [numStrings]string
	tags gpucost.Labels
}

// csvRow turns CSV records into rows.
type csvRow struct {
	rd      *reader
	sc      *csvscan.Scanner
	line    int
	keyCols []int // the cells the dimension key is made of
	lastRaw [numTimes][]byte
	scratch []byte
	key     []byte
	tagKey  []byte
	last    *dims
	lastKey []byte
	dims    intern.Generations[*dims]
	str     [numStrings]string // the row's strings, times, amounts and whether it has them (rec)
	times   [numTimes]time.Time
	amt     [numAmounts]int64
	has     [numAmounts]bool
}

func newCSVRow(rd *reader, sc *csvscan.Scanner) *csvRow {
	c := &csvRow{rd: rd, sc: sc, dims: newDimsCache()}
	rd.rec.str, rd.rec.times, rd.rec.amt, rd.rec.has = &c.str, &c.times, &c.amt, &c.has
	p := rd.plan
	for f := field(0); f < numFields; f++ {
		if k := f.kind(); (k == kString || k == kMap) && p.index[f] >= 0 {
			c.keyCols = append(c.keyCols, p.index[f])
		}
	}
	c.keyCols = append(c.keyCols, p.tags...)
	return c
}

// cell returns cell i of the current record, unescaped.
func (c *csvRow) cell(i int) []byte {
	return c.sc.Field(i)
}

// where names the current row for messages: file:line.
func (c *csvRow) where() string { return fmt.Sprintf("%s:%d", c.rd.name, c.line) }

// column names column col (from 0) for messages, by number and header name.
func (c *csvRow) column(col int) string { return readerr.Column(col+1, c.rd.plan.cols[col].name) }

func (c *csvRow) bad(col int, k kind, cause error) error {
	b := c.sc.Field(col)
	return cellError(c.where(), c.column(col), string(b), wants[k], cause)
}

// read parses the current record into the reader's row and finishes it.
func (c *csvRow) read(line int) error {
	rd, p := c.rd, c.rd.plan
	r := &rd.rec
	c.line, r.line = line, line
	if err := c.dimensions(); err != nil {
		return err
	}
	for f := tBillStart; f < qUsageAmount; f++ {
		if i := p.index[f]; i >= 0 {
			if err := c.time(f, i); err != nil {
				return err
			}
		}
	}
	if i := p.index[qUsageAmount]; i >= 0 {
		r.usage = 0
		b := c.cell(i)
		if len(b) > 0 {
			v, err := strconv.ParseFloat(unsafe.String(&b[0], len(b)), 64)
			if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
				return c.bad(i, kQuantity, nil)
			}
			r.usage = v
		}
	}
	for f := aUnblended; f < mProduct; f++ {
		if i := p.index[f]; i >= 0 {
			b := c.cell(i)
			n, ok, err := parseNanos(b)
			if err != nil {
				return c.bad(i, kAmount, nil)
			}
			r.amt[f-aUnblended], r.has[f-aUnblended] = n, ok
		}
	}
	return rd.finish(func(f field) (string, string) {
		switch {
		case f < 0:
			return c.where(), ""
		case p.index[f] < 0:
			return c.where(), readerr.Column(0, fieldNames[f])
		}
		return c.where(), c.column(p.index[f])
	})
}

// dimensions sets the row's strings and tags, from the cache when its cells were seen before.
func (c *csvRow) dimensions() error {
	key := c.key[:0]
	for _, i := range c.keyCols {
		f, e := c.sc.Raw(i)
		n := len(f) << 1
		if e == csvscan.Doubled {
			n |= 1
		}
		key = append(binary.AppendUvarint(key, uint64(n)), f...)
	}
	c.key = key
	r := &c.rd.rec
	if c.last != nil && string(key) == string(c.lastKey) {
		c.str, r.tags = c.last.str, c.last.tags // a copy: the mapping then reads one row's strings, not a cache entry's
		return nil
	}
	d, ok := c.dims.Get(key)
	if !ok {
		d = &dims{}
		if err := c.parseDims(d); err != nil {
			return err
		}
		c.dims.Put(key, d)
	}
	c.last, c.lastKey = d, append(c.lastKey[:0], key...)
	c.str, r.tags = d.str, d.tags
	return nil
}

// parseDims reads the strings, product and tags of the current record.
func (c *csvRow) parseDims(d *dims) error {
	rd, p := c.rd, c.rd.plan
	for f := field(0); f < tBillStart; f++ {
		if i := p.index[f]; i >= 0 {
			b := c.cell(i)
			d.str[f] = rd.in.field(f, b)
		}
	}
	if err := c.product(d); err != nil {
		return err
	}
	return c.tags(d)
}

// time parses a timestamp cell, reusing the previous row's result when the cell repeats.
func (c *csvRow) time(f field, i int) error {
	b := c.cell(i)
	t := &c.rd.rec.times[f-tBillStart]
	if len(b) == 0 {
		*t = zeroTime
		return nil
	}
	last := &c.lastRaw[f-tBillStart]
	if bytes.Equal(b, *last) && !t.IsZero() {
		return nil
	}
	v, ok := parseTime(b)
	if !ok {
		*last = (*last)[:0]
		return c.bad(i, kTime, nil)
	}
	*t, *last = v, append((*last)[:0], b...)
	return nil
}

// product takes the product name and market option from the product map cell, unless the file
// has them as columns of their own.
func (c *csvRow) product(d *dims) error {
	p, rd := c.rd.plan, c.rd
	i := p.index[mProduct]
	if i < 0 {
		return nil
	}
	b := c.cell(i)
	pr, ok := rd.mc.products[string(b)]
	if !ok {
		err := jsontext.Members(b, 0, &c.scratch, func(k, v []byte) {
			switch string(k) {
			case "product_name":
				pr.name = rd.in.bytes(v)
			case "marketoption":
				pr.market = rd.in.bytes(v)
			}
		})
		if err != nil {
			return c.bad(i, kMap, err)
		}
		if len(rd.mc.products) >= mapLimit {
			clear(rd.mc.products)
		}
		rd.mc.products[string(b)] = pr
	}
	if p.index[fProductName] < 0 {
		d.str[fProductName] = pr.name
	}
	if p.index[fMarketOption] < 0 {
		d.str[fMarketOption] = pr.market
	}
	return nil
}

// tags sets the row's Labels from the resource_tags, tags and cost_category map cells and the
// flattened tag columns, through a cache keyed by those cells.
func (c *csvRow) tags(d *dims) error {
	p := c.rd.plan
	key := c.tagKey[:0]
	for _, f := range [...]field{mResourceTags, mTags, mCostCategory} {
		if i := p.index[f]; i >= 0 {
			raw, _ := c.sc.Raw(i)
			key = append(binary.AppendUvarint(key, uint64(len(raw))), raw...)
		}
	}
	for _, i := range p.tags {
		raw, _ := c.sc.Raw(i)
		key = append(binary.AppendUvarint(key, uint64(len(raw))), raw...)
	}
	c.tagKey = key
	if !anyNonZero(key) {
		return nil // every tag cell is empty
	}
	l, err := c.rd.mc.tagSet(key, c.buildTags)
	d.tags = l
	return err
}

func anyNonZero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return true
		}
	}
	return false
}

// buildTags parses the tag cells of the current record into new Labels; nil when there are none.
func (c *csvRow) buildTags() (gpucost.Labels, error) {
	rd, p := c.rd, c.rd.plan
	l := gpucost.Labels{}
	for _, f := range [...]field{mResourceTags, mTags, mCostCategory} {
		i := p.index[f]
		if i < 0 {
			continue
		}
		b := c.cell(i)
		err := jsontext.Members(b, 0, &c.scratch, func(k, v []byte) {
			key := string(k)
			if f == mCostCategory {
				key = costCategoryKey(key)
			}
			if _, dup := l[key]; !dup {
				l[key] = rd.in.bytes(v)
			}
		})
		if err != nil {
			return nil, c.bad(i, kMap, err)
		}
	}
	for _, i := range p.tags {
		v := c.cell(i)
		if len(v) > 0 {
			key := p.cols[i].key
			if p.cols[i].role == roleCostCat {
				key = costCategoryKey(key)
			}
			if _, dup := l[key]; !dup {
				l[key] = rd.in.bytes(v)
			}
		}
	}
	if len(l) == 0 {
		return nil, nil
	}
	return l, nil
}
