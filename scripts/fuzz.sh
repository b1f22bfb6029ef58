#!/usr/bin/env bash
# fuzz.sh runs every fuzz target of the packages PKG names, one target at a time, and prints one
# summary line per target: package, name, inputs run, seconds fuzzing and in all (building too),
# and the new inputs found (each minimised for up to FUZZMINTIME, which is most of a slow run's
# time). It stops at the first target that fails and prints that target's output, which names
# the failing input Go saved under testdata/fuzz.
#
# Settings, from the environment (make fuzz passes them on):
#   PKG          packages to look in (default ./...)
#   FUZZ         a regular expression a target's whole name must match (default: every target)
#   FUZZTIME     how long each target runs: a count of inputs (10000x) or a duration (30s)
#   FUZZMINTIME  -fuzzminimizetime: how long each new or failing input is minimised (3s; with Go's
#                default of 60s a short run spends most of its time shrinking new inputs)
#   FUZZPAR      -parallel: fuzz workers per target (1, so a shared machine stays usable)
#   FUZZLIMIT    wall-clock seconds after which a target is stopped and reported as too slow
#                (900: five times the 3 minutes the slowest, FuzzBillUpload, takes for 10000x)
#   FUZZKEEPGOING  when set, go on to the next target after a failure
#
# Example: make fuzz FUZZ=FuzzRead PKG=./billing/focus FUZZTIME=60s
set -u
PKG=${PKG:-./...}
FUZZ=${FUZZ:-Fuzz.*}
FUZZTIME=${FUZZTIME:-10000x}
FUZZMINTIME=${FUZZMINTIME:-3s}
FUZZPAR=${FUZZPAR:-1}
FUZZLIMIT=${FUZZLIMIT:-900}
FUZZKEEPGOING=${FUZZKEEPGOING:-}
GO=${GO:-go}

out=$(mktemp)
trap 'rm -f "$out"' EXIT
status=0
for pkg in $($GO list $PKG); do
	for f in $($GO test -list '^Fuzz' "$pkg" | grep -Ex -- "$FUZZ"); do
		start=$(date +%s.%N)
		timeout "$FUZZLIMIT" $GO test -run '^$' -fuzz "^$f\$" -fuzztime "$FUZZTIME" \
			-fuzzminimizetime "$FUZZMINTIME" -parallel "$FUZZPAR" "$pkg" >"$out" 2>&1
		rc=$?
		end=$(date +%s.%N)
		# The last progress line holds the inputs run: "fuzz: elapsed: 3s, execs: 10000 (...)".
		execs=$(grep -o 'execs: [0-9]*' "$out" | tail -n 1 | cut -d' ' -f2)
		fuzzing=$(grep -o 'elapsed: [0-9hms.]*' "$out" | tail -n 1 | cut -d' ' -f2)
		found=$(grep -o 'new interesting: [0-9]*' "$out" | tail -n 1 | cut -d' ' -f3)
		printf 'fuzz %-40s %-26s %7s inputs %6s fuzzing %6.1fs in all %4s new' "$pkg" "$f" "${execs:-0}" \
			"${fuzzing:-0s}" "$(awk "BEGIN{print $end - $start}")" "${found:-0}"
		case $rc in
		0) echo ;;
		124) echo "  TOO SLOW: stopped after ${FUZZLIMIT}s" ; status=1 ;;
		*) echo "  FAIL"; cat "$out"; status=1; [ -n "$FUZZKEEPGOING" ] || exit 1 ;;
		esac
	done
done
exit $status
