#!/bin/sh
# Run a binary (cpubench or peakinfo, possibly behind a runner such as qemu-x86_64 -cpu
# Haswell) in JSON: it must exit 0 and give every number-format form of issue 37 as a row
# flagged "unsupported: REASON" with no samples (an absent format is a row, not a gap).
# Usage: run_formats_unsupported.sh BINARY [ARGS...]; exit 77 when the runner is missing.
set -u
case $1 in
qemu-*)
	command -v "$1" >/dev/null 2>&1 || { echo "SKIP: no $1 (Debian: qemu-user)"; exit 77; }
	# Under tests/machines/emulate.sh the binary is already its qemu wrapper (a script that
	# qemu-user cannot load): run the wrapper itself, translated by TCG as it is.
	if [ "$#" -ge 4 ] && [ "$2" = "-cpu" ] && head -c 2 "$4" 2>/dev/null | grep -q '#!'; then
		shift 3
	fi
	;;
esac
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
if ! "$@" --format json --output "$tmp/out.json" 2>"$tmp/err"; then
	echo "FAIL: '$*' failed:" >&2
	cat "$tmp/err" >&2
	exit 1
fi
python3 - "$tmp/out.json" <<'PY'
import json, sys
FORMS = {"avx512_fp16_fma", "avx512_bf16_dot", "avx512_bf16_dot_ymm", "avx512_int8_dot",
         "avx512_int8_dot_ymm", "avxvnni_int8_dot", "amx_bf16_tile", "amx_fp16_tile",
         "amx_int8_tile_ss", "amx_int8_tile_su", "amx_int8_tile_us", "amx_int8_tile_uu"}
doc = json.load(open(sys.argv[1]))
rows = [r for r in doc["results"] if r.get("variant") in FORMS
        and r.get("test") in ("flops", "iops", "format_peak")]
seen = {r["variant"] for r in rows}
if seen != FORMS:
    sys.exit(f"FAIL: format rows missing: {sorted(FORMS - seen)}")
for r in rows:
    flags = (r.get("flags") or "").split(";")
    why = [f for f in flags if f.startswith("unsupported: ") and len(f) > len("unsupported: ")]
    if not why:
        sys.exit(f"FAIL: {r['variant']} has flags {r.get('flags')!r}: no 'unsupported: REASON'")
    if r.get("n") or r.get("theoretical") not in (None, ""):
        sys.exit(f"FAIL: {r['variant']} has n={r.get('n')} theoretical={r.get('theoretical')}")
print(f"ok: {len(rows)} format rows unsupported, e.g. {rows[0]['variant']}: {rows[0]['flags']}")
PY
