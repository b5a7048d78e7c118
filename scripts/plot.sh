#!/usr/bin/env bash
# plot.sh DIR: gnuplot charts (DIR/charts/*.png) from the results folder.
set -u
if [ $# -ne 1 ] || [ ! -d "$1" ]; then echo "usage: scripts/plot.sh RESULTS_DIR" >&2; exit 2; fi
command -v gnuplot >/dev/null 2>&1 || { echo "gnuplot not installed: no charts" >&2; exit 3; }
mkdir -p "$1/charts"
