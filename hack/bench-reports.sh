#!/usr/bin/env bash
# bench-reports.sh times the reports of issue 21 item 5 as a user runs them: the gpucost command
# itself, one process a run, 3 runs each (wall, CPU seconds, peak RSS from GNU time), on the
# stores the Go benchmarks build (sqlitetest.BilledFleet: 10,000 GPUs × 30 days with the bill
# covering them; sqlitetest.CostYear: a year of daily lines for 10,000 resources). A store the
# benchmarks have not built yet is built first, once, by running its benchmark (minutes).
#
#   hack/bench-reports.sh          # make bench-compare runs it
#
# Wall-clock figures vary with the machine's load (printed on each line); peak RSS does not.
set -euo pipefail

go=${GO:-go}
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
tmpdir=${TMPDIR:-/tmp}

# store GLOB BENCH prints the newest store matching GLOB in the temporary folder, running BENCH
# once first when there is none.
store() {
	local s
	s=$(ls -t "$tmpdir"/$1 2>/dev/null | head -1 || true)
	if [ -z "$s" ]; then
		$go test ./cmd/gpucost -run '^$' -bench "$2" -benchtime 1x >/dev/null
		s=$(ls -t "$tmpdir"/$1 | head -1)
	fi
	echo "$s"
}
fleet=$(store 'gpucost-bench-scan-10000-30-v*.db' 'ReportUtilization/by=namespace$')
year=$(store 'gpucost-bench-costs-10000-365-v*.db' 'ReportCostYear/--byteam$')
$go build -o "$tmp/gpucost" ./cmd/gpucost

# run LABEL OP SECONDS ARGS... runs gpucost ARGS 3 times and prints each run beside its target,
# a wall time OP ("<=" or "<") SECONDS and a peak RSS < 500 MB.
run() {
	local label=$1 op=$2 target=$3
	shift 3
	for _ in 1 2 3; do
		/usr/bin/time -f '%e %U %S %M' -o "$tmp/time" "$tmp/gpucost" "$@" >/dev/null 2>"$tmp/err" || { echo "$label: failed"; cat "$tmp/err"; return 1; }
		read -r wall user sys rss <"$tmp/time"
		local verdict=missed
		if awk -v w="$wall" -v t="$target" -v r="$rss" "BEGIN { exit !(w $op t && r < 500e6 / 1024) }"; then verdict=met; fi
		printf '%-47s wall %5.2f s  cpu %5.2f s  peak RSS %4d MiB  target %s %s s, < 500 MB: %s  (load %s)\n' "$label" "$wall" \
			"$(awk -v u="$user" -v s="$sys" 'BEGIN { print u + s }')" $((rss / 1024)) "$op" "$target" "$verdict" "$(cut -d' ' -f1 /proc/loadavg)"
	done
}

echo "the commands themselves, one process a run (issue 21 item 5):"
month=(--since 30d --until 2026-03-02T00:00:00Z --output csv) # sqlitetest.End
for by in namespace gpu host model pod; do
	run "report utilization --by $by" "<=" 1 report utilization --db "$fleet" --by "$by" "${month[@]}"
done
run "report cost --by team" "<=" 1 report cost --db "$fleet" --by team "${month[@]}"
run "report cost --by namespace --gpu-only" "<=" 1 report cost --db "$fleet" --by namespace --gpu-only "${month[@]}"
yearargs=(--since 365d --until 2026-01-01T00:00:00Z --output csv) # a year from sqlitetest.CostYearStart
run "report cost, a year, --by team" "<" 2 report cost --db "$year" --by team "${yearargs[@]}"
run "report cost, a year, --by gpu-model --gpu-only" "<" 2 report cost --db "$year" --by gpu-model --gpu-only "${yearargs[@]}"
run "report cost, a year, --by resource" "<" 2 report cost --db "$year" --by resource "${yearargs[@]}"
