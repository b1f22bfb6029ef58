#!/usr/bin/env bash
# bench-compare.sh prints each import figure of issue 21 beside its target (make bench-compare):
# the Go benchmarks' figures, the reports' over 10,000 GPUs and over a year of bill (their benchmarks,
# then the commands themselves: hack/bench-reports.sh), then, when node and npm are on the PATH, gpucost against DuckDB on
# the same generated bills (hack/bench-duckdb/run.sh). ROWS picks the bill sizes of that
# comparison (default 1000000; "1000000 10000000" for both of the issue's sizes).
#
#   make bench-compare
#   ROWS="1000000 10000000" REPEAT=3 hack/bench-compare.sh
#
# Wall-clock figures vary with the machine's load (printed first); memory figures do not.
set -euo pipefail

go=${GO:-go}
rows=${ROWS:-1000000}

# metric OUTPUT BENCH UNIT prints the figure a benchmark line of BENCH reports in UNIT.
metric() {
	awk -v b="$2" -v u="$3" '$1 ~ b { for (i = 3; i <= NF; i++) if ($i == u) { print $(i - 1); exit } }' <<<"$1"
}

# row FIGURE TARGET MEASURED OK prints a figure, its target, what was measured and whether it
# met it (OK is an awk condition on m, the measured value).
row() {
	local verdict=missed
	if [ -n "$3" ] && awk -v m="$3" "BEGIN { exit !($4) }"; then verdict=met; fi
	printf '%-60s %-14s %12s  %s\n' "$1" "$2" "${3:-none}" "$verdict"
}

echo "load: $(uptime | sed 's/.*load/load/')"
agg=$($go test ./billing -run '^$' -bench 'AggregatorUnmergeable' -benchtime 1x -cpu 1 2>&1)
fleet=$($go test ./billing/billimport -run '^$' -bench 'ImportFleet' -benchtime 1x 2>&1)
pq=$($go test ./billing/focus -run '^$' -bench 'ReadParquet$' -cpu 1 2>&1)
sq=$($go test ./sqlite -run '^$' -bench 'PutCosts$/lines=1000000' -benchtime 3x 2>&1)
pg=$($go test ./postgres -run '^$' -bench 'PutCostsCPU$' -benchtime 3x 2>&1 || true)
cur=$($go test ./billing/awscur -run '^$' -bench 'ReadParquet$' -cpu 1 2>&1)
split=$($go test ./billing/billimport -run '^$' -bench 'ReadSplit' -benchtime 2x -cpu 1,2 2>&1)

printf '%-60s %-14s %12s  %s\n' figure target measured verdict
row "aggregator: bytes per distinct line" "<= 200 B" "$(metric "$agg" Unmergeable bytes/line)" "m <= 200"
row "import 1 M distinct rows: heap held per line, its strings too" "(info)" "$(metric "$fleet" 'ImportFleet/distinct' held-B/line)" "m > 0"
row "import 1 M distinct rows: SQLite store, seconds" "<= 2 s" "$(metric "$fleet" 'ImportFleet/distinct' store-s)" "m <= 2"
row "import 1 M distinct rows: SQLite store, CPU seconds" "<= 2 s" "$(metric "$fleet" 'ImportFleet/distinct' store-cpu-s)" "m <= 2"
row "import 1 M distinct rows: test process peak RSS, MiB" "< 300 MB" "$(metric "$fleet" 'ImportFleet/distinct' peak-RSS-MiB)" "m < 286"
row "store 1 M lines, SQLite: wall s (PutCosts/lines=1000000)" "<= 2 s" "$(metric "$sq" 'PutCosts/lines=1000000' wall-s/M)" "m <= 2"
row "store 1 M lines, SQLite: CPU s" "<= 2 s" "$(metric "$sq" 'PutCosts/lines=1000000' cpu-s/M)" "m <= 2"
row "store 1 M lines, PostgreSQL: wall s (PutCostsCPU/new)" "<= 3 s" "$(metric "$pg" 'PutCostsCPU/new' wall-s/M)" "m <= 3"
row "store 1 M lines, PostgreSQL: gpucost's CPU s" "(info)" "$(metric "$pg" 'PutCostsCPU/new' client-cpu-s/M)" "m > 0"
row "store 1 M lines, PostgreSQL: the server's CPU s" "(info)" "$(metric "$pg" 'PutCostsCPU/new' server-cpu-s/M)" "m > 0"
row "store 1 M lines, PostgreSQL: WAL written, MB" "(info)" "$(metric "$pg" 'PutCostsCPU/new' WAL-MB/M)" "m > 0"
row "replace 1 M lines by 1 M, PostgreSQL: wall s" "(info)" "$(metric "$pg" 'PutCostsCPU/replace' wall-s/M)" "m > 0"
row "read 1 M distinct rows, one reader: rows/s" "(info)" "$(metric "$split" 'ReadSplit/distinct/rows=[0-9]+$' rows/s)" "m > 0"
row "read 1 M distinct rows, in parts on 2 cores: rows/s" "(info)" "$(metric "$split" 'ReadSplit/distinct/rows=[0-9]+-2$' rows/s)" "m > 0"
row "read 1 M aggregating rows, one reader: rows/s" "(info)" "$(metric "$split" 'ReadSplit/aggregating/rows=[0-9]+$' rows/s)" "m > 0"
row "read 1 M aggregating rows, in parts on 2 cores: rows/s" "(info)" "$(metric "$split" 'ReadSplit/aggregating/rows=[0-9]+-2$' rows/s)" "m > 0"
row "import 1 M aggregating rows: rows/s (2 cores)" "" "$(metric "$fleet" 'ImportFleet/aggregating' rows/s)" "m > 0"
row "import 1 M distinct rows: rows/s (2 cores)" "" "$(metric "$fleet" 'ImportFleet/distinct' rows/s)" "m > 0"
row "FOCUS Parquet read (the reader alone), rows/s, one core" ">= 3 M" "$(metric "$pq" ReadParquet rows/s)" "m >= 3e6"
row "CUR 2.0 Parquet read, lean export, rows per CPU-second" ">= 3 M" "$(metric "$cur" 'ReadParquet/lean' rows/cpu-s)" "m >= 3e6"
row "CUR 2.0 Parquet read, every column, rows per CPU-second" ">= 3 M" "$(metric "$cur" 'ReadParquet/full' rows/cpu-s)" "m >= 3e6"
row "CUR 2.0 Parquet read, lean export, CPU ns a row" "<= 333 ns" "$(metric "$cur" 'ReadParquet/lean' cpu-ns/row)" "m <= 333.3"
row "CUR 2.0 Parquet read, every column, CPU ns a row" "<= 333 ns" "$(metric "$cur" 'ReadParquet/full' cpu-ns/row)" "m <= 333.3"

