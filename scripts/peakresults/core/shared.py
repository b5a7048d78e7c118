"""The facts the C binaries and this program both act on, read from the one place they are
written: common/base/peak_shared.h (`#define PEAK_SHARED_<NAME> <number>`). MOVED_FACTOR and
UDP_SOCKBUF_BYTES are module attributes; tests/results/test_shared.py checks them against
the C side's own reading (tests/unit/shared_facts.c)."""
import os
import re

HEADER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "common", "base", "peak_shared.h")
_LINE = re.compile(r"^#define PEAK_SHARED_([A-Z0-9_]+)\s+([0-9.]+)\s*$")


def read(path: str = HEADER) -> dict:
    """{NAME: int or float} of every PEAK_SHARED_ define in PATH."""
    out = {}
    with open(path) as f:
        for ln in f:
            m = _LINE.match(ln.strip())
            if m:
                v = m.group(2)
                out[m.group(1)] = float(v) if "." in v else int(v)
    return out


FACTS = read()
MOVED_FACTOR = FACTS["MOVED_FACTOR"]
UDP_SOCKBUF_BYTES = FACTS["UDP_SOCKBUF_BYTES"]
