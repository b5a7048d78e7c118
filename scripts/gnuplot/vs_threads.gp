# A metric against thread count: one line per series, each series' theoretical peak dashed
# in the same colour when peaks=1. Data: threads, then per series its value (and peak).
# Set with -e: data, out, nser, peaks (0|1), ttl, ylab, logy (0|1).
if (strstrt(GPVAL_TERMINALS, "pngcairo") > 0) {
	set terminal pngcairo size 1600,900 enhanced font "DejaVu Sans,18" linewidth 2
} else {
	set terminal png size 1600,900 font "DejaVu Sans,18"
}
set output out
# Colours that stay distinct on a projector (tab10).
array PAL[10] = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"]
do for [i=1:10] { set linetype i lc rgb PAL[i] }
set title ttl noenhanced
set xlabel "threads"
set ylabel ylab noenhanced
set logscale x 2
set xtics 2
if (logy) set logscale y 10
set grid
set key outside right top noenhanced
set datafile missing "?"
set border lw 1.5
stride = peaks ? 2 : 1
plot for [i=1:nser] data using 1:(column(2 + (i - 1) * stride)) with linespoints lw 2 pt 7 ps 1.5 lc i title columnheader(2 + (i - 1) * stride), \
     for [i=1:(peaks ? nser : 0)] data using 1:(column(3 + (i - 1) * 2)) with lines dt 2 lw 1.5 lc i notitle
