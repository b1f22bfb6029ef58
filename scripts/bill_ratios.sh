#!/bin/sh
# bill_ratios.sh prints how much each real bill in the repository's test data and the shared
# datasets compresses with gzip -9 (size / compressed size): the measurements behind
# httpapi.MaxBillRatio. Usage: scripts/bill_ratios.sh [more bill files...]
set -eu
cd "$(dirname "$0")/.."
{
	find billing -path '*testdata*' -type f \( -name '*.csv' -o -name '*.jsonl' -o -name '*.json' \) -size +4k
	[ -d ../shared/datasets/focus ] && find ../shared/datasets/focus -name '*.csv'
	for f in "$@"; do echo "$f"; done
} | while read -r f; do
	size=$(wc -c <"$f")
	gz=$(gzip -9 -c "$f" | wc -c)
	awk -v f="$f" -v s="$size" -v z="$gz" 'BEGIN { printf "%6.1f×  %10d → %9d  %s\n", s / z, s, z, f }'
done | sort -rn
