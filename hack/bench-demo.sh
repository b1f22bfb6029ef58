#!/usr/bin/env bash
# bench-demo.sh prints the demo's figures of issue 21 beside their targets (make bench-compare
# runs it): the 30-day demo store's build and the headline from their Go benchmarks, then make
# demo's own steps timed from the command: go build of bin/gpucost as make demo runs it (warm
# cache), gpucost demo from its start to the headline printed and to the dashboard answering,
# and the dashboard's first overview. DEMO_COLD=1 also times a build with an empty GOCACHE (the
# module cache warm), as on a fresh clone: minutes on 2 cores.
#
#   hack/bench-demo.sh
#   DEMO_COLD=1 hack/bench-demo.sh
#
# Wall-clock figures vary with the machine's load (printed first); cpu-s is what the work cost.
set -euo pipefail

go=${GO:-go}
cd "$(dirname "$0")/.."

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

secs() { [ -n "$1" ] && awk -v ns="$1" 'BEGIN { printf "%.2f", ns / 1e9 }'; }
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.2f", b - a }'; }

# untilIn FILE TEXT SECONDS waits until FILE holds TEXT, at most SECONDS.
untilIn() {
	local end=$((SECONDS + $3))
	until grep -q "$2" "$1" 2>/dev/null; do
		if ((SECONDS > end)); then return 1; fi
		sleep 0.05
	done
}

echo "load: $(uptime | sed 's/.*load/load/')"
bench=$($go test ./cmd/gpucost -run '^$' -bench 'Demo(Build|Headline)$' -benchtime 1x 2>&1)
printf '%-60s %-14s %12s  %s\n' figure target measured verdict
row "demo: 30-day store built, s (BenchmarkDemoBuild)" "<= 10 s" "$(secs "$(metric "$bench" DemoBuild ns/op)")" "m <= 10"
row "demo: 30-day store built, CPU s" "(info)" "$(metric "$bench" DemoBuild cpu-s/op)" "m > 0"
row "demo: headlines from the store, s (BenchmarkDemoHeadline)" "(info)" "$(secs "$(metric "$bench" DemoHeadline ns/op)")" "m > 0"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if [ "${DEMO_COLD:-}" = 1 ]; then
	t=$(now)
	GOCACHE="$work/gocache" $go build -o "$work/gpucost-cold" ./cmd/gpucost 2>/dev/null
	row "make demo on a fresh clone: go build, empty GOCACHE, s" "(info)" "$(since "$t")" "m > 0"
fi
t=$(now)
$go build -ldflags "-X main.version=dev -X main.commit=$(git rev-parse HEAD 2>/dev/null)" -o bin/gpucost ./cmd/gpucost 2>/dev/null
build=$(since "$t")
row "make demo: go build, warm GOCACHE, s" "(info)" "$build" "m > 0"

t=$(now)
bin/gpucost demo --db "$work/demo.db" --listen 127.0.0.1:0 >"$work/out" 2>"$work/err" &
pid=$!
headline= serving= overview=
if untilIn "$work/out" "gpucost demo —" 120; then
	headline=$(since "$t")
	if untilIn "$work/out" "Dashboard: http://" 60; then
		addr=$(sed -n 's|.*Dashboard: http://\([^/]*\)/.*|\1|p' "$work/out")
		token=$(sed -n 's|.*sign in with the token \([^ ]*\).*|\1|p' "$work/out")
		for _ in $(seq 600); do
			if curl -sf -o /dev/null "http://$addr/login"; then
				serving=$(since "$t")
				break
			fi
			sleep 0.05
		done
		[ -z "$serving" ] || overview=$(curl -sf -o /dev/null -w '%{time_total}' -H "Authorization: Bearer $token" "http://$addr/api/v1/overview" || true)
	fi
fi
kill "$pid" 2>/dev/null || true
wait "$pid" 2>/dev/null || true
[ -n "$serving" ] || { echo "gpucost demo did not serve:"; cat "$work/err"; }
total() { [ -n "$1" ] && awk -v a="$build" -v b="$1" 'BEGIN { printf "%.2f", a + b }'; }
row "gpucost demo: from its start to the headline printed, s" "(info)" "$headline" "m > 0"
row "gpucost demo: from its start to the dashboard answering, s" "(info)" "$serving" "m > 0"
row "make demo: headline printed, s (warm build + demo)" "<= 15 s" "$(total "$headline")" "m <= 15"
row "make demo: dashboard answering, s (warm build + demo)" "<= 30 s" "$(total "$serving")" "m <= 30"
row "demo: the dashboard's first overview (cold views), s" "(info)" "$overview" "m > 0"
