package postgres_test

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/internal/storetest"
	"github.com/gpucost/gpucost/internal/usage"
	"github.com/jackc/pgx/v5/pgxpool"
)

// BenchmarkPutCostsCPU stores a million daily lines (40,000 resources × 25 days) as one import
// and says where its time goes: wall-s/M, the whole PutCosts; client-cpu-s/M, this process
// (making the lines and encoding the binary COPY); server-cpu-s/M, the cluster's processes (the
// backend parsing and storing the rows, the WAL writer, the checkpointer); WAL-MB/M, the WAL
// the server wrote, which a durable commit waits to have on disk. "new" adds an import
// to the store each time; "replace" replaces the previous one, deleting its million lines in the
// same transaction. On a shared machine the CPU figures are the steadier:
//
//	go test ./postgres -run '^$' -bench PutCostsCPU -benchtime 3x
func BenchmarkPutCostsCPU(b *testing.B) {
	for _, replace := range []bool{false, true} {
		name := map[bool]string{false: "new", true: "replace"}[replace]
		b.Run(name, func(b *testing.B) { benchPutCostsCPU(b, 40_000, 25, replace) })
	}
}

func benchPutCostsCPU(b *testing.B, resources, days int, replace bool) {
	ctx := context.Background()
	db := openDB(b)
	var wall, client, server time.Duration
	var wal float64
	var prev []int64
	for i := range b.N {
		c0, s0, w0 := processCPU(b, os.Getpid()), clusterCPU(b, db), walBytes(b, db)
		t := time.Now()
		imp := gpucost.CostImport{Name: "month.csv", Checksum: fmt.Sprint("month-", i), Format: "focus", Grain: 24 * time.Hour}
		if !replace {
			imp.Name = fmt.Sprintf("month-%d.csv", i) // another bill: new billing accounts, below
		}
		got, err := db.PutCosts(ctx, imp, accountLines(storetest.FleetLines(resources, 0, days), i, replace), prev)
		if err != nil {
			b.Fatal(err)
		}
		wall += time.Since(t)
		client += processCPU(b, os.Getpid()) - c0
		server += clusterCPU(b, db) - s0
		wal += walBytes(b, db) - w0
		if replace {
			prev = []int64{got.ID}
		}
	}
	per := float64(b.N) * float64(resources*days) / 1e6
	b.ReportMetric(wall.Seconds()/per, "wall-s/M")
	b.ReportMetric(client.Seconds()/per, "client-cpu-s/M")
	b.ReportMetric(server.Seconds()/per, "server-cpu-s/M")
	b.ReportMetric(wal/per/1e6, "WAL-MB/M")
}

// walBytes returns the server's WAL position in bytes.
func walBytes(b *testing.B, db interface {
	Pool() *pgxpool.Pool
}) float64 {
	b.Helper()
	var n float64
	if err := db.Pool().QueryRow(context.Background(), `SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0')::float8`).Scan(&n); err != nil {
		b.Fatal(err)
	}
	return n
}

// accountLines gives the lines of import i a billing account of their own unless they replace
// the import before, so that imports added side by side cover different (account, period) pairs.
func accountLines(lines func(func(*gpucost.CostLine) bool), i int, replace bool) func(func(*gpucost.CostLine) bool) {
	if replace {
		return lines
	}
	account := fmt.Sprint("payer-", i)
	return func(yield func(*gpucost.CostLine) bool) {
		for l := range lines {
			l.BillingAccountID = account
			if !yield(l) {
				return
			}
		}
	}
}

// clusterCPU returns the CPU time of the processes of db's cluster that pg_stat_activity lists:
// the backends and the background processes.
func clusterCPU(b *testing.B, db interface {
	Pool() *pgxpool.Pool
}) time.Duration {
	b.Helper()
	rows, err := db.Pool().Query(context.Background(), `SELECT pid FROM pg_stat_activity`)
	if err != nil {
		b.Fatal(err)
	}
	defer rows.Close()
	var sum time.Duration
	for rows.Next() {
		var pid int
		if err := rows.Scan(&pid); err != nil {
			b.Fatal(err)
		}
		sum += processCPU(b, pid)
	}
	return sum
}

// processCPU returns the user and system CPU time of process pid, from /proc.
func processCPU(b *testing.B, pid int) time.Duration {
	b.Helper()
	if pid == os.Getpid() {
		return usage.CPU()
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0 // a process that ended
	}
	f := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
	utime, _ := strconv.ParseInt(f[11], 10, 64)
	stime, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(utime+stime) * time.Second / 100 // clock ticks of USER_HZ 100
}
