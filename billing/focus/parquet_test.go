package focus

import (
	"bytes"
	"fmt"
	"io"
	"math/big"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/deprecated"

	"github.com/gpucost/gpucost"
)

// awsRow is shaped like AWS's FOCUS 1.2 export: DOUBLE amounts, millisecond timestamps, Tags
// as a MAP, dictionary-encoded and optional strings.
type awsRow struct {
	AvailabilityZone   *string           `parquet:"AvailabilityZone,optional,dict"`
	BilledCost         float64           `parquet:"BilledCost"`
	BillingAccountId   string            `parquet:"BillingAccountId,dict"`
	BillingCurrency    string            `parquet:"BillingCurrency,dict"`
	BillingPeriodStart time.Time         `parquet:"BillingPeriodStart,timestamp(millisecond)"`
	ChargeCategory     string            `parquet:"ChargeCategory,dict"`
	ChargeClass        *string           `parquet:"ChargeClass,optional"`
	ChargeDescription  *string           `parquet:"ChargeDescription,optional"`
	ChargePeriodEnd    time.Time         `parquet:"ChargePeriodEnd,timestamp(millisecond)"`
	ChargePeriodStart  time.Time         `parquet:"ChargePeriodStart,timestamp(millisecond)"`
	ContractedCost     *float64          `parquet:"ContractedCost,optional"`
	EffectiveCost      float64           `parquet:"EffectiveCost"`
	ListCost           float64           `parquet:"ListCost"`
	PricingCategory    *string           `parquet:"PricingCategory,optional,dict"`
	PricingQuantity    *float64          `parquet:"PricingQuantity,optional"`
	PricingUnit        *string           `parquet:"PricingUnit,optional"`
	ProviderName       string            `parquet:"ProviderName,dict"`
	ServiceCategory    string            `parquet:"ServiceCategory,dict"`
	ServiceName        string            `parquet:"ServiceName,dict"`
	Tags               map[string]string `parquet:"Tags"`
	XOperation         string            `parquet:"x_Operation"`
	XUsageAmount       *float64          `parquet:"x_UsageAmount,optional"`
}

// decimalRow is shaped like exports that store DECIMAL amounts and other time types: INT96,
// DATE, microsecond and nanosecond timestamps; Tags as a JSON string.
type decimalRow struct {
	BilledCost         int64            `parquet:"BilledCost,decimal(12:18)"` // more places than nano-units
	BillingAccountId   int64            `parquet:"BillingAccountId"`
	BillingCurrency    string           `parquet:"BillingCurrency"`
	BillingPeriodStart int32            `parquet:"BillingPeriodStart,date"`
	ChargeCategory     string           `parquet:"ChargeCategory"`
	ChargeClass        string           `parquet:"ChargeClass"`
	ChargeDescription  string           `parquet:"ChargeDescription"`
	ChargePeriodEnd    deprecated.Int96 `parquet:"ChargePeriodEnd"`
	ChargePeriodStart  int64            `parquet:"ChargePeriodStart,timestamp(nanosecond)"`
	ConsumedQuantity   *int64           `parquet:"ConsumedQuantity,optional,decimal(6:18)"`
	ContractedCost     int32            `parquet:"ContractedCost,decimal(2:9)"`
	EffectiveCost      [16]byte         `parquet:"EffectiveCost,decimal(20:38)"`
	ListCost           string           `parquet:"ListCost"`
	PricingQuantity    int32            `parquet:"PricingQuantity"`
	PricingUnit        string           `parquet:"PricingUnit"`
	ProviderName       string           `parquet:"ProviderName"`
	ServiceCategory    string           `parquet:"ServiceCategory"`
	ServiceName        string           `parquet:"ServiceName"`
	Tags               *string          `parquet:"Tags,optional"`
	XWhen              *time.Time       `parquet:"x_When,optional,timestamp(microsecond)"`
}

func ptr[T any](v T) *T { return &v }

var t0 = time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC)

