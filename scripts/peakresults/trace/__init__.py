"""A pair's two sides compared by their system calls: `peakresults trace run` under strace, the
summary it keeps, and the causes two summaries show (on core alone, layers.py)."""
