"""A run's raw files into one record per suite: the second pass pooled, the reference tools'
rows joined, old results folders read (on core alone, layers.py)."""
