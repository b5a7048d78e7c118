#!/bin/sh
# The published limits as the disk's peaks (issue 35 §3): with cloud.instance_type=m5.large
# (peaks.conf, as --set gives it), diskbench's rows take EBS's published maximum as their
# peak (593.75 MB/s, 18750 IOPS, source published) and say their ratio to the baseline
# (of_baseline=R against 81.25 MB/s, 3600 IOPS); the report's summary says "published burst"
# and gives both efficiencies, the numbers those of the rows. peaks.conf's disk.mbps still
# wins over the published figure. An unlisted type warns and leaves the peak unknown.
# Usage: disk_cloud_limits.sh DISKBENCH REPO WORKDIR. Exit 0 pass, 1 fail, 77 skipped.
set -u
bin=$1
repo=$2
TEST_NAME=cloud_limits
# shellcheck source=tests/disk/lib_case.sh
. "$(dirname "$0")/lib_case.sh"
new_work "$3/cloud_limits"
command -v python3 >/dev/null 2>&1 || skip "no python3 (the report)"
mkdir -p "$work/out/raw"
run() { # run CONF OUTPUT TESTS: a tiny diskbench run under peaks.conf CONF
	PEAKBENCH_CONF=$1 "$bin" --dir "$dir" --file-size 1MiB --reps 2 --ci 0 --min-time 0.01 --quiet \
		--test "$3" --block 4KiB --engine psync --threads 1 --no-metadata \
		--format json --output "$2" 2>"$work/err" || fail "diskbench exited $?: $(cat "$work/err")"
}
printf 'cloud.instance_type = m5.large\n' >"$work/m5.conf"
run "$work/m5.conf" "$work/out/raw/disk-diskbench.json" seq_read,rand_read
(cd "$repo/scripts" && python3 -m peakresults finish "$work/out" --no-charts) 2>"$work/err" ||
	fail "peakresults finish exited $?: $(cat "$work/err")"
python3 - "$work/out/raw/disk-diskbench.json" "$work/out/report.md" <<'PY' || fail "see above"
import json, sys
doc = json.load(open(sys.argv[1]))
ctx, rows = doc["context"], doc["results"]
md = open(sys.argv[2]).read()
bad = []
want = {"peak.disk_mbps": 593.75, "peak.disk_iops": 18750, "cloud.limit.disk_baseline_mbps": 81.25,
        "cloud.limit.disk_max_mbps": 593.75, "cloud.limit.disk_baseline_iops": 3600,
        "cloud.limit.disk_max_iops": 18750, "cloud.limit.net_baseline_gbps": 0.75,
        "cloud.limit.net_burst_gbps": 10, "cloud.limit.burst_minutes": 30}
for k, v in want.items():
    if ctx.get(k) != v:
        bad.append(f"context {k} = {ctx.get(k)!r}, expected {v}")
for k in ("peak.disk_mbps_source", "peak.disk_iops_source"):
    if ctx.get(k) != "published":
        bad.append(f"context {k} = {ctx.get(k)!r}, expected published")
if "aws-ec2-user-guide" not in str(ctx.get("cloud.limit.source")):
    bad.append(f"cloud.limit.source does not name the user guide: {ctx.get('cloud.limit.source')!r}")
summary = md[md.index("## Summary"):md.index("### Reference tools")]
for r in rows:
    if r["metric"] not in ("throughput", "iops"):
        continue
    peak, base = (593.75, 81.25) if r["metric"] == "throughput" else (18750, 3600)
    flags = dict(i.split("=", 1) for i in r["flags"].split(";") if "=" in i)
    if r["theoretical"] != peak:
        bad.append(f"{r['test']} {r['metric']}: theoretical {r['theoretical']}, expected {peak}")
    ratio = float(flags.get("of_baseline", "nan"))
    if abs(ratio - r["mean"] / base) > 0.0006:
        bad.append(f"{r['test']} {r['metric']}: of_baseline={flags.get('of_baseline')}, mean/baseline {r['mean'] / base:.3f}")
    words = (f"{r['efficiency'] * 100:.1f}% of the published burst; "
             f"{ratio * 100:.1f}% of the baseline (")
    headline = (r["test"], r["metric"]) in (("seq_read", "throughput"), ("rand_read", "iops"))
    if headline and words not in summary:
        bad.append(f"the summary lacks '{words}' for {r['test']} {r['metric']}")
if "(published burst of m5.large)" not in summary:
    bad.append("the summary's peak does not say 'published burst of m5.large'")
for b in bad:
    print("FAIL (cloud_limits):", b)
sys.exit(1 if bad else 0)
PY
# peaks.conf's own figure wins over the published one (the context's peaks: one test)
printf 'cloud.instance_type = m5.large\ndisk.mbps = 1234\n' >"$work/over.conf"
run "$work/over.conf" "$work/over.json" seq_read
tr -d ' \t\n' <"$work/over.json" | grep -qF '"peak.disk_mbps":1234,"peak.disk_mbps_source":"config"' ||
	fail "peaks.conf disk.mbps = 1234 did not win over the published limit"
# an unlisted type: one warning, the peak unknown
printf 'cloud.instance_type = x9z.huge\n' >"$work/unknown.conf"
run "$work/unknown.conf" "$work/unknown.json" seq_read
tr -d '\n' <"$work/unknown.json" | grep -q 'instance type x9z.huge is not in the published limits table' ||
	fail "no warning for the unlisted type x9z.huge"
tr -d ' \t\n' <"$work/unknown.json" | grep -qF '"peak.disk_mbps":"unknown"' ||
	fail "the unlisted type left a disk peak"
echo "ok: cloud_limits"
