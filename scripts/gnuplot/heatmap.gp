# N x N heatmap of a per-pair figure: one coloured cell per ordered pair (sender on the y
# axis, receiver on the x axis), the value printed in the cell when show_values is 1, host
# names on both axes, the diagonal left blank. Data rows: x y value label (x, y from 0).
# Set with -e: data, out, n, names (space-separated, index order), ttl, cblab,
# show_values, reverse (1: low values are good, e.g. latency).
if (strstrt(GPVAL_TERMINALS, "pngcairo") > 0) {
	set terminal pngcairo size 1400,1200 enhanced font "DejaVu Sans,14"
} else {
	set terminal png size 1400,1200 font "DejaVu Sans,14"
}
set output out
set title ttl noenhanced
set xlabel "receiver (peer)"
set ylabel "sender (host)"
set cblabel cblab noenhanced
set xrange [-0.5:n - 0.5]
set yrange [n - 0.5:-0.5]
set size ratio -1
set xtics () rotate by 45 right noenhanced
set ytics () noenhanced
do for [i=1:n] {
	set xtics add (word(names, i) i - 1)
	set ytics add (word(names, i) i - 1)
}
set tics scale 0
# Red is bad either way: high latency, low throughput.
if (reverse) { set palette defined (0 "#2ca02c", 0.5 "#ffdd55", 1 "#d62728") } \
else { set palette defined (0 "#d62728", 0.5 "#ffdd55", 1 "#2ca02c") }
set style fill solid 1.0 noborder
unset key
if (show_values) {
	plot data using 1:2:(0.5):(0.5):3 with boxxyerror fc palette, \
	     data using 1:2:4 with labels font ",14" noenhanced
} else {
	plot data using 1:2:(0.5):(0.5):3 with boxxyerror fc palette
}
