#!/usr/bin/env bash
# plot.sh DIR: the charts of a results folder. One data file per figure in
# DIR/charts/data/*.dat (whitespace-separated, a header naming the columns, "?" where a
# point is missing), one PNG per figure in DIR/charts/ drawn by scripts/gnuplot/*.gp.
# A figure whose data is missing is skipped. Exit 3 when gnuplot is not installed.
set -u -o pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=scripts/lib.sh
. "$ROOT/scripts/lib.sh"
GP="$ROOT/scripts/gnuplot"

if [ $# -ne 1 ] || [ ! -d "$1" ]; then
	echo "usage: scripts/plot.sh RESULTS_DIR" >&2
	exit 2
fi
DIR=$1
if ! peak_have gnuplot; then
	echo "plot.sh: gnuplot not installed: no charts (Debian: apt install gnuplot-nox)" >&2
	exit 3
fi
CH="$DIR/charts"
DATA="$CH/data"
mkdir -p "$DATA" || exit 1
FIGS=0 FAILS=0

# Draw one figure: FIG SCRIPT then gnuplot -e assignments (name=value, strings quoted).
draw() {
	local fig=$1 script=$2 e="out='$CH/$1.png'; data='$DATA/$1.dat'"
	shift 2
	local a
	for a in "$@"; do e+="; $a"; done
	if gnuplot -e "$e" "$GP/$script" 2>"$DATA/$fig.log"; then
		FIGS=$((FIGS + 1))
	else
		FAILS=$((FAILS + 1))
		echo "plot.sh: $fig: gnuplot failed: $(grep -v warning "$DATA/$fig.log" | tail -n 1)" >&2
	fi
}

# A metric against threads, wide format: threads, then per series its value (and its
# theoretical peak when peaks=1). Prints the number of series (0: no data, file removed).
#   wide OUT CSV suite test_re metric variant_re series(variant|block|test|test_block|
#        variant_block) stats(mean|mean,p99) peaks(0|1) prefer_fma(0|1)
wide() {
	local out=$1 csv=$2
	shift 2
	[ -s "$csv" ] || { echo 0; return; }
	awk -v out="$out" -v suite="$1" -v test_re="$2" -v metric="$3" -v vre="$4" -v series="$5" \
		-v stats="$6" -v peaks="$7" -v prefer_fma="$8" "$PEAK_AWK_LIB"'
	function blk(b) {
		if (b == "") return ""
		if (b >= 1073741824 && b % 1073741824 == 0) return (b / 1073741824) "GiB"
		if (b >= 1048576 && b % 1048576 == 0) return (b / 1048576) "MiB"
		if (b >= 1024 && b % 1024 == 0) return (b / 1024) "KiB"
		return b "B"
	}
	FNR == 1 { next }
	{
		csv_split($0, f)
		if (f[C_SUITE] != suite || f[C_TEST] !~ test_re || f[C_METRIC] != metric) next
		if (f[C_VARIANT] !~ vre || f[C_THREADS] == "" || f[C_N] == 0) next
		nrow++; rv[nrow] = f[C_VARIANT]; rt[nrow] = f[C_TEST]; rb[nrow] = f[C_BLOCK]
		rx[nrow] = f[C_THREADS]; rm[nrow] = f[C_MEAN]; rp[nrow] = f[C_P99]; rth[nrow] = f[C_THEO]
		have[f[C_VARIANT]] = 1
	}
	END {
		ns = split(stats, st, ",")
		for (r = 1; r <= nrow; r++) {
			v = rv[r]
			if (prefer_fma && v ~ /_addmul$/) { w = v; sub(/_addmul$/, "_fma", w); if (w in have) continue }
			if (series == "variant") s = v
			else if (series == "block") s = blk(rb[r])
			else if (series == "test") s = rt[r] (index(v, "@") ? substr(v, index(v, "@")) : "")
			else if (series == "test_block") s = rt[r] " " blk(rb[r])
			else s = v " " blk(rb[r])
			for (k = 1; k <= ns; k++) {
				name = (ns > 1) ? s " " st[k] : s
				if (!(name in sid)) { sid[name] = ++nser; sname[nser] = name; spk[nser] = (peaks && k == 1) }
				x = rx[r] + 0; xs[x] = 1
				val[sid[name], x] = (st[k] == "p99") ? rp[r] : rm[r]
				if (rth[r] != "") { th[sid[name], x] = rth[r]; hasth[sid[name]] = 1 }
			}
		}
		if (nser == 0) { print 0; exit }
		nx = 0; for (x in xs) xl[++nx] = x + 0
		for (i = 2; i <= nx; i++) { t = xl[i]; for (j = i - 1; j >= 1 && xl[j] > t; j--) xl[j + 1] = xl[j]; xl[j + 1] = t }
		hdr = "threads"
		for (s = 1; s <= nser; s++) {
			hdr = hdr " \"" sname[s] "\""
			if (peaks) hdr = hdr " \"peak " sname[s] "\""
		}
		print hdr > out
		for (i = 1; i <= nx; i++) {
			line = xl[i]
			for (s = 1; s <= nser; s++) {
				v = val[s, xl[i]]; line = line " " (is_number(v) ? v : "?")
				if (peaks) { v = th[s, xl[i]]; line = line " " (spk[s] && is_number(v) ? v : "?") }
			}
			print line > out
		}
		print nser
	}' "$csv"
}

# Figure against threads: FIG CSV suite test_re metric variant_re series stats peaks fma TITLE YLABEL [logy]
threads_fig() {
	local fig=$1 csv=$2 n
	n=$(wide "$DATA/$fig.dat" "$csv" "$3" "$4" "$5" "$6" "$7" "$8" "$9" "${10}")
	[ "${n:-0}" -gt 0 ] || return 0
	draw "$fig" vs_threads.gp "nser=$n" "peaks=$9" "ttl='${11}'" "ylab='${12}'" "logy=${13:-0}"
}

cpu_figs() {
	local c="$DIR/cpu.csv"
	threads_fig cpu_flops_dp "$c" cpu '^flops$' flops '_dp_' variant mean 1 1 \
		'CPU double precision: GFLOPS vs threads (dashed: theoretical)' GFLOPS 1
	threads_fig cpu_flops_sp "$c" cpu '^flops$' flops '_sp_' variant mean 1 1 \
		'CPU single precision: GFLOPS vs threads (dashed: theoretical)' GFLOPS 1
	threads_fig cpu_iops_i32 "$c" cpu '^iops$' iops_int '_i32_add' variant mean 1 0 \
		'CPU 32-bit integer add: GIOPS vs threads (dashed: theoretical)' GIOPS 1
	threads_fig cpu_iops_i64 "$c" cpu '^iops$' iops_int '_i64_add' variant mean 1 0 \
		'CPU 64-bit integer add: GIOPS vs threads (dashed: theoretical)' GIOPS 1
	threads_fig cpu_linpack "$c" cpu '^linpack$' flops '^dgesv$' variant mean 1 0 \
		'Linpack (LAPACKE dgesv): GFLOPS vs threads (dashed: theoretical)' GFLOPS 0
}

memory_figs() {
	local c="$DIR/memory.csv" t
	for t in seq_rw rand_rw seq_read rand_read seq_write rand_write; do
		threads_fig "memory_$t" "$c" memory "^$t\$" throughput '' block mean 1 0 \
			"Memory $t: throughput vs threads, per block size" MB/s 1
	done
	threads_fig memory_stream "$c" memory '^stream$' throughput '' variant mean 1 0 \
		'STREAM kernels: throughput vs threads' MB/s 0
	latency_fig
}

# Latency against working set, one line per variant, cache sizes from context.json.
latency_fig() {
	local c="$DIR/memory.csv" out="$DATA/memory_latency.dat" n l1=0 l2=0 l3=0
	[ -s "$c" ] || return 0
	n=$(awk -v out="$out" "$PEAK_AWK_LIB"'
	FNR == 1 { next }
	{
		csv_split($0, f)
		if (f[C_SUITE] != "memory" || f[C_TEST] != "latency" || f[C_UNIT] != "ns" || f[C_N] == 0) next
		if (f[C_THREADS] != "" && f[C_THREADS] != 1) next
		v = f[C_VARIANT]
		if (!(v in sid)) { sid[v] = ++ns; sn[ns] = v }
		x = f[C_BLOCK] + 0; xs[x] = 1; val[sid[v], x] = f[C_MEAN]
	}
	END {
		if (ns == 0) { print 0; exit }
		nx = 0; for (x in xs) xl[++nx] = x + 0
		for (i = 2; i <= nx; i++) { t = xl[i]; for (j = i - 1; j >= 1 && xl[j] > t; j--) xl[j + 1] = xl[j]; xl[j + 1] = t }
		h = "working_set_bytes"; for (s = 1; s <= ns; s++) h = h " \"" sn[s] "\""
		print h > out
		for (i = 1; i <= nx; i++) {
			line = xl[i]
			for (s = 1; s <= ns; s++) line = line " " ((sid[sn[s]], xl[i]) in val ? val[s, xl[i]] : "?")
			print line > out
		}
		print ns
	}' "$c")
	[ "${n:-0}" -gt 0 ] || return 0
	if [ -s "$DIR/context.json" ] && peak_have jq; then
		l1=$(jq -r '.["cache.l1d"] // 0 | numbers' "$DIR/context.json" 2>/dev/null || echo 0)
		l2=$(jq -r '.["cache.l2"] // 0 | numbers' "$DIR/context.json" 2>/dev/null || echo 0)
		l3=$(jq -r '.["cache.l3"] // 0 | numbers' "$DIR/context.json" 2>/dev/null || echo 0)
	fi
	draw memory_latency latency_ws.gp "nser=$n" "l1=${l1:-0}" "l2=${l2:-0}" "l3=${l3:-0}"
}

disk_figs() {
	local c="$DIR/disk.csv" t
	for t in seq_rw seq_read seq_write rand_read rand_write; do
		threads_fig "disk_$t" "$c" disk "^$t\$" throughput '' variant_block mean 1 0 \
			"Disk $t: throughput vs threads, per engine and block" MB/s 1
	done
	threads_fig disk_iops "$c" disk '^rand_' iops '' test_block mean 0 0 \
		'Disk random I/O: IOPS vs threads (all engines)' IOPS 1
	threads_fig disk_latency "$c" disk '^rand_read$' latency '' variant_block mean,p99 0 0 \
		'Disk random read: latency per I/O vs threads (mean and p99)' us 1
}

network_figs() {
	local c="$DIR/network.csv"
	threads_fig network_throughput "$c" network '_throughput$' throughput '^(tcp|udp)(@.*)?$' test mean 1 0 \
		'Network: throughput at the receiver vs threads (@host: two nodes; dashed: theoretical)' Gbit/s 0
	threads_fig network_latency "$c" network '_latency$' latency '^(tcp|udp)(@.*)?$' test mean,p99 0 0 \
		'Network: round-trip latency vs threads (mean and p99; @host: two nodes)' us 1
	threads_fig network_loss "$c" network '_throughput$' loss '^udp(@.*)?$' test mean 0 0 \
		'UDP loss at the receiver vs threads' % 0
}

dpdk_figs() {
	local c="$DIR/dpdk.csv" out="$DATA/dpdk_mpps.dat" n
	[ -s "$c" ] || return 0
	n=$(awk -v out="$out" "$PEAK_AWK_LIB"'
	FNR == 1 { next }
	{
		csv_split($0, f)
		if (f[C_SUITE] != "dpdk" || f[C_UNIT] != "Mpps" || f[C_TEST] !~ /^rx/ || f[C_N] == 0) next
		fl = f[C_VARIANT]; if (match(fl, /flows[0-9]+/)) fl = substr(fl, RSTART + 5, RLENGTH - 5) " flows"; else fl = "flows?"
		if (!(fl in sid)) { sid[fl] = ++ns; sn[ns] = fl }
		x = f[C_BLOCK] + 0; if (!(x in xs)) { xs[x] = 1; xl[++nx] = x }
		if (!((sid[fl], x) in val) || f[C_MEAN] > val[sid[fl], x]) val[sid[fl], x] = f[C_MEAN]
	}
	END {
		if (ns == 0) { print 0; exit }
		for (i = 2; i <= nx; i++) { t = xl[i]; for (j = i - 1; j >= 1 && xl[j] > t; j--) xl[j + 1] = xl[j]; xl[j + 1] = t }
		h = "frame_bytes"; for (s = 1; s <= ns; s++) h = h " \"" sn[s] "\""
		print h > out
		for (i = 1; i <= nx; i++) {
			line = xl[i]
			for (s = 1; s <= ns; s++) line = line " " ((s, xl[i]) in val ? val[s, xl[i]] : "?")
			print line > out
		}
		print ns
	}' "$c")
	[ "${n:-0}" -gt 0 ] || return 0
	draw dpdk_mpps bars.gp "nser=$n" "ttl='DPDK: received Mpps by frame size and flows'" \
		"ylab='Mpps'" "ref=0" "xlab='frame size (bytes)'"
}

# Best efficiency (mean / theoretical) per suite and test, in percent.
efficiency_fig() {
	local out="$DATA/efficiency.dat" n f files=()
	for f in cpu memory disk network dpdk; do [ -s "$DIR/$f.csv" ] && files+=("$DIR/$f.csv"); done
	[ ${#files[@]} -gt 0 ] || return 0
	n=$(awk -v out="$out" "$PEAK_AWK_LIB"'
	FNR == 1 { next }
	{
		csv_split($0, f)
		if (!is_number(f[C_EFF]) || f[C_N] == 0) next
		k = f[C_SUITE] "/" f[C_TEST]
		if (f[C_TEST] == "flops" || f[C_TEST] == "iops") { v = f[C_VARIANT]; sub(/_.*/, "", v); k = k "/" v }
		if (!(k in best)) order[++n] = k
		if (!(k in best) || f[C_EFF] > best[k]) best[k] = f[C_EFF]
	}
	END {
		if (n == 0) { print 0; exit }
		print "# label best_efficiency_percent" > out
		for (i = 1; i <= n; i++) printf "\"%s\" %.2f\n", order[i], best[order[i]] * 100 > out
		print 1
	}' "${files[@]}")
	[ "${n:-0}" -gt 0 ] || return 0
	draw efficiency hbars.gp "nrows=$(($(wc -l <"$out") - 1))" \
		"ttl='Best efficiency per subsystem and test (measured / theoretical)'" \
		"xlab='% of the theoretical peak'" "ref=100" "logx=0"
}

# Ours against each reference tool (matches.tsv from run_all.sh), higher is better:
# ours / baseline, and baseline / ours for latency.
baseline_fig() {
	local out="$DATA/baseline.dat"
	[ -s "$DIR/matches.tsv" ] || return 0
	awk -F'\t' -v out="$out" '
	function blk(b) {
		if (b == "") return ""
		if (b >= 1048576 && b % 1048576 == 0) return " " (b / 1048576) "MiB"
		if (b >= 1024 && b % 1024 == 0) return " " (b / 1024) "KiB"
		return " " b "B"
	}
	$8 + 0 > 0 && $9 + 0 > 0 {
		r = ($6 == "latency") ? $8 / $9 : $9 / $8
		lbl = $7 ": " $2 " " $3 " " $6 " " $4 "t" ($2 == "stream" ? "" : blk($5))
		if (lbl in seen) next
		seen[lbl] = 1; n++
		if (n == 1) print "# label peakbench_as_percent_of_tool" > out
		printf "\"%s\" %.1f\n", lbl, r * 100 > out
	}' "$DIR/matches.tsv"
	[ -s "$out" ] || return 0
	draw baseline hbars.gp "nrows=$(($(wc -l <"$out") - 1))" \
		"ttl='peakbench vs the reference tools (100% = same; above = peakbench faster)'" \
		"xlab='peakbench as % of the tool (latency: tool / peakbench), log scale'" "ref=100" "logx=1"
}

# Roofline: peak GFLOPS (theoretical and measured) and the bandwidth of each memory level
# (levels.csv from run_all.sh, else STREAM triad for DRAM). The data file lists the roofs;
# gnuplot gets them as word lists.
roofline_fig() {
	local out="$DATA/roofline.dat" files=() f assign
	for f in "$DIR/cpu.csv" "$DIR/levels.csv" "$DIR/memory.csv"; do [ -s "$f" ] && files+=("$f"); done
	[ ${#files[@]} -gt 0 ] || return 0
	assign=$(awk -v out="$out" "$PEAK_AWK_LIB"'
	FNR == 1 { next }
	{
		csv_split($0, f)
		if (f[C_SUITE] == "cpu" && f[C_TEST] == "flops" && f[C_VARIANT] ~ /_dp_/ && f[C_N] > 0) {
			if (f[C_MEAN] > mflops) { mflops = f[C_MEAN]; mvar = f[C_VARIANT]; mthr = f[C_THREADS] }
			if (f[C_THEO] > tflops) tflops = f[C_THEO]
		}
		lvl = flag_value(f[C_FLAGS], "level")
		if (FILENAME ~ /levels\.csv$/ && lvl != "" && f[C_MEAN] > bw[lvl]) bw[lvl] = f[C_MEAN]
		if (FILENAME ~ /memory\.csv$/ && f[C_TEST] == "stream" && f[C_VARIANT] ~ /^triad/ && f[C_MEAN] > triad) triad = f[C_MEAN]
	}
	function add(kind, name, v) {
		n++; kinds = kinds " " kind; vals = vals " " v; names = names " " name
		printf "%s %s %.3f\n", kind, name, v > out
	}
	END {
		if (mflops == 0 && tflops == 0) exit
		if (bw["DRAM"] == 0 && triad > 0) bw["DRAM"] = triad
		print "# roof name value (peak: GFLOPS, bw: GB/s)" > out
		if (tflops > 0) add("peak", "theoretical_DP_peak", tflops)
		if (mflops > 0) add("peak", "measured_" mvar "_" mthr "t", mflops)
		nl = split("L1 L2 L3 DRAM", L, " ")
		for (i = 1; i <= nl; i++) if (bw[L[i]] > 0) add("bw", L[i] "_bandwidth", bw[L[i]] / 1000)
		printf "nlines=%d; kinds=\"%s\"; vals=\"%s\"; names=\"%s\"\n", n, kinds, vals, names
	}' "${files[@]}")
	[ -n "$assign" ] || return 0
	draw roofline roofline.gp "$assign"
}

cpu_figs
memory_figs
disk_figs
network_figs
dpdk_figs
efficiency_fig
baseline_fig
roofline_fig
echo "plot.sh: $FIGS charts in $CH" >&2
[ "$FAILS" -eq 0 ]
