#!/usr/bin/env bash
# run.sh times gpucost import billing against DuckDB's CSV reader (npm @duckdb/node-api,
# installed into this folder on first run) on the same generated FOCUS bills (billing/focusgen,
# through hack/focusgen) at the same grain, day × resource × SKU × pricing × the other
# dimensions gpucost keeps, with DECIMAL sums, both storing into a database file. It prints per
# bill the best wall time of REPEAT rounds (each runs every tool once, in turn), CPU seconds and
# peak RSS of each, the ratio (DuckDB's time over gpucost's: ≥ 1.0 is gpucost as fast or
# faster; by wall time, and by CPU time, the steadier on a loaded machine, where DuckDB's second
# thread counts against it) and checks both billed totals agree.
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

# trial TOOL CMD... runs CMD once after removing $tmp/db* and keeps its wall time, CPU seconds and
# peak RSS in best_wall, best_cpu and best_rss under TOOL, and its stdout in $tmp/out-TOOL, when
# its wall time is TOOL's best so far. Each round runs every tool once, so that on a shared
# machine, whose load comes and goes, each tool's best is taken over the same stretch of time.
declare -A best_wall best_cpu best_rss
trial() {
	local tool=$1
	shift
	rm -rf "$tmp"/db*
	/usr/bin/time -f '%e %U %S %M' -o "$tmp/time" "$@" >"$tmp/out" 2>"$tmp/err" || { cat "$tmp/err" >&2; return 1; }
	read -r wall user sys rss <"$tmp/time"
	if [ -z "${best_wall[$tool]:-}" ] || awk -v a="$wall" -v b="${best_wall[$tool]}" 'BEGIN { exit !(a < b) }'; then
		best_wall[$tool]=$wall best_rss[$tool]=$((rss / 1024))
		best_cpu[$tool]=$(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.2f", u + s }')
		cp "$tmp/out" "$tmp/out-$tool"
	fi
}

# row SHAPE ROWS LINES LABEL TOOL prints TOOL's best.
row() {
	printf '%-12s %10s %9s  %-24s %8s %8s %8s\n' "$1" "$2" "$3" "$4" "${best_wall[$5]}" "${best_cpu[$5]}" "${best_rss[$5]}"
}

printf '%-12s %10s %9s  %-24s %8s %8s %8s\n' shape rows lines tool wall-s cpu-s rss-MB
printf 'load: %s\n' "$(uptime | sed 's/.*load/load/')"
for rows in "${sizes[@]}"; do
	for shape in $shapes; do
		bill=$bills/$shape-$rows.csv
		[ -s "$bill" ] || "$tmp/focusgen" -rows "$rows" -shape "$shape" -o "$bill" >/dev/null

		best_wall=() best_cpu=() best_rss=()
		for _ in $(seq "$repeat"); do
			[ -z "${BASE:-}" ] || trial base "$BASE" --db "$tmp/db.sqlite" --output json import billing --no-source "$bill"
			trial gpucost "$tmp/gpucost" --db "$tmp/db.sqlite" --output json import billing --no-source "$bill"
			trial source "$tmp/gpucost" --db "$tmp/db.sqlite" --output json import billing "$bill"
			trial duckdb node "$here/import.mjs" "$bill" "$tmp/db.duckdb"
		done
		g_lines=$(grep -o '"lines_stored": *[0-9]*' "$tmp/out-gpucost" | grep -o '[0-9]*$')
		g_billed=$(grep -o '"billed_cost": *"[0-9.]*"' "$tmp/out-gpucost" | grep -o '[0-9.]*"$' | tr -d '"')
		d_lines=$(grep -o '"lines":[0-9]*' "$tmp/out-duckdb" | grep -o '[0-9]*$')
		d_billed=$(grep -o '"billed":"[0-9.]*"' "$tmp/out-duckdb" | sed 's/.*:"//; s/"$//')
		[ -z "${BASE:-}" ] || row "$shape" "$rows" "" "gpucost (BASE)" base
		row "$shape" "$rows" "$g_lines" gpucost gpucost
		row "$shape" "$rows" "$g_lines" "gpucost (keeps source)" source
		row "$shape" "$rows" "$d_lines" duckdb duckdb

		if [ "$g_lines" != "$d_lines" ] || ! awk -v a="$g_billed" -v b="$d_billed" 'BEGIN { exit !(a + 0 == b + 0) }'; then
			echo "gpucost and DuckDB disagree: $g_lines lines billing $g_billed, $d_lines lines billing $d_billed" >&2
			exit 1
		fi
		awk -v d="${best_wall[duckdb]}" -v g="${best_wall[gpucost]}" -v dc="${best_cpu[duckdb]}" -v gc="${best_cpu[gpucost]}" -v s="$shape" -v r="$rows" \
			'BEGIN { printf "%-12s %10s  ratio DuckDB/gpucost %.2fx wall, %.2fx CPU (target >= 1.0x)\n", s, r, d / g, dc / gc }'
	done
done
printf 'load: %s\n' "$(uptime | sed 's/.*load/load/')"