// awsRows returns n rows and the lines they should read as.
func awsRows(n int) ([]awsRow, []gpucost.CostLine) {
	var rows []awsRow
	var lines []gpucost.CostLine
	for i := range n {
		r := awsRow{
			BilledCost: float64(i)*1.1 - 3, BillingAccountId: "111122223333", BillingCurrency: "USD",
			BillingPeriodStart: t0, ChargeCategory: []string{"Usage", "usage", "Credit"}[i%3],
			ChargePeriodStart: t0.Add(time.Duration(i) * time.Hour), ChargePeriodEnd: t0.Add(time.Duration(i+1) * time.Hour),
			EffectiveCost: 0.1, ListCost: 98.32, ProviderName: "AWS", ServiceCategory: "Compute", ServiceName: "EC2",
			XOperation: fmt.Sprintf("RunInstances:%04d", i%5),
		}
		l := gpucost.CostLine{
			Provider: "AWS", BillingAccountID: "111122223333", BillingPeriodStart: t0,
			ChargePeriodStart: r.ChargePeriodStart, ChargePeriodEnd: r.ChargePeriodEnd,
			ChargeCategory: []string{"Usage", "Usage", "Credit"}[i%3],
			BilledCost:     gpucost.USD(int64(i)*1_100_000_000 - 3_000_000_000), EffectiveCost: gpucost.USD(100_000_000),
			ListCost: gpucost.USD(98_320_000_000), ContractedCost: gpucost.USD(0),
			ServiceName: "EC2", ServiceCategory: "Compute", Line: i + 1,
			Extra: map[string]string{"x_Operation": r.XOperation},
		}
		if i%4 != 0 {
			r.AvailabilityZone, l.AvailabilityZone = ptr("us-east-1a"), "us-east-1a"
			r.ChargeDescription, l.ChargeDescription = ptr(fmt.Sprintf("p5.48xlarge hour %d", i)), fmt.Sprintf("p5.48xlarge hour %d", i)
			r.ContractedCost, l.ContractedCost = ptr(31.464), gpucost.USD(31_464_000_000)
			r.PricingCategory, l.PricingCategory = ptr("Dynamic"), "Dynamic"
			r.PricingQuantity, l.PricingQuantity = ptr(0.25), 0.25
			r.PricingUnit, l.PricingUnit = ptr("Hours"), "Hours"
			r.XUsageAmount, l.Extra["x_UsageAmount"] = ptr(1.5), "1.5"
		}
		if i%3 != 2 {
			r.Tags = map[string]string{"team": fmt.Sprintf("t%d", i%2), "user:project": "llm"}
			l.Tags = gpucost.Labels(r.Tags)
		}
		rows, lines = append(rows, r), append(lines, l)
	}
	return rows, lines
}

func writeParquet[T any](t *testing.T, rows []T, opts ...parquet.WriterOption) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := writeParquetTo(&buf, rows, opts...); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func writeParquetTo[T any](out io.Writer, rows []T, opts ...parquet.WriterOption) error {
	w := parquet.NewGenericWriter[T](out, opts...)
	if _, err := w.Write(rows); err != nil {
		return err
	}
	return w.Close()
}

func readParquetLines(t *testing.T, data []byte) ([]gpucost.CostLine, Stats) {
	t.Helper()
	var lines []gpucost.CostLine
	st, err := ReadParquet(bytes.NewReader(data), int64(len(data)), "test.parquet", func(l *gpucost.CostLine) error {
		lines = append(lines, Clone(l))
		return nil
	})
	if err != nil {
		t.Fatalf("ReadParquet: %v", err)
	}
	return lines, st
}

func compareLines(t *testing.T, what string, got, want []gpucost.CostLine) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d lines, want %d", what, len(got), len(want))
	}
	for i := range want {
		if !reflect.DeepEqual(got[i], want[i]) {
			t.Errorf("%s: line %d\n got  %+v\n want %+v", what, i, got[i], want[i])
			return
		}
	}
}

func TestParquetAWSShape(t *testing.T) {
	rows, want := awsRows(300)
	for name, opts := range map[string][]parquet.WriterOption{
		"defaults": nil,
		// many row groups and small V1 pages, so maps and dictionaries cross page boundaries
		"small pages": {parquet.PageBufferSize(512), parquet.MaxRowsPerRowGroup(37), parquet.DataPageVersion(1)},
		"snappy":      {parquet.Compression(&parquet.Snappy)},
	} {
		got, st := readParquetLines(t, writeParquet(t, rows, opts...))
		compareLines(t, name, got, want)
		if st.Rows != len(rows) || st.Format != "parquet" || strings.Join(st.Kept, ",") != "x_Operation,x_UsageAmount" {
			t.Errorf("%s: stats %+v", name, st)
		}
	}
}

