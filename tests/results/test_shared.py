"""The shared facts (common/base/peak_shared.h): the C compiler's reading (tests/unit/
shared_facts.c, built by CMake, its path the first argument) equals the results program's
(peakresults.core.shared), and every define the header holds is printed by the C side."""
import os
import subprocess
import sys
import unittest

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(REPO, "scripts"))

from peakresults.core import shared  # noqa: E402
from peakresults.pairs import pairs  # noqa: E402

EXE = sys.argv.pop(1) if len(sys.argv) > 1 else ""


class Shared(unittest.TestCase):
    def test_c_and_python_agree(self):
        if not EXE:
            self.skipTest("no shared_facts binary given")
        out = subprocess.run([EXE], check=True, capture_output=True, text=True).stdout
        c = {k: float(v) for k, v in (ln.split("=", 1) for ln in out.splitlines())}
        self.assertEqual(set(c), set(shared.FACTS), "a define the C side does not print")
        for k, v in shared.FACTS.items():
            self.assertEqual(c[k], float(v), k)

    def test_users_take_them_from_here(self):
        self.assertEqual(pairs.MOVED_FACTOR, shared.MOVED_FACTOR)
        self.assertEqual(shared.UDP_SOCKBUF_BYTES, 4 << 20)

    def test_parser(self):
        import tempfile
        with tempfile.NamedTemporaryFile("w", suffix=".h", delete=False) as f:
            f.write("#define PEAK_SHARED_A 1.25\n#define PEAK_SHARED_B 42\n#define OTHER 3\n")
        try:
            self.assertEqual(shared.read(f.name), {"A": 1.25, "B": 42})
        finally:
            os.unlink(f.name)


if __name__ == "__main__":
    unittest.main()
