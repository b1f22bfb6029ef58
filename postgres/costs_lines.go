package postgres

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"iter"
	"math"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/gpucost/gpucost"
	"github.com/jackc/pgx/v5"
)

// lineColumns are the columns of cost_lines in the order appendLine writes them and
// lineDecoder reads them: what a line has of its own (migrations/0030_narrow_cost_lines.sql).
var lineColumns = []string{"import_id", "seq", "context_id", "charge_start_s", "charge_start_ns", "charge_end_s", "charge_end_ns",
	"billed_nanos", "effective_nanos", "list_nanos", "contracted_nanos", "consumed_quantity", "pricing_quantity", "line", "rows"}

// contextColumns are the columns of cost_line_contexts after import_id and id, in the order
// appendContext writes them and lineDecoder reads them: what the lines of an import share.
var contextColumns = []string{"billing_start_s", "billing_start_ns", "provider", "billing_account", "sub_account",
	"charge_category", "charge_class", "charge_frequency", "pricing_category",
	"billed_currency", "effective_currency", "list_currency", "contracted_currency",
	"commitment_id", "commitment_status", "commitment_type", "commitment_category",
	"resource_id", "resource_name", "resource_type", "instance_type", "service_name", "service_category",
	"region_id", "availability_zone", "sku_id", "sku_price_id", "charge_description", "consumed_unit", "pricing_unit",
	"tags", "extra"}

// lineWriter copies the lines of one import to the server in PostgreSQL's binary COPY format,
// a batch at a time: each line as a narrow row of numbers in cost_lines, and each distinct
// context of the import (its strings, billing period and maps) once, in cost_line_contexts. It
// encodes the rows itself: pgx's generic CopyFrom plans every value of every row, which took
// most of the client's time of an import.
type lineWriter struct {
	tx       pgx.Tx
	importID int64
	lines    int
	sums     gpucost.CostTotals

	minStart, maxStart int64 // the lines' charge period starts, Unix seconds

	cur      *copyBatch       // the batch being filled
	ids      map[string]int32 // a context's encoded columns to its number, up to maxContexts
	contexts int32            // contexts numbered
	key      []byte           // the current line's context, encoded
	keys     []string         // scratch for sorting a map's keys
}

// Batches end at copyLines lines or past copyBytes bytes; memory holds two (see copySender).
const (
	copyLines = 32768
	copyBytes = 8 << 20
)

// maxContexts bounds the contexts a writer remembers, about 300 bytes each: past it, a line
// whose context is not remembered stores that context again, under a new number. An import's
// lines come by period and then resource (billing.Aggregator.Lines), so a day of lines of up to
// maxContexts resources and SKUs shares its contexts with every other day.
const maxContexts = 1 << 16

// copyHeader starts a binary COPY stream: the signature, no flags, no header extension.
const copyHeader = "PGCOPY\n\xff\r\n\x00" + "\x00\x00\x00\x00" + "\x00\x00\x00\x00"

// The statements the batches are sent with.
var (
	copyLinesSQL    = `COPY cost_lines (` + strings.Join(lineColumns, ", ") + `) FROM STDIN WITH (FORMAT binary)`
	copyContextsSQL = `COPY cost_line_contexts (import_id, id, ` + strings.Join(contextColumns, ", ") + `) FROM STDIN WITH (FORMAT binary)`
)

// writeAll writes the lines, stopping at the first error or when ctx is done. The iterator runs
// on the calling goroutine, so a panic in it unwinds through PutCosts, whose deferred rollback
// stores nothing, once the batch being copied is done; the COPYs run on a goroutine of their own
// (copySender), the connection being used by nothing else until writeAll returns.
func (w *lineWriter) writeAll(ctx context.Context, lines iter.Seq[*gpucost.CostLine]) (err error) {
	if lines == nil {
		lines = func(func(*gpucost.CostLine) bool) {}
	}
	w.ids = map[string]int32{}
	s := startSender(ctx, w.tx.Conn().PgConn())
	defer func() {
		if cerr := s.close(); err == nil {
			err = cerr
		}
		if ctx.Err() != nil { // the reader failed, or the caller gave up
			err = context.Cause(ctx)
		}
	}()
	w.cur = s.take()
	for l := range lines {
		if w.cur.nlines == copyLines || len(w.cur.lines)+len(w.cur.contexts) >= copyBytes {
			if err = s.send(w.cur); err != nil {
				return err
			}
			w.cur = s.take()
		}
		if err = w.add(l); err != nil {
			return err
		}
	}
	return s.send(w.cur)
}

