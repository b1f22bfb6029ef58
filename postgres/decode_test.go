package postgres

import (
	"bytes"
	"encoding/binary"
	"math"
	"slices"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
)

// rawContext encodes the context of a line, numbered id, as the server sends a
// cost_line_contexts row of scanContextColumns in binary, for the decoder's tests.
func rawContext(id int32, l *gpucost.CostLine, tags, extra string) [][]byte {
	i8 := func(v int64) []byte { return binary.BigEndian.AppendUint64(nil, uint64(v)) }
	i4 := func(v int32) []byte { return binary.BigEndian.AppendUint32(nil, uint32(v)) }
	out := [][]byte{i4(id), i8(l.BillingPeriodStart.Unix()), i4(int32(l.BillingPeriodStart.Nanosecond()))}
	for _, v := range []string{l.Provider, l.BillingAccountID, l.SubAccountID, l.ChargeCategory, l.ChargeClass,
		l.ChargeFrequency, l.PricingCategory, l.BilledCost.Currency, l.EffectiveCost.Currency, l.ListCost.Currency,
		l.ContractedCost.Currency, l.CommitmentDiscountID, l.CommitmentDiscountStatus, l.CommitmentDiscountType,
		l.CommitmentDiscountCategory, l.ResourceID, l.ResourceName, l.ResourceType, l.InstanceType, l.ServiceName,
		l.ServiceCategory, l.RegionID, l.AvailabilityZone, l.SkuID, l.SkuPriceID, l.ChargeDescription, l.ConsumedUnit,
		l.PricingUnit, tags, extra} {
		out = append(out, []byte(v))
	}
	return out
}

// rawLine encodes a line, of context ctxID, as the server sends a cost_lines row of
// scanLineColumns in binary, for the decoder's tests.
func rawLine(seq, ctxID int32, l *gpucost.CostLine) [][]byte {
	i8 := func(v int64) []byte { return binary.BigEndian.AppendUint64(nil, uint64(v)) }
	i4 := func(v int32) []byte { return binary.BigEndian.AppendUint32(nil, uint32(v)) }
	f8 := func(v float64) []byte { return i8(int64(math.Float64bits(v))) }
	return [][]byte{i4(seq), i4(ctxID), i8(l.ChargePeriodStart.Unix()), i4(int32(l.ChargePeriodStart.Nanosecond())),
		i8(l.ChargePeriodEnd.Unix()), i4(int32(l.ChargePeriodEnd.Nanosecond())), i8(l.BilledCost.Nanos),
		i8(l.EffectiveCost.Nanos), i8(l.ListCost.Nanos), i8(l.ContractedCost.Nanos), f8(l.ConsumedQuantity),
		f8(l.PricingQuantity), i8(int64(l.Line)), i8(int64(l.Rows))}
}

func TestLineDecoderRoundTrip(t *testing.T) {
	start := time.Date(2026, 3, 1, 0, 0, 0, 5, time.UTC)
	want := gpucost.CostLine{Provider: "AWS", ResourceID: "i-1", ChargePeriodStart: start, ChargePeriodEnd: start.Add(time.Hour),
		BillingPeriodStart: time.Unix(-62135596800, 999_999_999).UTC(),
		BilledCost:         gpucost.USD(-12), EffectiveCost: gpucost.Money{Nanos: math.MaxInt64, Currency: "EUR"},
		ConsumedQuantity: math.Inf(-1), Tags: gpucost.Labels{"team": "ml"}, Line: 7, Rows: 3}
	d := newLineDecoder()
	var ctx gpucost.CostLine
	id, err := d.decodeContext(rawContext(4, &want, `{"team":"ml"}`, "null"), &ctx)
	if err != nil || id != 4 {
		t.Fatalf("decodeContext = %d, %v; want 4, nil", id, err)
	}
	contexts := []gpucost.CostLine{4: ctx}
	var got gpucost.CostLine
	seq, err := decodeLine(rawLine(9, 4, &want), contexts, &got)
	if err != nil || seq != 9 {
		t.Fatalf("decodeLine = %d, %v; want 9, nil", seq, err)
	}
	if d := lineDiffInternal(&got, &want); d != "" {
		t.Errorf("decode: %s", d)
	}
	if _, err := decodeLine(rawLine(9, -1, &want), contexts, &got); err == nil {
		t.Error("decodeLine of a line of context -1 succeeded")
	}
	if _, err := decodeLine(rawLine(9, 5, &want), contexts, &got); err == nil {
		t.Error("decodeLine of a line whose context is past those read succeeded")
	}
	short := rawLine(9, 4, &want)
	short[2] = short[2][:7] // charge_start_s
	if _, err := decodeLine(short, contexts, &got); err == nil {
		t.Error("decodeLine of a 7-byte bigint succeeded")
	}
	short = rawContext(4, &want, "{}", "null")
	short[1] = short[1][:7] // billing_start_s
	if _, err := d.decodeContext(short, &got); err == nil {
		t.Error("decodeContext of a 7-byte bigint succeeded")
	}
}

