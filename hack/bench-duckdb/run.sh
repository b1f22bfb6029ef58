#!/usr/bin/env bash
# run.sh times gpucost import billing against DuckDB's CSV reader (npm @duckdb/node-api,
# installed into this folder on first run) on the same generated FOCUS bills (billing/focusgen,
# through hack/focusgen) at the same grain, day × resource × SKU × pricing × the other
# dimensions gpucost keeps, with DECIMAL sums, both storing into a database file. It prints per
# bill the best wall time of REPEAT runs, CPU seconds and peak RSS of each, the ratio (DuckDB's
# time over gpucost's: ≥ 1.0 is gpucost as fast or faster; by wall time, and by CPU time, the
# steadier on a loaded machine, where DuckDB's second thread counts against it) and checks both
# billed totals agree.
#
#   hack/bench-duckdb/run.sh [ROWS...]      # default 1000000; e.g. run.sh 1000000 10000000
#   REPEAT=3 SHAPES="aggregating distinct" hack/bench-duckdb/run.sh
#   BASE=/tmp/gpucost-before hack/bench-duckdb/run.sh   # also times another build, run for run beside this one
#
# gpucost runs with --no-source, storing the aggregated lines only, as DuckDB does; the default
# import also keeps a compressed copy of the file (a line "gpucost (keeps source)" shows it).
# Bills (about 300 bytes a row) go to a temporary directory, removed on exit; set KEEP_DIR to
# keep and reuse them. It needs node, npm, go and GNU time; run it from the repository root.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repeat=${REPEAT:-3}
shapes=${SHAPES:-aggregating distinct}
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(1000000)

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bills=${KEEP_DIR:-$tmp}
mkdir -p "$bills"

[ -d "$here/node_modules/@duckdb/node-api" ] || (cd "$here" && npm install --no-audit --no-fund --silent)
go build -o "$tmp/gpucost" ./cmd/gpucost
go build -o "$tmp/focusgen" ./hack/focusgen

# measure NAME CMD... runs CMD REPEAT times after removing $tmp/db*, keeping the best wall time
# with its CPU seconds and peak RSS in best_wall, best_cpu, best_rss, and its stdout in $tmp/out.
measure() {
	best_wall="" best_cpu="" best_rss=""
	for _ in $(seq "$repeat"); do
		rm -rf "$tmp"/db*
		/usr/bin/time -f '%e %U %S %M' -o "$tmp/time" "$@" >"$tmp/out" 2>"$tmp/err" || { cat "$tmp/err" >&2; return 1; }
		read -r wall user sys rss <"$tmp/time"
		if [ -z "$best_wall" ] || awk -v a="$wall" -v b="$best_wall" 'BEGIN { exit !(a < b) }'; then
			best_wall=$wall best_cpu=$(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.2f", u + s }') best_rss=$((rss / 1024))
		fi
	done
}

printf '%-12s %10s %9s  %-24s %8s %8s %8s\n' shape rows lines tool wall-s cpu-s rss-MB
printf 'load: %s\n' "$(uptime | sed 's/.*load/load/')"
for rows in "${sizes[@]}"; do
	for shape in $shapes; do
		bill=$bills/$shape-$rows.csv
		[ -s "$bill" ] || "$tmp/focusgen" -rows "$rows" -shape "$shape" -o "$bill" >/dev/null

		if [ -n "${BASE:-}" ]; then
			measure "$BASE" --db "$tmp/db.sqlite" --output json import billing --no-source "$bill"
			printf '%-12s %10s %9s  %-24s %8s %8s %8s\n' "$shape" "$rows" "" "gpucost (BASE)" "$best_wall" "$best_cpu" "$best_rss"
		fi
		measure "$tmp/gpucost" --db "$tmp/db.sqlite" --output json import billing --no-source "$bill"
		g_wall=$best_wall g_cpu=$best_cpu
		g_lines=$(grep -o '"lines_stored": *[0-9]*' "$tmp/out" | grep -o '[0-9]*$')
		g_billed=$(grep -o '"billed_cost": *"[0-9.]*"' "$tmp/out" | grep -o '[0-9.]*"$' | tr -d '"')
		printf '%-12s %10s %9s  %-24s %8s %8s %8s\n' "$shape" "$rows" "$g_lines" gpucost "$best_wall" "$best_cpu" "$best_rss"

		measure "$tmp/gpucost" --db "$tmp/db.sqlite" --output json import billing "$bill"
		printf '%-12s %10s %9s  %-24s %8s %8s %8s\n' "$shape" "$rows" "$g_lines" "gpucost (keeps source)" "$best_wall" "$best_cpu" "$best_rss"

		measure node "$here/import.mjs" "$bill" "$tmp/db.duckdb"
		d_lines=$(grep -o '"lines":[0-9]*' "$tmp/out" | grep -o '[0-9]*$')
		d_billed=$(grep -o '"billed":"[0-9.]*"' "$tmp/out" | sed 's/.*:"//; s/"$//')
		printf '%-12s %10s %9s  %-24s %8s %8s %8s\n' "$shape" "$rows" "$d_lines" duckdb "$best_wall" "$best_cpu" "$best_rss"

		if [ "$g_lines" != "$d_lines" ] || ! awk -v a="$g_billed" -v b="$d_billed" 'BEGIN { exit !(a + 0 == b + 0) }'; then
			echo "gpucost and DuckDB disagree: $g_lines lines billing $g_billed, $d_lines lines billing $d_billed" >&2
			exit 1
		fi
		awk -v d="$best_wall" -v g="$g_wall" -v dc="$best_cpu" -v gc="$g_cpu" -v s="$shape" -v r="$rows" \
			'BEGIN { printf "%-12s %10s  ratio DuckDB/gpucost %.2fx wall, %.2fx CPU (target >= 1.0x)\n", s, r, d / g, dc / gc }'
	done
done
