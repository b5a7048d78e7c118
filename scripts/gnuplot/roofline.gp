# Roofline of this machine: attainable GFLOPS = min(peak, bandwidth x arithmetic intensity)
# for each memory level, log-log. Set with -e: out, nlines, and word lists kinds (peak|bw),
# vals (GFLOPS or GB/s) and names (underscores for spaces).
if (strstrt(GPVAL_TERMINALS, "pngcairo") > 0) {
	set terminal pngcairo size 1600,900 enhanced font "DejaVu Sans,18" linewidth 2
} else {
	set terminal png size 1600,900 font "DejaVu Sans,18"
}
set output out
# Colours that stay distinct on a projector (tab10).
array PAL[10] = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"]
do for [i=1:10] { set linetype i lc rgb PAL[i] }
set title "Roofline: attainable GFLOPS vs arithmetic intensity (double precision)"
set xlabel "arithmetic intensity (FLOP / byte)"
set ylabel "GFLOPS"
set logscale xy 10
set xrange [1.0/64:256]
set grid
set key right bottom noenhanced box opaque
set samples 400
top = 0
do for [i=1:nlines] { if (word(kinds, i) eq "peak" && real(word(vals, i)) > top) { top = real(word(vals, i)) } }
if (top <= 0) top = 1e9
set yrange [*:top * 2]
# names use underscores for spaces: swap them back without a shell.
label(i) = (s = word(names, i), strlen(s) == 0 ? s : join_us(s))
join_us(s) = (p = strstrt(s, "_"), p == 0 ? s : s[1:p - 1] . " " . join_us(s[p + 1:]))
f(x, i) = word(kinds, i) eq "peak" ? real(word(vals, i)) : (real(word(vals, i)) * x < top ? real(word(vals, i)) * x : top)
plot for [i=1:nlines] f(x, i) with lines lw 3 lc i \
     title sprintf("%s: %.1f %s", label(i), real(word(vals, i)), word(kinds, i) eq "peak" ? "GFLOPS" : "GB/s")
