package postgres

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/gpucost/gpucost"
)

// lineDecoder turns the binary values of cost_line_contexts and cost_lines rows into CostLines
// without pgx's per-value scan plans: a scan decodes millions of rows, and their strings repeat,
// so each distinct string is allocated once per scan and each distinct map once.
type lineDecoder struct {
	strs        map[string]string
	tags, extra mapCache
}

// maxInterned bounds the strings a scan keeps to share.
const maxInterned = 1 << 18

func newLineDecoder() *lineDecoder {
	return &lineDecoder{strs: map[string]string{}, tags: mapCache{}, extra: mapCache{}}
}

// cursor reads the binary values of a row in turn. A fixed-size value of the wrong size (NULL
// included) sets err, and bad to its index; the values after it read as zero.
type cursor struct {
	vals   [][]byte
	i, bad int
	err    error
}

var errSize = errors.New("a value of the wrong size")

// next returns the next value, which must have size bytes unless size is negative.
func (c *cursor) next(size int) []byte {
	v := c.vals[c.i]
	if size >= 0 && len(v) != size && c.err == nil {
		c.err, c.bad = errSize, c.i
	}
	c.i++
	if c.err != nil {
		return make([]byte, max(size, 0))
	}
	return v
}

func (c *cursor) int64() int64     { return int64(binary.BigEndian.Uint64(c.next(8))) }
func (c *cursor) int32() int32     { return int32(binary.BigEndian.Uint32(c.next(4))) }
func (c *cursor) float64() float64 { return math.Float64frombits(binary.BigEndian.Uint64(c.next(8))) }

// str returns the next text value, interned.
func (d *lineDecoder) str(c *cursor) string {
	b := c.next(-1)
	if s, ok := d.strs[string(b)]; ok {
		return s
	}
	s := string(b)
	if len(d.strs) < maxInterned {
		d.strs[s] = s
	}
	return s
}

func (c *cursor) time() time.Time {
	s := c.int64()
	return unixTime(s, c.int32())
}

// scanContextColumns are the columns of cost_line_contexts decodeContext reads.
var scanContextColumns = append([]string{"id"}, contextColumns...)

// decodeContext decodes vals, a row of scanContextColumns, into the fields of l a context holds,
// returning the context's number.
func (d *lineDecoder) decodeContext(vals [][]byte, l *gpucost.CostLine) (id int32, err error) {
	if len(vals) != len(scanContextColumns) {
		return 0, fmt.Errorf("%d columns, want %d", len(vals), len(scanContextColumns))
	}
	c := &cursor{vals: vals}
	id = c.int32()
	l.BillingPeriodStart = c.time()
	l.Provider, l.BillingAccountID, l.SubAccountID = d.str(c), d.str(c), d.str(c)
	l.ChargeCategory, l.ChargeClass, l.ChargeFrequency, l.PricingCategory = d.str(c), d.str(c), d.str(c), d.str(c)
	l.BilledCost.Currency, l.EffectiveCost.Currency = d.str(c), d.str(c)
	l.ListCost.Currency, l.ContractedCost.Currency = d.str(c), d.str(c)
	l.CommitmentDiscountID, l.CommitmentDiscountStatus = d.str(c), d.str(c)
	l.CommitmentDiscountType, l.CommitmentDiscountCategory = d.str(c), d.str(c)
	l.ResourceID, l.ResourceName, l.ResourceType, l.InstanceType = d.str(c), d.str(c), d.str(c), d.str(c)
	l.ServiceName, l.ServiceCategory, l.RegionID, l.AvailabilityZone = d.str(c), d.str(c), d.str(c), d.str(c)
	l.SkuID, l.SkuPriceID, l.ChargeDescription = d.str(c), d.str(c), d.str(c)
	l.ConsumedUnit, l.PricingUnit = d.str(c), d.str(c)
	tags, extra := c.next(-1), c.next(-1)
	if c.err != nil {
		return id, fmt.Errorf("column %s: %w", scanContextColumns[c.bad], c.err)
	}
	if l.Tags, err = d.tags.get(tags); err != nil {
		return id, fmt.Errorf("tags: %w", err)
	}
	if l.Extra, err = d.extra.get(extra); err != nil {
		return id, fmt.Errorf("extra columns: %w", err)
	}
	return id, nil
}

// scanLineColumns are the columns of cost_lines decodeLine reads.
var scanLineColumns = lineColumns[1:]

// decodeLine decodes vals, a row of scanLineColumns, into l: the context the row names, from
// contexts (an import's, by number: readContexts checks they are numbered 0, 1, 2 …), and the
// line's own fields. It returns the line's sequence number.
func decodeLine(vals [][]byte, contexts []gpucost.CostLine, l *gpucost.CostLine) (seq int32, err error) {
	if len(vals) != len(scanLineColumns) {
		return 0, fmt.Errorf("%d columns, want %d", len(vals), len(scanLineColumns))
	}
	c := &cursor{vals: vals}
	seq, id := c.int32(), c.int32()
	if c.err != nil {
		return seq, fmt.Errorf("column %s: %w", scanLineColumns[c.bad], c.err)
	}
	if id < 0 || int(id) >= len(contexts) {
		return seq, fmt.Errorf("context %d is not stored", id)
	}
	*l = contexts[id]
	l.ChargePeriodStart, l.ChargePeriodEnd = c.time(), c.time()
	l.BilledCost.Nanos, l.EffectiveCost.Nanos = c.int64(), c.int64()
	l.ListCost.Nanos, l.ContractedCost.Nanos = c.int64(), c.int64()
	l.ConsumedQuantity, l.PricingQuantity = c.float64(), c.float64()
	l.Line, l.Rows = int(c.int64()), int(c.int64())
	if c.err != nil {
		return seq, fmt.Errorf("column %s: %w", scanLineColumns[c.bad], c.err)
	}
	return seq, nil
}

// maxCachedMaps bounds the maps a scan keeps to share between lines that hold the same ones.
const maxCachedMaps = 1 << 16

// mapCache decodes JSON maps, sharing one map between the lines that hold the same JSON.
type mapCache map[string]map[string]string

func (c mapCache) get(b []byte) (map[string]string, error) {
	if m, ok := c[string(b)]; ok {
		return m, nil
	}
	var m map[string]string
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	if len(c) < maxCachedMaps {
		c[string(b)] = m
	}
	return m, nil
}
