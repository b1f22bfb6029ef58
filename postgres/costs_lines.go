package postgres

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"iter"
	"maps"
	"math"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/gpucost/gpucost"
	"github.com/jackc/pgx/v5"
)

// lineColumns are the columns of cost_lines after import_id and seq, in the order appendLine
// writes them and lineDecoder reads them.
var lineColumns = []string{"provider", "billing_account", "sub_account",
	"billing_start_s", "billing_start_ns", "charge_start_s", "charge_start_ns", "charge_end_s", "charge_end_ns",
	"charge_category", "charge_class", "charge_frequency", "pricing_category",
	"billed_nanos", "billed_currency", "effective_nanos", "effective_currency",
	"list_nanos", "list_currency", "contracted_nanos", "contracted_currency",
	"commitment_id", "commitment_status", "commitment_type", "commitment_category",
	"resource_id", "resource_name", "resource_type", "instance_type", "service_name", "service_category",
	"region_id", "availability_zone", "sku_id", "sku_price_id", "charge_description",
	"consumed_quantity", "consumed_unit", "pricing_quantity", "pricing_unit", "tags", "extra", "line", "rows"}

// lineWriter copies the lines of one import to the server in PostgreSQL's binary COPY format,
// a batch at a time. It encodes the rows itself: pgx's generic CopyFrom plans every value of
// every row, which took most of the client's time of an import.
type lineWriter struct {
	tx       pgx.Tx
	importID int64
	buf      []byte // the batch: COPY header and rows
	batch    int    // lines in buf
	lines    int
	sums     gpucost.CostTotals

	minStart, maxStart int64 // the lines' charge period starts, Unix seconds
}

// Batches end at copyLines lines or past copyBytes bytes.
const copyBytes = 8 << 20

// copyHeader starts a binary COPY stream: the signature, no flags, no header extension.
const copyHeader = "PGCOPY\n\xff\r\n\x00" + "\x00\x00\x00\x00" + "\x00\x00\x00\x00"

// copyLinesSQL is the statement the batches are sent with.
var copyLinesSQL = `COPY cost_lines (import_id, seq, ` + strings.Join(lineColumns, ", ") + `) FROM STDIN WITH (FORMAT binary)`

// writeAll writes the lines, stopping at the first error or when ctx is done. The iterator runs
// on the calling goroutine, between COPYs, so a panic in it unwinds through PutCosts, whose
// deferred rollback stores nothing.
func (w *lineWriter) writeAll(ctx context.Context, lines iter.Seq[*gpucost.CostLine]) error {
	if lines == nil {
		lines = func(func(*gpucost.CostLine) bool) {}
	}
	var err error
	for l := range lines {
		if w.batch == copyLines || len(w.buf) >= copyBytes {
			if err = w.flush(ctx); err != nil {
				break
			}
		}
		if field, ok := badText(l); !ok {
			err = gpucost.Errorf(gpucost.EInvalid,
				"line %d (source line %d): %s holds a NUL byte or invalid UTF-8, which PostgreSQL text cannot store; clean the bill or use the SQLite store",
				w.lines+1, l.Line, field)
			break
		}
		if w.batch == 0 {
			w.buf = append(w.buf[:0], copyHeader...)
		}
		w.buf = appendLine(w.buf, w.importID, int32(w.lines), l)
		if start := l.ChargePeriodStart.Unix(); w.lines == 0 {
			w.minStart, w.maxStart = start, start
		} else {
			w.minStart, w.maxStart = min(w.minStart, start), max(w.maxStart, start)
		}
		w.batch++
		w.lines++
		w.sums.Add(l.BilledCost, l.EffectiveCost)
	}
	if err == nil {
		err = w.flush(ctx)
	}
	if ctx.Err() != nil { // the reader failed, or the caller gave up
		err = context.Cause(ctx)
	}
	return err
}

// flush copies the batch gathered, if it holds any line.
func (w *lineWriter) flush(ctx context.Context) error {
	if w.batch == 0 {
		return nil
	}
	w.buf = binary.BigEndian.AppendUint16(w.buf, 0xffff) // the trailer: a field count of -1
	if _, err := w.tx.Conn().PgConn().CopyFrom(ctx, bytes.NewReader(w.buf), copyLinesSQL); err != nil {
		return fmt.Errorf("copy lines %d–%d: %w", w.lines-w.batch+1, w.lines, err)
	}
	w.batch, w.buf = 0, w.buf[:0]
	return nil
}