func TestParquetDecimalShape(t *testing.T) {
	var rows []decimalRow
	var want []gpucost.CostLine
	for i := range 50 {
		eff := decimalBytes(big.NewInt(int64(i))) // i × 10^-20: rounds to 0 nano-units
		if i == 7 {
			eff = decimalBytes(big.NewInt(-500))
		}
		if i == 8 { // -1.5 nano-units: -2, half to even
			eff = decimalBytes(big.NewInt(-150_000_000_000))
		}
		if i == 9 { // -2.5 nano-units: -2, half to even
			eff = decimalBytes(big.NewInt(-250_000_000_000))
		}
		r := decimalRow{
			BilledCost: int64(i)*1_000_000_000_000 + 1_500, BillingAccountId: 20209880, BillingCurrency: "EUR",
			BillingPeriodStart: int32(t0.Unix() / 86400), ChargeCategory: "Usage", ChargeDescription: "GPU",
			ChargePeriodEnd:   int96(t0.Add(time.Duration(i+1)*time.Hour + 250*time.Millisecond)),
			ChargePeriodStart: t0.Add(time.Duration(i) * time.Hour).UnixNano(), ContractedCost: int32(-i * 100),
			EffectiveCost: eff, ListCost: fmt.Sprintf("%d.000000000499", i), PricingQuantity: int32(i), PricingUnit: "Hours",
			ProviderName: "Microsoft", ServiceCategory: "Compute", ServiceName: "Virtual Machines",
		}
		l := gpucost.CostLine{
			Provider: "Microsoft", BillingAccountID: "20209880", BillingPeriodStart: t0,
			ChargePeriodStart: t0.Add(time.Duration(i) * time.Hour), ChargePeriodEnd: t0.Add(time.Duration(i+1)*time.Hour + 250*time.Millisecond),
			ChargeCategory: "Usage", ChargeDescription: "GPU", ServiceName: "Virtual Machines", ServiceCategory: "Compute",
			BilledCost:    gpucost.Money{Nanos: int64(i) * 1_000_000_000, Currency: "EUR"}, // 1500e-12 rounds to 2e-9? no: 1.5e-9 → 2
			EffectiveCost: gpucost.Money{Currency: "EUR"}, ContractedCost: gpucost.Money{Nanos: int64(-i) * 1_000_000_000, Currency: "EUR"},
			ListCost:        gpucost.Money{Nanos: int64(i) * 1_000_000_000, Currency: "EUR"},
			PricingQuantity: float64(i), PricingUnit: "Hours", Line: i + 1,
		}
		l.BilledCost.Nanos += 2 // 1500 × 10^-12 = 1.5 nano-units, half to even: 2
		if i == 8 || i == 9 {
			l.EffectiveCost.Nanos = -2
		}
		if i%2 == 0 {
			r.ConsumedQuantity, l.ConsumedQuantity = ptr(int64(i)*1_500_000), float64(i)*1.5
			r.Tags, l.Tags = ptr(`{"team":"vision","n":3}`), gpucost.Labels{"team": "vision", "n": "3"}
			r.XWhen, l.Extra = ptr(t0), map[string]string{"x_When": "2025-06-01T00:00:00Z"}
		}
		rows, want = append(rows, r), append(want, l)
	}
	got, st := readParquetLines(t, writeParquet(t, rows))
	compareLines(t, "decimals", got, want)
	if st.Totals["EUR"].EffectiveCost.Nanos != -4 {
		t.Errorf("EUR effective total = %v, want -0.000000004", st.Totals["EUR"].EffectiveCost)
	}
}

// decimalBytes encodes n as a 16-byte big-endian two's complement DECIMAL.
func decimalBytes(n *big.Int) [16]byte {
	var b [16]byte
	u := new(big.Int).Set(n)
	if u.Sign() < 0 {
		u.Add(u, new(big.Int).Lsh(big.NewInt(1), 128))
	}
	u.FillBytes(b[:])
	return b
}

// int96 encodes t as Impala/Spark INT96: nanoseconds of the day, then the Julian day.
func int96(t time.Time) deprecated.Int96 {
	days := t.Unix()/86400 + 2440588
	nsec := uint64(t.Unix()%86400)*1e9 + uint64(t.Nanosecond())
	return deprecated.Int96{uint32(nsec), uint32(nsec >> 32), uint32(days)}
}

