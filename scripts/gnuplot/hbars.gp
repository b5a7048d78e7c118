# Horizontal bars, one per row (label in column 1, value in column 2), with a reference
# line (ref > 0, e.g. 100%). Set with -e: data, out, nrows, ttl, xlab, ref, logx (0|1), and
# marks=1 when column 3 colours each bar (0 blue, 1 orange: a flagged stand-in, 2 red: above
# the peak); without it every bar is blue.
if (strstrt(GPVAL_TERMINALS, "pngcairo") > 0) {
	set terminal pngcairo size 1600, (250 + 45 * nrows) enhanced font "DejaVu Sans,16" linewidth 2
} else {
	set terminal png size 1600, (250 + 45 * nrows) font "DejaVu Sans,16"
}
set output out
set title ttl noenhanced
set xlabel xlab noenhanced
set ytics noenhanced
set yrange [nrows - 0.3:-0.7]
set grid xtics
set key off
set style fill solid 0.8 border -1
if (logx) { set logscale x 10 } else { set xrange [0:*] }
# Room right of the longest bar for its value label (a 100% bar's label sat outside).
set offsets 0, graph 0.07, 0, 0
base = logx ? 1 : 0
if (!exists("marks")) marks = 0
array MARK[3] = [0x1f77b4, 0xff7f0e, 0xd62728]
colour(m) = MARK[(m >= 0 && m <= 2 ? int(m) : 0) + 1]
if (ref > 0) set arrow from first ref, graph 0 to first ref, graph 1 nohead dt 2 lw 2 lc rgb "#d62728" front
plot data using (base):0:(base):2:($0 - 0.35):($0 + 0.35):(colour(marks ? column(3) : 0)):yticlabels(1) \
          with boxxyerror lc rgb variable, \
     data using 2:0:(sprintf(" %.0f%%", column(2))) with labels left font ",14"