# report BENCH BENCHTIME runs one report benchmark of cmd/gpucost in a process of its own, so
# that its MiB-peak-RSS is its own.
report() { $go test ./cmd/gpucost -run '^$' -bench "$1" -benchtime "$2" 2>&1; }
# secs NS prints nanoseconds as seconds.
secs() { [ -n "$1" ] && awk -v n="$1" 'BEGIN { printf "%.2f", n / 1e9 }'; }

echo
echo "reports (issue 21 item 5; wall seconds vary with the load, peak RSS does not):"
printf '%-60s %-14s %12s  %s\n' figure target measured verdict
for b in 'ReportUtilization/by=namespace' 'ReportUtilization/by=gpu' 'ReportCostFleet/--byteam' 'ReportCostFleet/--bynamespace--gpu-only'; do
	out=$(report "$b\$" 3x)
	row "$b, 10,000 GPUs x 30 days: s a report" "<= 1 s" "$(secs "$(metric "$out" "$b" ns/op)")" "m <= 1"
	row "$b: CPU s a report" "<= 1 s" "$(metric "$out" "$b" cpu-s/op)" "m <= 1"
	row "$b: peak RSS, MiB" "< 500 MB" "$(metric "$out" "$b" MiB-peak-RSS)" "m < 477"
	# The same report reading every hourly rollup, as before the day rollups (ReportHours*).
	hb=${b/Report/ReportHours}
	out=$(report "$hb\$" 3x)
	row "$hb (every hour read): CPU s a report" "(info)" "$(metric "$out" "$hb" cpu-s/op)" "m > 0"
done
for b in 'ReportCostYear/--byteam' 'ReportCostYear/--bygpu-model--gpu-only' 'ReportCostYear/--byresource'; do
	out=$(report "$b\$" 1x)
	row "$b, a year of 10,000 resources' daily lines: s" "< 2 s" "$(secs "$(metric "$out" "$b" ns/op)")" "m < 2"
	row "$b: CPU s" "< 2 s" "$(metric "$out" "$b" cpu-s/op)" "m < 2"
	row "$b: peak RSS, MiB" "< 500 MB" "$(metric "$out" "$b" MiB-peak-RSS)" "m < 477"
done

echo
"$(dirname "$0")/bench-reports.sh"

if command -v node >/dev/null && command -v npm >/dev/null; then
	echo
	echo "gpucost against DuckDB (target: ratio >= 1.0x; peak RSS at 10 M rows < 300 MB aggregating, < 2 GB distinct):"
	# shellcheck disable=SC2086
	"$(dirname "$0")/bench-duckdb/run.sh" $rows
else
	echo "gpucost against DuckDB: skipped, node and npm are not on the PATH (hack/bench-duckdb/run.sh needs them)"
fi

echo
"$(dirname "$0")/bench-demo.sh"
