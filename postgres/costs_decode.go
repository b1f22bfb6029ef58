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

// lineDecoder turns the binary values of a cost_lines row (import_id, seq, then lineColumns)
// into a CostLine without pgx's per-value scan plans: a scan decodes millions of rows, and their
// strings repeat, so each distinct string is allocated once per scan and each distinct map once.
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
	return time.Unix(s, int64(c.int32())).UTC()
}

func (d *lineDecoder) money(c *cursor) gpucost.Money {
	n := c.int64()
	return gpucost.Money{Nanos: n, Currency: d.str(c)}
}

// decode decodes vals into l, returning the row's import id and sequence number.
func (d *lineDecoder) decode(vals [][]byte, l *gpucost.CostLine) (importID int64, seq int32, err error) {
	if len(vals) != 2+len(lineColumns) {
		return 0, 0, fmt.Errorf("%d columns, want %d", len(vals), 2+len(lineColumns))
	}
	c := &cursor{vals: vals}
	importID, seq = c.int64(), c.int32()
	l.Provider, l.BillingAccountID, l.SubAccountID = d.str(c), d.str(c), d.str(c)
	l.BillingPeriodStart, l.ChargePeriodStart, l.ChargePeriodEnd = c.time(), c.time(), c.time()
	l.ChargeCategory, l.ChargeClass, l.ChargeFrequency, l.PricingCategory = d.str(c), d.str(c), d.str(c), d.str(c)
	l.BilledCost, l.EffectiveCost, l.ListCost, l.ContractedCost = d.money(c), d.money(c), d.money(c), d.money(c)
	l.CommitmentDiscountID, l.CommitmentDiscountStatus = d.str(c), d.str(c)
	l.CommitmentDiscountType, l.CommitmentDiscountCategory = d.str(c), d.str(c)
	l.ResourceID, l.ResourceName, l.ResourceType, l.InstanceType = d.str(c), d.str(c), d.str(c), d.str(c)
	l.ServiceName, l.ServiceCategory, l.RegionID, l.AvailabilityZone = d.str(c), d.str(c), d.str(c), d.str(c)
	l.SkuID, l.SkuPriceID, l.ChargeDescription = d.str(c), d.str(c), d.str(c)
	l.ConsumedQuantity, l.ConsumedUnit = c.float64(), d.str(c)
	l.PricingQuantity, l.PricingUnit = c.float64(), d.str(c)
	tags, extra := c.next(-1), c.next(-1)
	l.Line, l.Rows = int(c.int64()), int(c.int64())
	if c.err != nil {
		name := "import_id"
		if c.bad > 0 {
			name = append([]string{"seq"}, lineColumns...)[c.bad-1]
		}
		return importID, seq, fmt.Errorf("column %s: %w", name, c.err)
	}
	if l.Tags, err = d.tags.get(tags); err != nil {
		return importID, seq, fmt.Errorf("tags: %w", err)
	}
	if l.Extra, err = d.extra.get(extra); err != nil {
		return importID, seq, fmt.Errorf("extra columns: %w", err)
	}
	return importID, seq, nil
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
