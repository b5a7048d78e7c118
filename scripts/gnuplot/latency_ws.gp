# Load latency against working set (pointer chase), one line per variant, log-log, with
# the cache sizes hwloc reported marked. Set with -e: data, out, nser, l1, l2, l3 (bytes).
if (strstrt(GPVAL_TERMINALS, "pngcairo") > 0) {
	set terminal pngcairo size 1600,900 enhanced font "DejaVu Sans,18" linewidth 2
} else {
	set terminal png size 1600,900 font "DejaVu Sans,18"
}
set output out
# Colours that stay distinct on a projector (tab10).
array PAL[10] = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"]
do for [i=1:10] { set linetype i lc rgb PAL[i] }
set title "Memory load latency vs working set (dependent pointer chase, 1 thread)"
set xlabel "working set"
set ylabel "latency per load (ns)"
set logscale x 2
set logscale y 10
# Ticks at every power of 4, labelled in binary units.
set xtics ()
do for [e=10:40:2] {
	lbl = e < 20 ? sprintf("%dK", 2**(e - 10)) : (e < 30 ? sprintf("%dM", 2**(e - 20)) : sprintf("%dG", 2**(e - 30)))
	set xtics add (lbl 2.0**e)
}
set grid
set key left top noenhanced
set datafile missing "?"
if (l1 > 0) { set arrow from l1, graph 0 to l1, graph 1 nohead dt 3 lc rgb "gray30"; set label "L1" at l1, graph 0.95 offset 0.5, 0 }
if (l2 > 0) { set arrow from l2, graph 0 to l2, graph 1 nohead dt 3 lc rgb "gray30"; set label "L2" at l2, graph 0.95 offset 0.5, 0 }
if (l3 > 0) { set arrow from l3, graph 0 to l3, graph 1 nohead dt 3 lc rgb "gray30"; set label "L3" at l3, graph 0.95 offset 0.5, 0 }
plot for [i=2:nser + 1] data using 1:i with linespoints lw 2 pt 7 lc (i - 1) title columnheader(i)
