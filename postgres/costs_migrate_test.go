package postgres

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/internal/storetest"
	"github.com/gpucost/gpucost/postgres/pgtest"
	"github.com/jackc/pgx/v5/pgxpool"
)

// wideColumns are the columns of cost_lines before migrations/0030_narrow_cost_lines.sql,
// after import_id and seq: a line a row, every field in it.
var wideColumns = []string{"provider", "billing_account", "sub_account",
	"billing_start_s", "billing_start_ns", "charge_start_s", "charge_start_ns", "charge_end_s", "charge_end_ns",
	"charge_category", "charge_class", "charge_frequency", "pricing_category",
	"billed_nanos", "billed_currency", "effective_nanos", "effective_currency",
	"list_nanos", "list_currency", "contracted_nanos", "contracted_currency",
	"commitment_id", "commitment_status", "commitment_type", "commitment_category",
	"resource_id", "resource_name", "resource_type", "instance_type", "service_name", "service_category",
	"region_id", "availability_zone", "sku_id", "sku_price_id", "charge_description",
	"consumed_quantity", "consumed_unit", "pricing_quantity", "pricing_unit", "tags", "extra", "line", "rows"}

// appendWideLine appends line seq of an import as a binary COPY row of the wide cost_lines, as
// gpucost wrote it before migration 0030.
func appendWideLine(b []byte, w *lineWriter, importID int64, seq int32, l *gpucost.CostLine) []byte {
	b = binary.BigEndian.AppendUint16(b, uint16(2+len(wideColumns)))
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
	b = w.appendJSON(w.appendJSON(b, l.Tags), l.Extra)
	return appendInt8(appendInt8(b, int64(l.Line)), int64(l.Rows))
}

// copyWide copies lines into the wide cost_lines as import id.
func copyWide(ctx context.Context, pool *pgxpool.Pool, id int64, lines []gpucost.CostLine) error {
	var w lineWriter
	b := []byte(copyHeader)
	for i := range lines {
		b = appendWideLine(b, &w, id, int32(i), &lines[i])
	}
	b = binary.BigEndian.AppendUint16(b, 0xffff)
	conn, err := pool.Acquire(ctx)
	if err != nil {
		return err
	}
	defer conn.Release()
	_, err = conn.Conn().PgConn().CopyFrom(ctx, bytes.NewReader(b),
		`COPY cost_lines (import_id, seq, `+strings.Join(wideColumns, ", ")+`) FROM STDIN WITH (FORMAT binary)`)
	return err
}

