"""A pair's two sides compared by their hot loop's instructions (objdump): loads, stores, width,
FMA per element (on core alone, layers.py)."""
