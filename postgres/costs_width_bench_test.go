package postgres

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/internal/storetest"
	"github.com/gpucost/gpucost/postgres/pgtest"
)

// BenchmarkCopyWidth weighs the change BenchmarkPutCostsCPU points to: the server's CPU seconds
// a million lines take to COPY in cost_lines' row of 46 columns, against a row of 18 that refers
// to the line's context (account, categories, service, region, units, SKU price, description)
// by number. The same 300,000 lines, binary COPY, one transaction each, into tables of their
// own: go test ./postgres -run '^$' -bench CopyWidth -benchtime 2x
func BenchmarkCopyWidth(b *testing.B) {
	ctx := context.Background()
	db, err := Open(ctx, pgtest.Start(b))
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	if _, err := db.pool.Exec(ctx, `CREATE TABLE wide_lines (LIKE cost_lines INCLUDING ALL);
		CREATE TABLE narrow_lines (import_id bigint NOT NULL, seq integer NOT NULL, ctx integer NOT NULL,
			charge_start_s bigint NOT NULL, charge_end_s bigint NOT NULL, billed_nanos bigint NOT NULL,
			effective_nanos bigint NOT NULL, list_nanos bigint NOT NULL, contracted_nanos bigint NOT NULL,
			resource_id text NOT NULL, resource_name text NOT NULL, sku_id text NOT NULL,
			consumed_quantity double precision NOT NULL, pricing_quantity double precision NOT NULL,
			tags json NOT NULL, extra json NOT NULL, line bigint NOT NULL, rows bigint NOT NULL, PRIMARY KEY (import_id, seq))`); err != nil {
		b.Fatal(err)
	}
	const resources, days = 10_000, 30
	var wide, narrow []byte
	seq := int32(0)
	for l := range storetest.FleetLines(resources, 0, days) {
		wide = appendLine(wide, 1, seq, l)
		narrow = appendNarrow(narrow, seq, l)
		seq++
	}
	for _, c := range []struct {
		name, sql string
		rows      []byte
	}{
		{"46-columns", `COPY wide_lines (import_id, seq, ` + strings.Join(lineColumns, ", ") + `) FROM STDIN WITH (FORMAT binary)`, wide},
		{"18-columns", `COPY narrow_lines FROM STDIN WITH (FORMAT binary)`, narrow},
	} {
		b.Run(c.name, func(b *testing.B) {
			table := strings.Fields(c.sql)[1]
			var server, wall time.Duration
			for i := range b.N {
				data := append([]byte(copyHeader), c.rows...)
				data = binary.BigEndian.AppendUint16(data, 0xffff)
				conn, err := db.pool.Acquire(ctx)
				if err != nil {
					b.Fatal(err)
				}
				var pid int
				if err := conn.QueryRow(ctx, `SELECT pg_backend_pid()`).Scan(&pid); err != nil {
					b.Fatal(err)
				}
				if _, err := conn.Exec(ctx, `TRUNCATE `+table); err != nil {
					b.Fatal(err)
				}
				s0, t := backendCPU(pid), time.Now()
				tx, err := conn.Begin(ctx)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := tx.Conn().PgConn().CopyFrom(ctx, strings.NewReader(string(data)), c.sql); err != nil {
					b.Fatalf("copy %d: %v", i, err)
				}
				if err := tx.Commit(ctx); err != nil {
					b.Fatal(err)
				}
				wall += time.Since(t)
				server += backendCPU(pid) - s0
				conn.Release()
			}
			per := float64(b.N) * resources * days / 1e6
			b.ReportMetric(server.Seconds()/per, "backend-cpu-s/M")
			b.ReportMetric(wall.Seconds()/per, "wall-s/M")
			b.ReportMetric(float64(len(c.rows))/(resources*days), "B/row")
		})
	}
}

// appendNarrow appends line seq as a row of narrow_lines, its context numbered 7.
func appendNarrow(b []byte, seq int32, l *gpucost.CostLine) []byte {
	b = binary.BigEndian.AppendUint16(b, 18)
	b = appendInt4(appendInt4(appendInt8(b, 1), seq), 7)
	b = appendInt8(appendInt8(b, l.ChargePeriodStart.Unix()), l.ChargePeriodEnd.Unix())
	for _, m := range [...]gpucost.Money{l.BilledCost, l.EffectiveCost, l.ListCost, l.ContractedCost} {
		b = appendInt8(b, m.Nanos)
	}
	b = appendText(b, l.ResourceID, l.ResourceName, l.SkuID)
	b = appendInt8(appendInt8(b, int64(math.Float64bits(l.ConsumedQuantity))), int64(math.Float64bits(l.PricingQuantity)))
	b = appendJSON(appendJSON(b, l.Tags), l.Extra)
	return appendInt8(appendInt8(b, int64(l.Line)), int64(l.Rows))
}

// backendCPU returns the user and system CPU time of the server process pid, from /proc.
func backendCPU(pid int) time.Duration {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	f := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
	utime, _ := strconv.ParseInt(f[11], 10, 64)
	stime, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(utime+stime) * time.Second / 100
}
