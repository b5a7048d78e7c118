#!/usr/bin/env bash
# report.sh DIR: writes DIR/report.md from the results folder run_all.sh left (context,
# peaks, <suite>.csv, baseline.csv, status.tsv, charts/).
set -u -o pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=scripts/lib.sh
. "$ROOT/scripts/lib.sh"

if [ $# -ne 1 ] || [ ! -d "$1" ]; then echo "usage: scripts/report.sh RESULTS_DIR" >&2; exit 2; fi
DIR=$1
{
	echo "# peakbench report"
	echo
	echo "## Machine"
	echo
	if [ -s "$DIR/context.json" ] && peak_have jq; then
		echo "| key | value |"
		echo "| --- | --- |"
		jq -r 'to_entries[] | "| \(.key) | \(.value) |"' "$DIR/context.json"
	else
		echo "No context (peakinfo did not run)."
	fi
	for s in cpu memory disk network dpdk; do
		echo
		echo "## $s"
		echo
		if [ -s "$DIR/$s.csv" ]; then
			echo "| Workload | Variant | Concurrency | Block size | Value | Unit |"
			echo "| --- | --- | --- | --- | --- | --- |"
			awk "$PEAK_AWK_LIB"'NR > 1 { csv_split($0, f); printf "| %s | %s | %s | %s | %s ± %s | %s |\n", f[C_TEST], f[C_VARIANT], f[C_THREADS], f[C_BLOCK], f[C_MEAN], f[C_STDDEV], f[C_UNIT] }' "$DIR/$s.csv"
		else
			awk -F'\t' -v s="$s" '$2 == s { print "- " $1 ": " $3 " " $5 }' "$DIR/status.tsv" 2>/dev/null
		fi
	done
} >"$DIR/report.md"
