#!/usr/bin/env bash
# HPC Challenge (hpcc) baselines: HPL for linpack, STREAM for membench's stream test.
#
# Mapping (from hpccoutf.txt's summary section):
#   HPL_Tflops x 1000              -> cpu linpack dgesv (GFLOPS), threads = OpenBLAS threads
#   StarSTREAM's table (one process: the same job as SingleSTREAM, whose times inherit
#   StarSTREAM's in hpcc's stream.c; tools/hpcc.py), bytes / average and best time
#                                   -> memory stream copy-<isa>/.../triad-<isa>, 1 thread
# hpcc's STREAM has no non-temporal stores: its rows are the reference for membench's
# STREAM with --nt off (the paired job runs that), not for its default -nt rows.
# hpcc runs one MPI process (singleton) with OPENBLAS_NUM_THREADS = the largest thread count
# that fits the CPUs, P = Q = 1, NB = 192 and N from the mode: full 8000 (STREAM arrays of
# 171 MB each, well above the 36 MiB LLC here), quick 4000 (43 MB), tiny 500. The run appends
# "peakbench_blas_threads=T" to the saved output so the parser knows the thread count.
set -u -o pipefail
# shellcheck source=scripts/lib_baseline.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib_baseline.sh"
TOOL=hpcc

# hpccinf.txt for one process: HPL N, NB, a 1 x 1 grid; PTRANS sizes left small.
write_input() {
	local n=$1 nb=$2
	cat <<EOF
HPLinpack benchmark input file
Innovative Computing Laboratory, University of Tennessee
HPL.out      output file name (if any)
8            device out (6=stdout,7=stderr,file)
1            # of problems sizes (N)
$n         Ns
1            # of NBs
$nb          NBs
0            PMAP process mapping (0=Row-,1=Column-major)
1            # of process grids (P x Q)
1            Ps
1            Qs
16.0         threshold
1            # of panel fact
2            PFACTs (0=left, 1=Crout, 2=Right)
1            # of recursive stopping criterium
4            NBMINs (>= 1)
1            # of panels in recursion
2            NDIVs
1            # of recursive panel fact.
1            RFACTs (0=left, 1=Crout, 2=Right)
1            # of broadcast
1            BCASTs (0=1rg,1=1rM,2=2rg,3=2rM,4=Lng,5=LnM)
1            # of lookahead depth
1            DEPTHs (>=0)
2            SWAP (0=bin-exch,1=long,2=mix)
64           swapping threshold
0            L1 in (0=transposed,1=no-transposed) form
0            U  in (0=transposed,1=no-transposed) form
1            Equilibration (0=no,1=yes)
8            memory alignment in double (> 0)
##### This line (no. 32) is ignored (it serves as a separator). ######
0                               Number of additional problem sizes for PTRANS
1200 10000 30000                values of N
0                               number of additional blocking sizes for PTRANS
40 9 8 13 13 20 16 32 64        values of NB
EOF
}

bl_parse_args "$@"
if [ "$BL_PARSE" = 1 ]; then
	bl_parse_files hpcc
	exit
fi

if ! bl_have hpcc; then
	bl_skip "$TOOL" linpack flops GFLOPS "hpcc not installed (Debian: apt install hpcc)"
	bl_skip "$TOOL" stream throughput MB/s "hpcc not installed (Debian: apt install hpcc)"
	bl_finish hpcc
	exit 0
fi

case $BL_MODE in
full) n=8000 limit=900 ;;
quick) n=4000 limit=300 ;;
tiny) n=500 limit=120 ;;
esac
n=${BL_N:-$n}
threads=$(bl_max_threads)
if [ "$BL_PLAN" = 1 ]; then
	echo "OPENBLAS_NUM_THREADS=$threads OMP_NUM_THREADS=1 hpcc  # hpccinf.txt: N=$n NB=192 P=Q=1"
	exit 0
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/peakbench-hpcc.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
write_input "$n" 192 >"$work/hpccinf.txt"
cp "$work/hpccinf.txt" "$BL_RAW/hpccinf.txt"
out="$BL_RAW/hpccoutf.txt"
echo "cd $work && OPENBLAS_NUM_THREADS=$threads OMP_NUM_THREADS=1 hpcc  # hpccinf.txt: N=$n NB=192 P=Q=1" >>"$BL_RAW/commands.txt"
(cd "$work" && OPENBLAS_NUM_THREADS=$threads OMP_NUM_THREADS=1 timeout --kill-after=10 "$limit" hpcc) \
	>"$BL_RAW/hpcc.stdout" 2>&1
rc=$?
if [ "$rc" -ne 0 ] || [ ! -s "$work/hpccoutf.txt" ]; then
	echo "hpcc.sh: hpcc exited $rc: $(tail -n 1 "$BL_RAW/hpcc.stdout")" >&2
	bl_skip "$TOOL" linpack flops GFLOPS "failed: hpcc exited $rc"
	bl_finish hpcc
	exit 1
fi
{
	cat "$work/hpccoutf.txt"
	echo "peakbench_blas_threads=$threads"
} >"$out"
BL_OUTS+=("$out")
bl_finish hpcc || { echo "hpcc.sh: no summary in $out" >&2; exit 1; }
