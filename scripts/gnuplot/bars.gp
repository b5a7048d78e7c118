# Clustered bars: one group per row (label in column 1), one bar per series, and an
# optional reference line (ref > 0: e.g. 100%). Set with -e: data, out, nser, ttl, ylab,
# xlab, ref.
if (strstrt(GPVAL_TERMINALS, "pngcairo") > 0) {
	set terminal pngcairo size 1600,1000 enhanced font "DejaVu Sans,16" linewidth 2
} else {
	set terminal png size 1600,1000 font "DejaVu Sans,16"
}
set output out
# Colours that stay distinct on a projector (tab10).
array PAL[10] = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"]
do for [i=1:10] { set linetype i lc rgb PAL[i] }
set title ttl noenhanced
set ylabel ylab noenhanced
set xlabel xlab noenhanced
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set boxwidth 0.9
set xtics noenhanced
if (exists("logy") && logy) { set logscale y 10; set yrange [*:*] } else { set yrange [0:*] }
set grid ytics
set datafile missing "?"
set key noenhanced
if (nser == 1) set key off
if (ref > 0) set arrow from graph 0, first ref to graph 1, first ref nohead dt 2 lw 2 lc rgb "red" front
plot for [i=2:nser + 1] data using i:xtic(1) title columnheader(i)
