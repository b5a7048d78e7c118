"""peakbench's results program: reads the JSON files the binaries and run_all.sh leave in a
results folder. Standard library only (Python 3.9+)."""
