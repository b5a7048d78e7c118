#!/bin/sh
# The tiny run the suite's readers share (ctest fixture suite_tiny, issue 42): the whole
# protocol at tiny sizes on what is built (no make), once, into DIR/r; suite_smoke reads its
# steps, files and report, suite_pairs_run its paired rounds, suite_dpdk_pair its DPDK part.
# - Rated memory and disk peaks (as a user's peaks.conf gives them), so every suite's rows
#   have a peak to hold against the peaks table.
# - No reference tool runs: a PATH without them (scripts/path_without_tools.sh) and
#   PEAK_DEPS=required (nothing installed), except iperf3 and sockperf, stubs that answer
#   with recorded outputs (tests/fixtures/baseline): the paired rounds run end to end, with
#   netbench for real. Each stub server writes its PID to DIR/servers.
# - DPDK in ordinary memory (PEAKBENCH_DPDK_HUGE=no, as on CI) and a TMPDIR of its own, a
#   new folder in the caller's (not under DIR: the memif socket's path must fit a Unix
#   socket's 108 bytes), removed after the run; what the run left in it is in DIR/tmp-left,
#   which must be empty (suite_dpdk_pair reads both).
# Leaves DIR/progress (run_all.sh's stderr) and DIR/rc (its exit status); fails only when
# there is no run to read (no status.tsv): the readers judge the run.
# Usage: tiny_run.sh REPO BUILD DIR
set -u
repo=$1 build=$2 dir=$3
# shellcheck source=tests/suite/lib_test.sh
. "$(dirname "$0")/lib_test.sh"
rm -rf "$dir"
mkdir -p "$dir/bin" || fail "cannot make $dir"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/peakbench-tiny.XXXXXX") || fail "cannot make a TMPDIR"
fx="$repo/tests/fixtures/baseline"
cat >"$dir/bin/iperf3" <<STUB
#!/bin/sh
case " \$* " in *" -s "*) echo "Server listening"; echo \$\$ >>"$dir/servers"; exec sleep 60 ;; esac
case " \$* " in *" -u "*) cat "$fx/iperf3_udp_P1.json" ;; *) cat "$fx/iperf3_tcp_P1.json" ;; esac
STUB
cat >"$dir/bin/sockperf" <<STUB
#!/bin/sh
[ "\$1" = server ] && { echo \$\$ >>"$dir/servers"; exec sleep 60; }
case " \$* " in *" --tcp "*) cat "$fx/sockperf_tcp_rtt.txt" ;; *) cat "$fx/sockperf_udp_rtt.txt" ;; esac
STUB
chmod +x "$dir/bin/iperf3" "$dir/bin/sockperf"
path=$("$repo/scripts/path_without_tools.sh" "$dir/path") || fail "path_without_tools.sh exited $?"

PATH="$dir/bin:$path" PEAK_DEPS=required PEAKBENCH_CONF="$repo/tests/fixtures/peaks/io_rated.conf" \
	PEAKBENCH_DPDK_HUGE=no TMPDIR="$tmp" "$repo/run_all.sh" --tiny --reps 1 --min-time 0.01 --no-build --build-dir "$build" \
	--out "$dir/r" 2>"$dir/progress"
echo $? >"$dir/rc"
ls -A "$tmp" >"$dir/tmp-left"
rm -rf "$tmp"
cat "$dir/progress"
[ -s "$dir/r/status.tsv" ] || fail "run_all.sh left no status.tsv (exit $(cat "$dir/rc"))"
cat "$dir/r/status.tsv"
ok "the shared tiny run is in $dir/r (run_all.sh exited $(cat "$dir/rc"))"
