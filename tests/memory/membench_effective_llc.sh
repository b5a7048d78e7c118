#!/bin/sh
# membench sizes from the effective LLC that PEAKBENCH_CACHE_EFFECTIVE hands it (issue 34),
# whatever this machine reports: seq_rw's 4 MiB blocks over a 12 MiB buffer and STREAM's
# three 4 MiB arrays against an effective L3 of 1 MiB (DRAM figures: non-temporal stores
# under --nt auto, no cached, no small_arrays) and of 16 MiB (all cached, no NT stores,
# the arrays small_arrays). Without the effective size (the reported one), the flags
# would follow the machine instead.
# Usage: membench_effective_llc.sh MEMBENCH
set -u
mb=$1
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail=0
# run L3_BYTES: membench's CSV rows as "test variant flags"
run() {
	PEAKBENCH_CACHE_EFFECTIVE="l1d=32768:agrees,l2=524288:agrees,l3=$1:smaller" \
		"$mb" --test seq_rw,stream --block 4MiB --size 12MiB --threads 1 --nt auto \
		--reps 1 --ci 0 --min-time 0.01 --format csv --output "$tmp/out.csv" 2>"$tmp/err" || {
		echo "FAIL: membench exited $? with an effective L3 of $1:" >&2
		cat "$tmp/err" >&2
		exit 1
	}
	awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		{ print $c["test"], $c["variant"], ";" $c["flags"] ";" }' "$tmp/out.csv"
}
expect() { # ROWS PATTERN WHAT
	if ! printf '%s\n' "$1" | grep -q -- "$2"; then
		echo "FAIL: $3 (rows: $1)" >&2
		fail=1
	fi
}
refuse() {
	if printf '%s\n' "$1" | grep -q -- "$2"; then
		echo "FAIL: $3 (rows: $1)" >&2
		fail=1
	fi
}
small=$(run 1048576)
expect "$small" '^seq_rw [a-z0-9]*-nt ' "L3 1 MiB: a 4 MiB block is past it, --nt auto uses NT stores"
refuse "$small" ';cached;' "L3 1 MiB: nothing is cached"
refuse "$small" 'small_arrays' "L3 1 MiB: 4 MiB arrays are 4x it (STREAM's rule)"
big=$(run 16777216)
refuse "$big" '^seq_rw [a-z0-9]*-nt ' "L3 16 MiB: a 4 MiB block fits, no NT stores"
expect "$big" '^seq_rw .*;cached;' "L3 16 MiB: the 12 MiB buffer is cached"
expect "$big" '^stream .*small_arrays' "L3 16 MiB: 4 MiB arrays are under 4x it"
expect "$big" '^stream .*;cached;' "L3 16 MiB: three 4 MiB arrays fit"
[ "$fail" = 0 ] && echo "ok: the flags and NT stores follow the effective L3"
exit "$fail"
