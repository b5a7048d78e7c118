#!/bin/sh
# membench with one --isa at a tiny size: exit 0 (every run verified), CSV valid against
# the schema, and every row run by that ISA's kernels (its variant names the ISA). An ISA
# this CPU lacks is skipped (exit 77) with membench's reason, which must be one line and
# exit 3; any other failure fails.
# Usage: membench_isa.sh SCHEMA_CHECK ISA MEMBENCH [ARGS...]
set -u
check=$1 isa=$2
shift 2
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
out=$tmp/out.csv
"$@" --isa "$isa" --format csv --output "$out" 2>"$tmp/err"
rc=$?
if [ "$rc" -eq 3 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ]; then
	echo "SKIP: this CPU has no $isa: $(cat "$tmp/err")"
	exit 77
fi
if [ "$rc" -ne 0 ]; then
	echo "FAIL: $* --isa $isa exited $rc" >&2
	cat "$tmp/err" >&2
	exit 1
fi
if ! "$check" csv "$out"; then
	echo "FAIL: the output does not match the schema:" >&2
	head -c 4000 "$out" >&2
	exit 1
fi
# Columns found by their header names. A variant is ISA[-nt] (throughput) or
# KERNEL-ISA[-nt] (STREAM); blocks under a cache line are moved by the scalar kernels.
if ! awk -F, -v isa="$isa" '
	NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
	{
		rows++
		k = $col["variant"]
		sub(/-nt$/, "", k)
		if ($col["test"] == "stream")
			sub(/^[a-z]+-/, "", k)
		if (k == isa)
			ours++
		else if (!(k == "scalar" && $col["block_bytes"] < 64)) {
			print "row " NR ": variant " $col["variant"] " is not " isa
			bad++
		}
	}
	END {
		if (!col["variant"] || !col["test"] || !col["block_bytes"]) print "a column is missing"
		if (!ours) print "no row of " isa
		exit !col["variant"] || !col["test"] || !col["block_bytes"] || !ours || bad
	}' "$out" >&2; then
	echo "FAIL: rows not run by $isa" >&2
	exit 1
fi
echo "ok: $(($(wc -l <"$out") - 1)) rows of $1 --isa $isa verified and valid"