// add encodes l into the batch, and its context too if the writer has not numbered it yet.
func (w *lineWriter) add(l *gpucost.CostLine) error {
	b := w.cur
	w.key = w.appendContext(w.key[:0], l)
	id, ok := w.ids[string(w.key)]
	if !ok {
		if field, ok := badText(l); !ok {
			return gpucost.Errorf(gpucost.EInvalid,
				"line %d (source line %d): %s holds a NUL byte or invalid UTF-8, which PostgreSQL text cannot store; clean the bill or use the SQLite store",
				w.lines+1, l.Line, field)
		}
		id = w.contexts
		w.contexts++
		if len(w.ids) < maxContexts {
			w.ids[string(w.key)] = id
		}
		if b.ncontexts == 0 {
			b.contexts = append(b.contexts[:0], copyHeader...)
		}
		b.contexts = binary.BigEndian.AppendUint16(b.contexts, uint16(2+len(contextColumns)))
		b.contexts = append(appendInt4(appendInt8(b.contexts, w.importID), id), w.key...)
		b.ncontexts++
	}
	if b.nlines == 0 {
		b.lines, b.first = append(b.lines[:0], copyHeader...), w.lines+1
	}
	b.lines = appendLine(b.lines, w.importID, int32(w.lines), id, l)
	if start := l.ChargePeriodStart.Unix(); w.lines == 0 {
		w.minStart, w.maxStart = start, start
	} else {
		w.minStart, w.maxStart = min(w.minStart, start), max(w.maxStart, start)
	}
	b.nlines++
	w.lines++
	w.sums.Add(l.BilledCost, l.EffectiveCost)
	return nil
}

// appendLine appends line seq of an import, whose context is numbered ctxID, as a binary COPY
// row of cost_lines, its columns in the order of lineColumns.
func appendLine(b []byte, importID int64, seq, ctxID int32, l *gpucost.CostLine) []byte {
	b = binary.BigEndian.AppendUint16(b, uint16(len(lineColumns)))
	b = appendInt4(appendInt4(appendInt8(b, importID), seq), ctxID)
	b = appendInt4(appendInt8(b, l.ChargePeriodStart.Unix()), int32(l.ChargePeriodStart.Nanosecond()))
	b = appendInt4(appendInt8(b, l.ChargePeriodEnd.Unix()), int32(l.ChargePeriodEnd.Nanosecond()))
	b = appendInt8(appendInt8(b, l.BilledCost.Nanos), l.EffectiveCost.Nanos)
	b = appendInt8(appendInt8(b, l.ListCost.Nanos), l.ContractedCost.Nanos)
	b = appendInt8(b, int64(math.Float64bits(l.ConsumedQuantity)))
	b = appendInt8(b, int64(math.Float64bits(l.PricingQuantity)))
	return appendInt8(appendInt8(b, int64(l.Line)), int64(l.Rows))
}

// appendContext appends the columns of l's context, in the order of contextColumns, as a binary
// COPY row holds them. The bytes are also the context's key: two lines share a context when
// they encode alike, the maps written with their keys sorted.
func (w *lineWriter) appendContext(b []byte, l *gpucost.CostLine) []byte {
	b = appendInt4(appendInt8(b, l.BillingPeriodStart.Unix()), int32(l.BillingPeriodStart.Nanosecond()))
	b = appendText(b, l.Provider, l.BillingAccountID, l.SubAccountID,
		l.ChargeCategory, l.ChargeClass, l.ChargeFrequency, l.PricingCategory,
		l.BilledCost.Currency, l.EffectiveCost.Currency, l.ListCost.Currency, l.ContractedCost.Currency,
		l.CommitmentDiscountID, l.CommitmentDiscountStatus, l.CommitmentDiscountType, l.CommitmentDiscountCategory,
		l.ResourceID, l.ResourceName, l.ResourceType, l.InstanceType, l.ServiceName, l.ServiceCategory,
		l.RegionID, l.AvailabilityZone, l.SkuID, l.SkuPriceID, l.ChargeDescription, l.ConsumedUnit, l.PricingUnit)
	b = w.appendJSON(b, l.Tags)
	return w.appendJSON(b, l.Extra)
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
func (w *lineWriter) appendJSON(b []byte, m map[string]string) []byte {
	at := len(b)
	b = append(b, 0, 0, 0, 0) // the length, filled in below
	if m == nil {
		b = append(b, "null"...)
	} else {
		w.keys = w.keys[:0]
		for k := range m {
			w.keys = append(w.keys, k)
		}
		slices.Sort(w.keys)
		b = append(b, '{')
		for i, k := range w.keys {
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

// appendJSONString appends s as a JSON string, as encoding/json writes it.
func appendJSONString(b []byte, s string) []byte {
	for i := range len(s) {
		if c := s[i]; c < 0x20 || c >= utf8.RuneSelf || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			q, _ := json.Marshal(s) // a string always marshals
			return append(b, q...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

// badText returns the first field of l whose text PostgreSQL cannot store as it is (a NUL byte,
// invalid UTF-8) and false, or "" and true.
func badText(l *gpucost.CostLine) (string, bool) {
	fields := [...]struct {
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
	for _, m := range [...]struct {
		name string
		m    map[string]string
	}{{"Tags", l.Tags}, {"extra columns", l.Extra}} {
		for k, v := range m.m {
			if !storable(k) || !storable(v) {
				return fmt.Sprintf("%s key %q", m.name, k), false
			}
		}
	}
	return "", true
}

// storable says whether PostgreSQL text holds s as it is.
func storable(s string) bool {
	return utf8.ValidString(s) && strings.IndexByte(s, 0) < 0
}

// unixTime returns the time of Unix seconds s and nanoseconds ns, in UTC.
func unixTime(s int64, ns int32) time.Time { return time.Unix(s, int64(ns)).UTC() }
