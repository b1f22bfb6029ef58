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

// rawLine encodes a line as the server sends a cost_lines row in binary, for the decoder's tests.
func rawLine(importID int64, seq int32, l *gpucost.CostLine, tags, extra string) [][]byte {
	i8 := func(v int64) []byte { return binary.BigEndian.AppendUint64(nil, uint64(v)) }
	i4 := func(v int32) []byte { return binary.BigEndian.AppendUint32(nil, uint32(v)) }
	f8 := func(v float64) []byte { return i8(int64(math.Float64bits(v))) }
	s := func(v string) []byte { return []byte(v) }
	tm := func(t time.Time) [][]byte { return [][]byte{i8(t.Unix()), i4(int32(t.Nanosecond()))} }
	m := func(v gpucost.Money) [][]byte { return [][]byte{i8(v.Nanos), s(v.Currency)} }
	out := [][]byte{i8(importID), i4(seq), s(l.Provider), s(l.BillingAccountID), s(l.SubAccountID)}
	out = append(out, tm(l.BillingPeriodStart)...)
	out = append(out, tm(l.ChargePeriodStart)...)
	out = append(out, tm(l.ChargePeriodEnd)...)
	out = append(out, s(l.ChargeCategory), s(l.ChargeClass), s(l.ChargeFrequency), s(l.PricingCategory))
	for _, v := range []gpucost.Money{l.BilledCost, l.EffectiveCost, l.ListCost, l.ContractedCost} {
		out = append(out, m(v)...)
	}
	out = append(out, s(l.CommitmentDiscountID), s(l.CommitmentDiscountStatus), s(l.CommitmentDiscountType),
		s(l.CommitmentDiscountCategory), s(l.ResourceID), s(l.ResourceName), s(l.ResourceType), s(l.InstanceType),
		s(l.ServiceName), s(l.ServiceCategory), s(l.RegionID), s(l.AvailabilityZone), s(l.SkuID), s(l.SkuPriceID),
		s(l.ChargeDescription), f8(l.ConsumedQuantity), s(l.ConsumedUnit), f8(l.PricingQuantity), s(l.PricingUnit),
		s(tags), s(extra), i8(int64(l.Line)), i8(int64(l.Rows)))
	return out
}

func TestLineDecoderRoundTrip(t *testing.T) {
	start := time.Date(2026, 3, 1, 0, 0, 0, 5, time.UTC)
	want := gpucost.CostLine{Provider: "AWS", ResourceID: "i-1", ChargePeriodStart: start, ChargePeriodEnd: start.Add(time.Hour),
		BilledCost: gpucost.USD(-12), EffectiveCost: gpucost.Money{Nanos: math.MaxInt64, Currency: "EUR"},
		ConsumedQuantity: math.Inf(-1), Tags: gpucost.Labels{"team": "ml"}, Line: 7, Rows: 3}
	d := newLineDecoder()
	var got gpucost.CostLine
	id, seq, err := d.decode(rawLine(4, 9, &want, `{"team":"ml"}`, "null"), &got)
	if err != nil || id != 4 || seq != 9 {
		t.Fatalf("decode = %d, %d, %v; want 4, 9, nil", id, seq, err)
	}
	if d := lineDiffInternal(&got, &want); d != "" {
		t.Errorf("decode: %s", d)
	}
	short := rawLine(4, 9, &want, "{}", "null")
	short[5] = short[5][:7] // billing_start_s
	if _, _, err := d.decode(short, &got); err == nil {
		t.Error("decode of a 7-byte bigint succeeded")
	}
}

func lineDiffInternal(g, w *gpucost.CostLine) string {
	a, b := *g, *w
	if a.ConsumedQuantity != b.ConsumedQuantity {
		return "ConsumedQuantity differs"
	}
	if !a.ChargePeriodStart.Equal(b.ChargePeriodStart) || !a.ChargePeriodEnd.Equal(b.ChargePeriodEnd) {
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

// FuzzDecodeLine feeds the decoder rows of arbitrary values (the input split at 0xff bytes): it
// must return an error or a line, never panic.
func FuzzDecodeLine(f *testing.F) {
	l := gpucost.CostLine{Provider: "Microsoft", ResourceID: "/subscriptions/x/vm", BilledCost: gpucost.USD(1),
		ChargePeriodStart: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC), Tags: gpucost.Labels{"a": "b,c=d"}}
	f.Add(bytes.Join(rawLine(1, 0, &l, `{"a":"b,c=d"}`, "null"), []byte{0xff}))
	f.Add([]byte("\xff\xff"))
	f.Fuzz(func(t *testing.T, data []byte) {
		vals := bytes.Split(data, []byte{0xff})
		if len(vals) < 2+len(lineColumns) {
			vals = append(vals, make([][]byte, 2+len(lineColumns)-len(vals))...)
		}
		var got gpucost.CostLine
		newLineDecoder().decode(vals[:2+len(lineColumns)], &got)
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
