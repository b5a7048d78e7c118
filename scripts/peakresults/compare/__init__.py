"""`peakresults compare OLD NEW`: which rows moved beyond their noise, by row, family and
suite, and its Markdown, CSV, JSON and chart (on core alone, layers.py)."""
