package postgres

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gpucost/gpucost/internal/storetest"
	"github.com/gpucost/gpucost/postgres/pgtest"
	"github.com/jackc/pgx/v5"
)

// BenchmarkCopyPaths weighs the ways a bill's lines can go to the server: the same 300,000 lines
// (10,000 resources × 30 days), binary COPY, one transaction each, into emptied tables:
//
//   - wide-46: the row of 46 columns a line before migrations/0030_narrow_cost_lines.sql;
//   - narrow: what PutCosts does, the line's 15 numbers in cost_lines and its context once in
//     cost_line_contexts (10,000 of them);
//   - narrow-staging: the lines first into an UNLOGGED table without indexes, then INSERT …
//     SELECT into cost_lines in the same transaction;
//   - narrow-no-index: cost_lines without its primary key, to show what the index costs.
//
// backend-cpu-s/M is the server process of the connection; server-cpu-s/M adds the cluster's
// other processes (the WAL writer, the checkpointer); WAL-MB/M is the WAL written, what a
// durable commit waits to have on disk: go test ./postgres -run '^$' -bench
// CopyPaths -benchtime 3x
func BenchmarkCopyPaths(b *testing.B) {
	ctx := context.Background()
	db, err := Open(ctx, pgtest.Start(b))
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	if _, err := db.pool.Exec(ctx, `CREATE TABLE wide_lines AS SELECT * FROM cost_lines_full WITH NO DATA;
		ALTER TABLE wide_lines ADD PRIMARY KEY (import_id, seq);
		CREATE UNLOGGED TABLE staging_lines (LIKE cost_lines);
		CREATE TABLE bare_lines (LIKE cost_lines)`); err != nil {
		b.Fatal(err)
	}
	const resources, days = 10_000, 30
	wide := []byte(copyHeader)
	w := lineWriter{importID: 1, ids: map[string]int32{}, cur: &copyBatch{}}
	for l := range storetest.FleetLines(resources, 0, days) {
		wide = appendWideLine(wide, &w, 1, int32(w.lines), l)
		if err := w.add(l); err != nil {
			b.Fatal(err)
		}
	}
	end := func(buf []byte) []byte { return binary.BigEndian.AppendUint16(bytes.Clone(buf), 0xffff) }
	wide, lines, contexts := end(wide), end(w.cur.lines), end(w.cur.contexts)
	into := func(table string, cols []string) string {
		return `COPY ` + table + ` (` + strings.Join(cols, ", ") + `) FROM STDIN WITH (FORMAT binary)`
	}
	ctxSQL := into("cost_line_contexts", append([]string{"import_id", "id"}, contextColumns...))
	type step struct {
		sql  string
		data []byte // nil for a statement
	}
	for _, c := range []struct {
		name  string
		empty string
		steps []step
		bytes int
	}{
		{"wide-46", "wide_lines", []step{{into("wide_lines", append([]string{"import_id", "seq"}, wideColumns...)), wide}}, len(wide)},
		{"narrow", "cost_lines, cost_line_contexts", []step{{ctxSQL, contexts}, {copyLinesSQL, lines}}, len(lines) + len(contexts)},
		{"narrow-staging", "cost_lines, cost_line_contexts", []step{{ctxSQL, contexts}, {into("staging_lines", lineColumns), lines},
			{`INSERT INTO cost_lines SELECT * FROM staging_lines`, nil}, {`TRUNCATE staging_lines`, nil}}, len(lines) + len(contexts)},
		{"narrow-no-index", "bare_lines, cost_line_contexts", []step{{ctxSQL, contexts}, {into("bare_lines", lineColumns), lines}},
			len(lines) + len(contexts)},
	} {
		b.Run(c.name, func(b *testing.B) {
			var backend, server, wall time.Duration
			var wal float64
			for range b.N {
				conn, err := db.pool.Acquire(ctx)
				if err != nil {
					b.Fatal(err)
				}
				var pid int
				if err := conn.QueryRow(ctx, `SELECT pg_backend_pid()`).Scan(&pid); err != nil {
					b.Fatal(err)
				}
				if _, err := conn.Exec(ctx, `TRUNCATE `+c.empty+`; CHECKPOINT`); err != nil {
					b.Fatal(err)
				}
				b0, s0, w0, t := pidCPU(pid), clusterCPUOf(b, db), walBytes(b, db), time.Now()
				if err := pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
					for _, s := range c.steps {
						var err error
						if s.data == nil {
							_, err = tx.Exec(ctx, s.sql)
						} else {
							_, err = tx.Conn().PgConn().CopyFrom(ctx, bytes.NewReader(s.data), s.sql)
						}
						if err != nil {
							return fmt.Errorf("%s: %w", s.sql, err)
						}
					}
					return nil
				}); err != nil {
					b.Fatal(err)
				}
				wall += time.Since(t)
				backend += pidCPU(pid) - b0
				server += clusterCPUOf(b, db) - s0
				wal += walBytes(b, db) - w0
				conn.Release()
			}
			per := float64(b.N) * resources * days / 1e6
			b.ReportMetric(backend.Seconds()/per, "backend-cpu-s/M")
			b.ReportMetric(server.Seconds()/per, "server-cpu-s/M")
			b.ReportMetric(wall.Seconds()/per, "wall-s/M")
			b.ReportMetric(float64(c.bytes)/(resources*days), "B/line")
			b.ReportMetric(wal/per/1e6, "WAL-MB/M")
		})
	}
}

// clusterCPUOf returns the CPU time of the processes of db's cluster that pg_stat_activity
// lists: the backends and the background processes.
func clusterCPUOf(b *testing.B, db *DB) time.Duration {
	rows, err := db.pool.Query(context.Background(), `SELECT pid FROM pg_stat_activity`)
	if err != nil {
		b.Fatal(err)
	}
	pids, err := pgx.CollectRows(rows, pgx.RowTo[int32])
	if err != nil {
		b.Fatal(err)
	}
	var sum time.Duration
	for _, pid := range pids {
		sum += pidCPU(int(pid))
	}
	return sum
}

// walBytes returns the server's WAL position in bytes.
func walBytes(b *testing.B, db *DB) float64 {
	var n float64
	if err := db.pool.QueryRow(context.Background(), `SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0')::float8`).Scan(&n); err != nil {
		b.Fatal(err)
	}
	return n
}

// pidCPU returns the user and system CPU time of the server process pid, from /proc.
func pidCPU(pid int) time.Duration {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	f := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
	utime, _ := strconv.ParseInt(f[11], 10, 64)
	stime, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(utime+stime) * time.Second / 100
}