// textRow has every amount and date as text, as some exports write them.
type textRow struct {
	BilledCost         string `parquet:"BilledCost"`
	BillingAccountId   string `parquet:"BillingAccountId"`
	BillingCurrency    string `parquet:"BillingCurrency"`
	BillingPeriodStart string `parquet:"BillingPeriodStart"`
	ChargeCategory     string `parquet:"ChargeCategory"`
	ChargeClass        string `parquet:"ChargeClass"`
	ChargeDescription  string `parquet:"ChargeDescription"`
	ChargePeriodEnd    string `parquet:"ChargePeriodEnd"`
	ChargePeriodStart  string `parquet:"ChargePeriodStart"`
	ContractedCost     string `parquet:"ContractedCost"`
	EffectiveCost      string `parquet:"EffectiveCost"`
	ListCost           string `parquet:"ListCost"`
	PricingQuantity    string `parquet:"PricingQuantity"`
	PricingUnit        string `parquet:"PricingUnit"`
	ProviderName       string `parquet:"ProviderName"`
	ServiceCategory    string `parquet:"ServiceCategory"`
	ServiceName        string `parquet:"ServiceName"`
}

func goodText(billed string) textRow {
	return textRow{billed, "1", "USD", "2024-09-01 00:00:00", "Usage", "", "d", "2024-09-01T01:00:00.000Z",
		"2024-09-01T00:00:00+00:00", "0", "1.5", "1.5", "1", "h", "AWS", "Compute", "EC2"}
}

func TestParquetText(t *testing.T) {
	got, st := readParquetLines(t, writeParquet(t, []textRow{goodText("1.5"), goodText("-0.0000000005"), goodText("1e-3")}))
	if len(got) != 3 || st.Totals["USD"].BilledCost.Nanos != 1_501_000_000 || !got[0].ChargePeriodEnd.Equal(time.Date(2024, 9, 1, 1, 0, 0, 0, time.UTC)) {
		t.Errorf("text rows: %d lines, billed %v, first %+v", len(got), st.Totals["USD"].BilledCost, got[0])
	}
}

func TestParquetBadInput(t *testing.T) {
	type missing struct {
		BilledCost   float64 `parquet:"BilledCost"`
		ProviderName string  `parquet:"ProviderName"`
		SkuMeter     string  `parquet:"SkuMeter"`
	}
	type nested struct { // textRow with ServiceName a group
		BilledCost, BillingAccountId, BillingCurrency, BillingPeriodStart, ChargeCategory, ChargeClass string
		ChargeDescription, ChargePeriodEnd, ChargePeriodStart, ContractedCost, EffectiveCost, ListCost string
		PricingQuantity, PricingUnit, ProviderName, ServiceCategory                                    string
		ServiceName                                                                                    struct{ A, B string }
	}
	for name, tc := range map[string]struct {
		data []byte
		want string
	}{
		"missing columns":    {writeParquet(t, []missing{{}}), "lacks FOCUS mandatory columns BillingAccountId, BillingCurrency"},
		"nested group":       {writeParquet(t, []nested{{}}), "column ServiceName: a nested group"},
		"bad value":          {writeParquet(t, []textRow{goodText("1"), goodText("1"), goodText("n/a")}), `test.parquet: row 3: column 1 (BilledCost): "n/a" is not a decimal number`},
		"bad date":           {writeParquet(t, []textRow{func() textRow { r := goodText("1"); r.ChargePeriodEnd = "soon"; return r }()}), `row 1: column 8 (ChargePeriodEnd): "soon" is not an ISO 8601`},
		"null cost":          {writeParquet(t, []textRow{goodText("NULL")}), `row 1: column 1 (BilledCost) is null; FOCUS requires it in every row`},
		"null in lower case": {writeParquet(t, []textRow{goodText("null")}), `row 1: column 1 (BilledCost) is null; FOCUS requires it in every row`},
		"not parquet":        {[]byte("PAR1 but nothing else"), "is not a readable Parquet file"},
	} {
		_, err := ReadParquet(bytes.NewReader(tc.data), int64(len(tc.data)), "test.parquet", func(*gpucost.CostLine) error { return nil })
		if err == nil || !strings.Contains(err.Error(), tc.want) || gpucost.ErrorCode(err) != gpucost.EInvalid {
			t.Errorf("ReadParquet(%s) = %v, want an invalid-input error containing %q", name, err, tc.want)
		}
	}
}

// TestParquetEmitPanics checks that a panic in emit is not taken for a corrupt file.
func TestParquetEmitPanics(t *testing.T) {
	rows, _ := awsRows(3)
	data := writeParquet(t, rows)
	defer func() {
		if p := recover(); p != "emit broke" {
			t.Errorf("recovered %v, want emit's own panic", p)
		}
	}()
	ReadParquet(bytes.NewReader(data), int64(len(data)), "p.parquet", func(*gpucost.CostLine) error { panic("emit broke") })
}
