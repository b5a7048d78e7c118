"""`peakresults finish`: the data files, the charts and report.md, report-appendix.md and their
HTML twins; the top package, which may use every other (layers.py)."""
