#!/usr/bin/env python3
"""peak_ref_gemm through its adapter (scripts/peakresults/adapters/onednn.py), tiny: each of
bf16 and int8 is either a row keyed to the cpubench variant of the unit oneDNN's kernel ran
on (one thread, a positive figure, the kernel named in its job) or a skipped entry with the
reason (no such matmul on this CPU, or a fallback kernel no cpubench row runs: under
qemu-x86_64 -cpu Haswell, bf16 exits 3 and int8 runs gemm:jit). No timing
threshold: the figure is only checked to be a number above 0.
Usage: check_ref_gemm.py PEAK_REF_GEMM"""
import json
import os
import subprocess
import sys
import tempfile

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
UNITS = {"flops": ("amx_bf16_tile", "avx512_bf16_dot"),
         "iops": ("amx_int8_tile_us", "avx512_int8_dot", "avxvnni_int8_dot")}


def main(binary: str) -> int:
    with tempfile.TemporaryDirectory() as raw:
        r = subprocess.run([sys.executable, os.path.join(REPO, "scripts", "peakresults", "adapters"), "onednn",
                            "--mode", "tiny", "--threads", "1", "--n", "64", "--min-seconds", "0.01",
                            "--ctx", f"bin={binary}", "--raw", raw], capture_output=True, text=True, timeout=300)
        try:
            with open(os.path.join(raw, "baseline-onednn.json")) as f:
                doc = json.load(f)
        except (OSError, ValueError) as e:
            print(f"FAIL: no baseline-onednn.json ({e}); adapter exit {r.returncode}: {r.stderr}")
            return 1
    bad = []
    for row in doc["rows"]:
        ok = (row["suite"] == "cpu" and row["variant"] in UNITS.get(row["test"], ()) and row["threads"] == 1
              and isinstance(row["mean"], (int, float)) and row["mean"] > 0 and "impl" in row["config"])
        print(("ok: " if ok else "FAIL: ") + f"{row['test']} {row['variant']} {row['mean']} ({row['job']})")
        bad += [] if ok else [row]
    for s in doc["skipped"]:
        print(f"skipped: {s['test']}: {s['reason']}")
        # a reason, and never "not installed" for the binary given (it exists)
        bad += [] if s["reason"] and "not installed" not in s["reason"] else [s]
    if r.returncode != 0:
        bad.append(f"adapter exit {r.returncode}: {r.stderr.strip()}")
    # every format accounted for: a row, or a skipped entry with its reason
    done = {"bf16" if x["test"] == "flops" else "int8" for x in doc["rows"]} | {s["test"] for s in doc["skipped"]}
    if done != {"bf16", "int8"}:
        bad.append(f"not every format accounted for: {sorted(done)}")
    for b in bad:
        print(f"FAIL: {b}")
    return 1 if bad else 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        print("usage: check_ref_gemm.py PEAK_REF_GEMM", file=sys.stderr)
        sys.exit(2)
    sys.exit(main(sys.argv[1]))
