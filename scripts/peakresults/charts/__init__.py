"""One data file and gnuplot script per figure, in one style table, drawn in one gnuplot (on
core alone, layers.py)."""