func lineDiffInternal(g, w *gpucost.CostLine) string {
	a, b := *g, *w
	if a.ConsumedQuantity != b.ConsumedQuantity {
		return "ConsumedQuantity differs"
	}
	if !a.ChargePeriodStart.Equal(b.ChargePeriodStart) || !a.ChargePeriodEnd.Equal(b.ChargePeriodEnd) ||
		!a.BillingPeriodStart.Equal(b.BillingPeriodStart) {
		return "times differ"
	}
	if a.Tags["team"] != b.Tags["team"] || len(a.Tags) != len(b.Tags) || a.Extra != nil {
		return "maps differ"
	}
	if a.BilledCost != b.BilledCost || a.EffectiveCost != b.EffectiveCost || a.Line != b.Line || a.Rows != b.Rows ||
		a.Provider != b.Provider || a.ResourceID != b.ResourceID {
		return "fields differ"
	}
	return ""
}

// FuzzDecodeLine feeds the decoders a context row and a line row of arbitrary values (the input
// split at 0xff bytes): they must return an error or a line, never panic.
func FuzzDecodeLine(f *testing.F) {
	l := gpucost.CostLine{Provider: "Microsoft", ResourceID: "/subscriptions/x/vm", BilledCost: gpucost.USD(1),
		ChargePeriodStart: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC), Tags: gpucost.Labels{"a": "b,c=d"}}
	f.Add(bytes.Join(append(rawContext(0, &l, `{"a":"b,c=d"}`, "null"), rawLine(0, 0, &l)...), []byte{0xff}))
	f.Add([]byte("\xff\xff"))
	f.Fuzz(func(t *testing.T, data []byte) {
		n := len(scanContextColumns) + len(scanLineColumns)
		vals := bytes.Split(data, []byte{0xff})
		if len(vals) < n {
			vals = append(vals, make([][]byte, n-len(vals))...)
		}
		var ctx, got gpucost.CostLine
		id, err := newLineDecoder().decodeContext(vals[:len(scanContextColumns)], &ctx)
		if err != nil || id < 0 || id > 100 {
			return
		}
		contexts := make([]gpucost.CostLine, id+1)
		contexts[id] = ctx
		decodeLine(vals[len(scanContextColumns):n], contexts, &got)
	})
}

func TestHistRoundTrip(t *testing.T) {
	for _, h := range [][]uint32{nil, {}, {0}, {1, math.MaxUint32, 7}, make([]uint32, histBins)} {
		got := decodeHist(encodeHist(h), nil)
		if (got == nil) != (h == nil) || !slices.Equal(got, h) {
			t.Errorf("decodeHist(encodeHist(%v)) = %v", h, got)
		}
	}
	row := rollupRow{hist: []byte{1, 2, 3}}
	if _, err := row.rollup(nil, time.Hour, nil); err == nil {
		t.Error("rollup of a 3-byte histogram succeeded")
	}
}

// FuzzDecodeRollupRow feeds the rollup decoder rows of arbitrary values (the input split at 0xff
// bytes): it must return an error or a rollup, never panic.
func FuzzDecodeRollupRow(f *testing.F) {
	var seed [][]byte
	for i, c := range rollupColumns {
		switch {
		case c == "util_hist":
			seed = append(seed, encodeHist([]uint32{0, 3, 357}))
		case c == "samples" || c == "power_samples" || c == "prof_samples" || c == "idle_minutes":
			seed = append(seed, binary.BigEndian.AppendUint32(nil, uint32(i)))
		default:
			seed = append(seed, binary.BigEndian.AppendUint64(nil, math.Float64bits(float64(i))))
		}
	}
	f.Add(bytes.Join(seed, []byte{0xff}))
	f.Fuzz(func(t *testing.T, data []byte) {
		vals := bytes.Split(data, []byte{0xff})
		if len(vals) < len(rollupColumns) {
			vals = append(vals, make([][]byte, len(rollupColumns)-len(vals))...)
		}
		var row rollupRow
		if row.decodeRaw(vals[:len(rollupColumns)]) == nil {
			r, err := row.rollup(nil, time.Hour, nil)
			if err == nil && len(r.UtilHist) > histBins {
				t.Errorf("decoded %d histogram bins", len(r.UtilHist))
			}
		}
	})
}