// appendLine appends line seq of an import as a binary COPY row, its columns in the order of
// lineColumns after import_id and seq (lineDecoder reads them back).
func appendLine(b []byte, importID int64, seq int32, l *gpucost.CostLine) []byte {
	b = binary.BigEndian.AppendUint16(b, uint16(2+len(lineColumns)))
	b = appendInt8(b, importID)
	b = appendInt4(b, seq)
	b = appendText(b, l.Provider, l.BillingAccountID, l.SubAccountID)
	for _, t := range [...]time.Time{l.BillingPeriodStart, l.ChargePeriodStart, l.ChargePeriodEnd} {
		b = appendInt4(appendInt8(b, t.Unix()), int32(t.Nanosecond()))
	}
	b = appendText(b, l.ChargeCategory, l.ChargeClass, l.ChargeFrequency, l.PricingCategory)
	for _, m := range [...]gpucost.Money{l.BilledCost, l.EffectiveCost, l.ListCost, l.ContractedCost} {
		b = appendText(appendInt8(b, m.Nanos), m.Currency)
	}
	b = appendText(b, l.CommitmentDiscountID, l.CommitmentDiscountStatus, l.CommitmentDiscountType,
		l.CommitmentDiscountCategory, l.ResourceID, l.ResourceName, l.ResourceType, l.InstanceType, l.ServiceName,
		l.ServiceCategory, l.RegionID, l.AvailabilityZone, l.SkuID, l.SkuPriceID, l.ChargeDescription)
	b = appendText(appendInt8(b, int64(math.Float64bits(l.ConsumedQuantity))), l.ConsumedUnit)
	b = appendText(appendInt8(b, int64(math.Float64bits(l.PricingQuantity))), l.PricingUnit)
	b = appendJSON(appendJSON(b, l.Tags), l.Extra)
	return appendInt8(appendInt8(b, int64(l.Line)), int64(l.Rows))
}

func appendInt8(b []byte, v int64) []byte {
	return binary.BigEndian.AppendUint64(binary.BigEndian.AppendUint32(b, 8), uint64(v))
}

func appendInt4(b []byte, v int32) []byte {
	return binary.BigEndian.AppendUint32(binary.BigEndian.AppendUint32(b, 4), uint32(v))
}

func appendText(b []byte, ss ...string) []byte {
	for _, s := range ss {
		b = append(binary.BigEndian.AppendUint32(b, uint32(len(s))), s...)
	}
	return b
}

// appendJSON appends m as a json value: an object with its keys sorted, as encoding/json writes
// it, or null for a nil map.
func appendJSON(b []byte, m map[string]string) []byte {
	at := len(b)
	b = append(b, 0, 0, 0, 0) // the length, filled in below
	if m == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '{')
		for i, k := range slices.Sorted(maps.Keys(m)) {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendJSONString(b, k)
			b = append(b, ':')
			b = appendJSONString(b, m[k])
		}
		b = append(b, '}')
	}
	binary.BigEndian.PutUint32(b[at:], uint32(len(b)-at-4))
	return b
}

// appendJSONString appends s as a JSON string.
func appendJSONString(b []byte, s string) []byte {
	q, _ := json.Marshal(s) // a string always marshals
	return append(b, q...)
}

// badText returns the first field of l whose text PostgreSQL cannot store as it is (a NUL byte,
// invalid UTF-8) and false, or "" and true.
func badText(l *gpucost.CostLine) (string, bool) {
	fields := []struct {
		name string
		v    string
	}{{"ProviderName", l.Provider}, {"BillingAccountId", l.BillingAccountID}, {"SubAccountId", l.SubAccountID},
		{"ChargeCategory", l.ChargeCategory}, {"ChargeClass", l.ChargeClass}, {"ChargeFrequency", l.ChargeFrequency},
		{"PricingCategory", l.PricingCategory}, {"BillingCurrency", l.BilledCost.Currency},
		{"effective cost currency", l.EffectiveCost.Currency}, {"list cost currency", l.ListCost.Currency},
		{"contracted cost currency", l.ContractedCost.Currency}, {"CommitmentDiscountId", l.CommitmentDiscountID},
		{"CommitmentDiscountStatus", l.CommitmentDiscountStatus}, {"CommitmentDiscountType", l.CommitmentDiscountType},
		{"CommitmentDiscountCategory", l.CommitmentDiscountCategory}, {"ResourceId", l.ResourceID},
		{"ResourceName", l.ResourceName}, {"ResourceType", l.ResourceType}, {"instance type", l.InstanceType},
		{"ServiceName", l.ServiceName}, {"ServiceCategory", l.ServiceCategory}, {"RegionId", l.RegionID},
		{"AvailabilityZone", l.AvailabilityZone}, {"SkuId", l.SkuID}, {"SkuPriceId", l.SkuPriceID},
		{"ChargeDescription", l.ChargeDescription}, {"ConsumedUnit", l.ConsumedUnit}, {"PricingUnit", l.PricingUnit}}
	for _, f := range fields {
		if !storable(f.v) {
			return f.name, false
		}
	}
	for name, m := range map[string]map[string]string{"Tags": l.Tags, "extra columns": l.Extra} {
		for k, v := range m {
			if !storable(k) || !storable(v) {
				return fmt.Sprintf("%s key %q", name, k), false
			}
		}
	}
	return "", true
}

// storable says whether PostgreSQL text holds s as it is.
func storable(s string) bool {
	return utf8.ValidString(s) && strings.IndexByte(s, 0) < 0
}
