#!/usr/bin/env bash
# import-memory.sh measures the memory `gpucost import billing` takes on a large FOCUS bill whose
# rows each have their own Id, as the official FOCUS sample's do (issue 13): the import's max RSS
# by default, where Id is read past and rows merge per resource and day, and with
# --keep-columns Id, which keeps it in the key as every import did before, side by side.
#
#   scripts/import-memory.sh [ROWS] [KEPT_ROWS]     # defaults 10000000 and 200000
#
# It builds gpucost and writes the bills (about 300 bytes a row) into a temporary directory,
# removed on exit, and prints a line per import: rows, lines stored, max RSS. The target is
# 10 M rows under 300 MB. Run it from the repository root; it needs awk and GNU time.
set -euo pipefail

rows=${1:-10000000}
kept_rows=${2:-200000}
resources=2000 # row i is resource i % 2000 in hour i / 2000: 10 M rows span 209 days

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/gpucost" ./cmd/gpucost

# bill ROWS FILE writes a FOCUS 1.0 CSV of ROWS rows, each with its own Id.
bill() {
	TZ=UTC awk -v rows="$1" -v res="$resources" 'BEGIN {
		print "Id,BilledCost,EffectiveCost,ListCost,ContractedCost,BillingAccountId,BillingAccountName," \
			"BillingCurrency,BillingPeriodStart,BillingPeriodEnd,ChargeCategory,ChargeClass,ChargeDescription," \
			"ChargeFrequency,ChargePeriodStart,ChargePeriodEnd,InvoiceIssuerName,PricingCategory,PricingQuantity," \
			"PricingUnit,ConsumedQuantity,ConsumedUnit,ProviderName,PublisherName,RegionId,ResourceId,ResourceType," \
			"ServiceCategory,ServiceName,SkuId,SubAccountId,Tags"
		last = -1
		for (i = 0; i < rows; i++) {
			h = int(i / res)
			if (h != last) {
				t = 1725148800 + 3600 * h # 2024-09-01 UTC
				from = strftime("%Y-%m-%d %H:%M:%S", t); to = strftime("%Y-%m-%d %H:%M:%S", t + 3600)
				period = strftime("%Y-%m-01 00:00:00", t)
				last = h
			}
			r = i % res
			printf "%d,98.32,98.32,98.32,98.32,111122223333,ml,USD,%s,%s,Usage,,p5.48xlarge hour,Usage-Based,%s,%s,AWS,Standard,1,Hours,1,Hours,AWS,AWS,us-east-1,i-%017d,Instance,Compute,Amazon EC2,SKU%d,444455556666,\"{\"\"team\"\":\"\"t%d\"\"}\"\n", \
				i, period, period, from, to, r, r % 3, r % 8
		}
	}' >"$2"
}

# import FILE [FLAGS...] imports FILE into a fresh database and prints rows, lines and max RSS.
import() {
	local file=$1
	shift
	rm -f "$tmp/costs.db"
	/usr/bin/time -f %M -o "$tmp/rss" "$tmp/gpucost" --db "$tmp/costs.db" --output json import billing "$@" "$file" >"$tmp/out.json" 2>"$tmp/err" || { cat "$tmp/err" >&2; return 1; }
	local lines
	lines=$(grep -o '"lines_stored": *[0-9]*' "$tmp/out.json" | grep -o '[0-9]*$')
	printf '%-20s %11s rows %9s lines stored   max RSS %5d MB\n' "$*" "$(basename "$file" .csv)" "$lines" $(($(cat "$tmp/rss") / 1024))
}

bill "$rows" "$tmp/$rows.csv"
bill "$kept_rows" "$tmp/$kept_rows.csv"
import "$tmp/$rows.csv"
import "$tmp/$kept_rows.csv"
import "$tmp/$kept_rows.csv" --keep-columns Id
