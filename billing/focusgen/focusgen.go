// Package focusgen writes generated FOCUS 1.0 CSV bills of any size in the two shapes a fleet's
// bill takes (issue 21): hourly rows that aggregate to far fewer daily lines, and daily rows of
// which every one is its own line. The import benchmarks (billing/billimport) and the gpucost
// versus DuckDB comparison (hack/bench-duckdb) read the same files.
package focusgen

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"time"
)

// Shape is how a generated bill's rows group into stored lines.
type Shape int

const (
	// Aggregating rows are hourly charges of Resources resources: a day of a resource's rows
	// sums to one line, so 1 M rows make about 41.5 k lines (day × resource × SKU × pricing).
	Aggregating Shape = iota
	// Distinct rows are daily charges, each of its own resource over 30 days: every row is a
	// line, as a large fleet's daily bill is, and every line a dimension tuple of its own, the
	// most an aggregation can hold per row.
	Distinct
)

// String returns the shape's name: aggregating or distinct.
func (s Shape) String() string {
	if s == Distinct {
		return "distinct"
	}
	return "aggregating"
}

// ParseShape returns the shape called name.
func ParseShape(name string) (Shape, error) {
	switch name {
	case "aggregating":
		return Aggregating, nil
	case "distinct":
		return Distinct, nil
	}
	return 0, fmt.Errorf("shape %q: want aggregating or distinct", name)
}

// Resources is how many resources an aggregating bill interleaves hour by hour: 1 M rows span
// 24 days of 1,730 resources, 41.5 k daily lines.
const Resources = 1730

// distinctDays is how many days a distinct bill's rows span.
const distinctDays = 30

// Header is the FOCUS 1.0 columns the bills have.
const Header = "BilledCost,EffectiveCost,ListCost,ContractedCost,BillingAccountId,BillingAccountName," +
	"BillingCurrency,BillingPeriodStart,BillingPeriodEnd,ChargeCategory,ChargeClass,ChargeDescription," +
	"ChargeFrequency,ChargePeriodStart,ChargePeriodEnd,InvoiceIssuerName,PricingCategory,PricingQuantity," +
	"PricingUnit,ConsumedQuantity,ConsumedUnit,ProviderName,PublisherName,RegionId,ResourceId,ResourceType," +
	"ServiceCategory,ServiceName,SkuId,SubAccountId,Tags\n"

// start is the first charge period of every bill: 2024-09-01 UTC.
var start = time.Date(2024, 9, 1, 0, 0, 0, 0, time.UTC)

// Bill is a generated bill.
type Bill struct {
	Rows  int
	Shape Shape
}

// Lines returns how many lines the bill aggregates to at a daily grain.
func (b Bill) Lines() int {
	if b.Shape == Distinct {
		return b.Rows
	}
	hours := (b.Rows + Resources - 1) / Resources
	days := (hours + 23) / 24
	if days <= 1 {
		return min(b.Rows, Resources)
	}
	last := b.Rows - (days-1)*24*Resources // rows of the last day
	return (days-1)*Resources + min(last, Resources)
}

// Billed returns the sum of the bill's BilledCost column in nano-dollars.
func (b Bill) Billed() int64 {
	var n int64
	for i := range b.Rows {
		n += cost(i)
	}
	return n
}

// cost is row i's cost in nano-dollars: cents from 0.01 to 99.99, so sums are exact decimals.
func cost(i int) int64 { return int64(1+(i*7919)%9999) * 10_000_000 }

// WriteTo writes the bill as CSV to w.
func (b Bill) WriteTo(w io.Writer) (int64, error) {
	bw := bufio.NewWriterSize(w, 1<<20)
	n, _ := bw.WriteString(Header)
	total := int64(n)
	row := make([]byte, 0, 512)
	for i := range b.Rows {
		row = b.AppendRow(row[:0], i)
		m, err := bw.Write(row)
		total += int64(m)
		if err != nil {
			return total, err
		}
	}
	return total, bw.Flush()
}

// AppendRow appends row i (from 0) of the bill to dst, newline included.
func (b Bill) AppendRow(dst []byte, i int) []byte {
	var from, to time.Time
	var res, sku int
	pricing := "Standard"
	if b.Shape == Distinct {
		res = i
		from = start.AddDate(0, 0, i%distinctDays)
		to = from.AddDate(0, 0, 1)
		sku = res % 4
		if res%5 == 0 {
			pricing = "Committed"
		}
	} else {
		res = i % Resources
		from = start.Add(time.Duration(i/Resources) * time.Hour)
		to = from.Add(time.Hour)
		sku = res % 4
		if res%3 == 0 {
			pricing = "Dynamic"
		}
	}
	period := time.Date(from.Year(), from.Month(), 1, 0, 0, 0, 0, time.UTC)
	c := cost(i)
	dst = appendCents(dst, c)
	for range 3 {
		dst = append(dst, ',')
		dst = appendCents(dst, c)
	}
	dst = append(dst, ",111122223333,ml,USD,"...)
	dst = appendTime(dst, period)
	dst = append(dst, ',')
	dst = appendTime(dst, period.AddDate(0, 1, 0))
	dst = append(dst, ",Usage,,"...)
	dst = append(dst, skus[sku]...)
	dst = append(dst, " hour,Usage-Based,"...)
	dst = appendTime(dst, from)
	dst = append(dst, ',')
	dst = appendTime(dst, to)
	dst = append(dst, ",AWS,"...)
	dst = append(dst, pricing...)
	dst = append(dst, ",1,Hours,1,Hours,AWS,AWS,us-east-1,i-"...)
	dst = appendPadded(dst, res)
	dst = append(dst, ",Instance,Compute,Amazon EC2,SKU-"...)
	dst = append(dst, skus[sku]...)
	dst = append(dst, ",444455556666,\"{\"\"team\"\":\"\"t"...)
	dst = strconv.AppendInt(dst, int64(res%8), 10)
	dst = append(dst, "\"\"}\"\n"...)
	return dst
}

var skus = []string{"p5.48xlarge", "p4d.24xlarge", "g5.xlarge", "g6.12xlarge"}

// appendCents appends n nano-dollars, a whole number of cents, as dollars with two decimals.
func appendCents(dst []byte, n int64) []byte {
	cents := n / 10_000_000
	dst = strconv.AppendInt(dst, cents/100, 10)
	return append(dst, '.', byte('0'+cents/10%10), byte('0'+cents%10))
}

func appendTime(dst []byte, t time.Time) []byte { return t.AppendFormat(dst, "2006-01-02 15:04:05") }

// appendPadded appends n as 17 digits, the length of an EC2 instance id.
func appendPadded(dst []byte, n int) []byte {
	s := strconv.Itoa(n)
	for range 17 - len(s) {
		dst = append(dst, '0')
	}
	return append(dst, s...)
}