// TestMigrateNarrowLines writes imports in the schema before migration 0030 (lines of one value
// a column, of a few, of a new value every line; odd strings, times, NaN, nil and empty maps),
// opens the store, which migrates it, and reads every line back as it was written: every
// column, in order. The imports' identity and coverage, computed from the migrated lines by the
// backfill, must be what PutCosts gives the same lines.
func TestMigrateNarrowLines(t *testing.T) {
	ctx := context.Background()
	url := pgtest.Start(t)
	pool, err := pgxpool.New(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	old := &DB{name: "old", pool: pool}
	if err := old.migrateTo(ctx, 23); err != nil {
		t.Fatal(err)
	}
	var imports [][]gpucost.CostLine
	for i, pool := range []int{1, 3, 0} {
		g := storetest.NewLineGen(uint64(40+i), pool)
		lines := make([]gpucost.CostLine, 200+i*50)
		for j := range lines {
			l := g.Line()
			lines[j] = storetest.Clone(&l)
		}
		imports = append(imports, lines)
	}
	imports = append(imports, nil, storetest.BillLines(3, 4)) // an import without lines; a bill's
	for i, lines := range imports {
		var id int64
		err := pool.QueryRow(ctx, `INSERT INTO cost_imports (name, checksum, format, grain_ns, source_rows, lines, totals,
			imported_at, min_start, max_start) VALUES ($1, $1, 'focus', 0, $2, $2, '[]', now(), $3, $4) RETURNING id`,
			fmt.Sprint("old-", i), len(lines), int64(math.MinInt64), int64(math.MaxInt64)).Scan(&id)
		if err != nil {
			t.Fatal(err)
		}
		if err := copyWide(ctx, pool, id, lines); err != nil {
			t.Fatalf("copy import %d in the old schema: %v", i, err)
		}
	}

	db, err := Open(ctx, url)
	if err != nil {
		t.Fatalf("Open of a store in the old schema: %v", err)
	}
	defer db.Close()
	var got [][]gpucost.CostLine
	if err := scanByImport(ctx, db, &got); err != nil {
		t.Fatal(err)
	}
	for i, want := range imports {
		if len(got[i]) != len(want) {
			t.Fatalf("import %d: %d lines after the migration, want %d", i, len(got[i]), len(want))
		}
		for j := range want {
			if d := storetest.LineDiff(&got[i][j], &want[j]); d != "" {
				t.Fatalf("import %d line %d after the migration: %s", i, j, d)
			}
		}
	}
	n := 0
	err = db.ScanCosts(ctx, gpucost.CostFilter{}, func(l *gpucost.CostLine) error {
		n++
		return nil
	})
	if err != nil || n != countLines(imports) {
		t.Errorf("ScanCosts after the migration: %d lines, %v; want %d", n, err, countLines(imports))
	}
	var wide int
	if err := db.pool.QueryRow(ctx, `SELECT count(*) FROM pg_class WHERE relname = 'cost_lines_wide'`).Scan(&wide); err != nil || wide != 0 {
		t.Errorf("cost_lines_wide is left after the migration (%d, %v)", wide, err)
	}
	var viewRows int
	if err := db.pool.QueryRow(ctx, `SELECT count(*) FROM cost_lines_full`).Scan(&viewRows); err != nil || viewRows != countLines(imports) {
		t.Errorf("cost_lines_full holds %d rows (%v), want %d", viewRows, err, countLines(imports))
	}
	checkBackfill(t, db, imports)
}

// scanByImport reads the lines of every import of db into got, an element per import in order
// of id, imports without lines included.
func scanByImport(ctx context.Context, db *DB, got *[][]gpucost.CostLine) error {
	imps, err := db.CostImports(ctx)
	if err != nil {
		return err
	}
	*got = nil
	s := lineScanner{db: db, d: newLineDecoder()}
	for _, imp := range imps {
		var lines []gpucost.CostLine
		err := s.scan(ctx, imp.ID, gpucost.CostFilter{}, func(l *gpucost.CostLine) error {
			lines = append(lines, storetest.Clone(l))
			return nil
		})
		if err != nil {
			return err
		}
		*got = append(*got, lines)
	}
	return nil
}

func countLines(imports [][]gpucost.CostLine) int {
	n := 0
	for _, lines := range imports {
		n += len(lines)
	}
	return n
}

// checkBackfill checks that the identity and coverage the backfill computed from the migrated
// lines of each import are those BillIdentity gives its lines as written.
func checkBackfill(t *testing.T, db *DB, imports [][]gpucost.CostLine) {
	t.Helper()
	imps, err := db.CostImports(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for i, imp := range imps {
		var b gpucost.BillIdentity
		for j := range imports[i] {
			b.Add(&imports[i][j])
		}
		want := imp
		b.Describe(&want, imp.Format)
		if key := b.Key(imp.Format); imp.Identity != key && imp.Identity != "" {
			t.Errorf("import %d: identity %q after the migration, want %q", i, imp.Identity, key)
		}
		if fmt.Sprint(imp.Coverage) != fmt.Sprint(want.Coverage) || fmt.Sprint(imp.Providers) != fmt.Sprint(want.Providers) {
			t.Errorf("import %d: coverage %v of %v after the migration, want %v of %v", i, imp.Coverage, imp.Providers,
				want.Coverage, want.Providers)
		}
	}
}

// BenchmarkMigrateNarrowLines times migration 0030 on a store of 300,000 lines (10,000
// resources × 30 days, one import) written in the schema before it, per million lines:
// go test ./postgres -run '^$' -bench MigrateNarrowLines -benchtime 1x
func BenchmarkMigrateNarrowLines(b *testing.B) {
	ctx := context.Background()
	var lines []gpucost.CostLine
	for l := range storetest.FleetLines(10_000, 0, 30) {
		lines = append(lines, storetest.Clone(l))
	}
	var took, cpu time.Duration
	for range b.N {
		url := pgtest.Start(b)
		pool, err := pgxpool.New(ctx, url)
		if err != nil {
			b.Fatal(err)
		}
		old := &DB{name: "old", pool: pool}
		if err := old.migrateTo(ctx, 23); err != nil {
			b.Fatal(err)
		}
		if _, err := pool.Exec(ctx, `INSERT INTO cost_imports (name, checksum, format, grain_ns, source_rows, lines, totals,
			imported_at, identity, providers) VALUES ('old', 'old', 'focus', 0, 0, 0, '[]', now(), '', '[]')`); err != nil {
			b.Fatal(err)
		}
		if err := copyWide(ctx, pool, 1, lines); err != nil {
			b.Fatal(err)
		}
		t, c0 := time.Now(), clusterCPUOf(b, old)
		if err := old.migrate(ctx); err != nil {
			b.Fatal(err)
		}
		took, cpu = took+time.Since(t), cpu+clusterCPUOf(b, old)-c0
		pool.Close()
	}
	b.ReportMetric(took.Seconds()/float64(b.N)/float64(len(lines))*1e6, "wall-s/M")
	b.ReportMetric(cpu.Seconds()/float64(b.N)/float64(len(lines))*1e6, "server-cpu-s/M")
}
