package postgres_test

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/internal/storetest"
	"github.com/jackc/pgx/v5/pgxpool"
)

// BenchmarkPutCostsCPU stores 300,000 daily lines (10,000 resources × 30 days) an import at a
// time and says where a million lines' time goes: wall-s/M, the whole PutCosts; client-cpu-s/M,
// this process encoding the binary COPY; server-cpu-s/M, the cluster's processes (the backend
// parsing and storing the rows, the WAL writer, the checkpointer). On a shared machine the CPU
// figures are the steadier:
//
//	go test ./postgres -run '^$' -bench PutCostsCPU -benchtime 3x
func BenchmarkPutCostsCPU(b *testing.B) {
	ctx := context.Background()
	db := openDB(b)
	const resources, days = 10_000, 30
	var wall, client, server time.Duration
	var prev []int64
	for i := range b.N {
		c0, s0 := processCPU(b, os.Getpid()), clusterCPU(b, db)
		t := time.Now()
		imp := gpucost.CostImport{Name: "month.csv", Checksum: fmt.Sprint("month-", i), Format: "focus", Grain: 24 * time.Hour}
		got, err := db.PutCosts(ctx, imp, storetest.FleetLines(resources, 0, days), prev)
		if err != nil {
			b.Fatal(err)
		}
		wall += time.Since(t)
		client += processCPU(b, os.Getpid()) - c0
		server += clusterCPU(b, db) - s0
		prev = []int64{got.ID}
	}
	per := float64(b.N) * resources * days / 1e6
	b.ReportMetric(wall.Seconds()/per, "wall-s/M")
	b.ReportMetric(client.Seconds()/per, "client-cpu-s/M")
	b.ReportMetric(server.Seconds()/per, "server-cpu-s/M")
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
		var ru syscall.Rusage
		syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
		return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
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
