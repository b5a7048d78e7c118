"""The paired rounds read back: the median of per-round ratios with its interval, placement
matching, the measured causes (trace, insmix) and the stopping rule (layers.py)."""
