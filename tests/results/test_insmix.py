"""scripts/peakresults/insmix/insmix*.py: the hot loops' instruction mix, on objdump -d excerpts
recorded here (tests/fixtures/insmix: membench's s_triad and s_copy per ISA, likwid-bench
5.2's copy_mem_avx and stream_mem_avx kernels found through its test table, Debian hpcc's
timed STREAM Triad block)."""
import os
import shutil
import subprocess
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "scripts"))

from peakresults.insmix import insmix  # noqa: E402
from peakresults.insmix.insmix_tools import kernel_address  # noqa: E402

FIX = os.path.join(ROOT, "tests", "fixtures", "insmix")


def text(name: str) -> str:
    with open(os.path.join(FIX, name + ".txt")) as f:
        return f.read()


def mixes(name: str) -> list:
    return [insmix.mix(b) for b in insmix.loops(text(name))]


def hot(name: str, nt=None) -> dict:
    return insmix.hot([m for m in mixes(name) if m["stores"]], nt)


class Loops(unittest.TestCase):
    def test_membench_triad_avx2(self):
        ms = mixes("membench-s_triad-avx2")
        self.assertEqual(len(ms), 3)  # NT loop, ordinary-store loop, scalar tail
        nt = hot("membench-s_triad-avx2", True)
        self.assertEqual((nt["loads"], nt["stores"], nt["nt_stores"], nt["mul"], nt["add"], nt["fma"],
                          nt["width"], nt["elements"], nt["store_insn"]),
                         (4, 2, 2, 2, 2, 0, 256, 8, "vmovntpd"))
        plain = hot("membench-s_triad-avx2", False)
        self.assertEqual((plain["nt_stores"], plain["store_insn"]), (0, "vmovupd"))

    def test_likwid_and_hpcc(self):
        s = hot("likwid-stream_mem_avx")
        self.assertEqual((s["loads"], s["stores"], s["nt_stores"], s["width"], s["elements"]), (2, 1, 1, 256, 4))
        c = hot("likwid-copy_mem_avx")
        self.assertEqual((c["loads"], c["stores"], c["nt_stores"], c["store_insn"]), (4, 4, 4, "vmovntps"))
        h = hot("hpcc-triad-block")
        self.assertEqual((h["isa"], h["nt_stores"], h["mul"], h["add"], h["elements"]), ("scalar", 0, 8, 8, 8))


class CompareMix(unittest.TestCase):
    def test_same_loop(self):
        a = hot("membench-s_triad-avx2", True)
        self.assertEqual(insmix.compare_mix(a, a, "likwid"), [])
        # unrolled twice against once: the same per element
        self.assertEqual(insmix.compare_mix(a, hot("likwid-stream_mem_avx"), "likwid"), [])
        self.assertEqual(insmix.compare_mix(hot("membench-s_copy-avx2", True), hot("likwid-copy_mem_avx"),
                                            "likwid"), [])

    def test_nt_against_ordinary_stores(self):
        d = insmix.compare_mix(hot("membench-s_triad-avx2", True), hot("membench-s_triad-avx2", False), "hpcc")
        self.assertEqual(d, ["ours 256-bit vmovntpd stores, hpcc 256-bit vmovupd stores (no NT)"])

    def test_fma_and_width(self):
        d = insmix.compare_mix(hot("membench-s_triad-avx512", True), hot("likwid-stream_mem_avx"), "likwid")
        self.assertIn("vector width: ours 512-bit (zmm), likwid 256-bit (ymm)", d)
        self.assertIn("arithmetic an iteration: ours 2 FMA, likwid 1 mul + 1 add", d)

    def test_width(self):
        d = insmix.compare_mix(hot("membench-s_triad-sse2", False), hot("hpcc-triad-block"), "hpcc")
        self.assertEqual(d, ["vector width: ours 128-bit (xmm), hpcc 64-bit (scalar)"])

    def test_copy_against_triad(self):
        d = insmix.compare_mix(hot("membench-s_copy-avx2", True), hot("likwid-stream_mem_avx"), "likwid")
        self.assertIn("loaded doubles per element: ours 1, likwid 2", d)


class KernelTable(unittest.TestCase):
    def test_kernel_address(self):
        headers = ("  0 .text         00001000  0000000000001000  0000000000001000  00001000  2**4\n"
                   "  1 .rodata       00000100  0000000000003000  0000000000003000  00003000  2**4\n")
        blob = bytearray(0x3100)
        blob[0x3010:0x3020] = b"\0copy_mem_avx\0\0\0"
        relocs = ("0000000000004000 R_X86_64_RELATIVE  *ABS*+0x0000000000003011\n"
                  "0000000000004008 R_X86_64_RELATIVE  *ABS*+0x0000000000003050\n"
                  "0000000000004018 R_X86_64_RELATIVE  *ABS*+0x0000000000001bc0\n")
        self.assertEqual(kernel_address(headers, relocs, bytes(blob), "copy_mem_avx"), 0x1bc0)
        self.assertIsNone(kernel_address(headers, relocs, bytes(blob), "stream_mem_avx"))


class Cli(unittest.TestCase):
    @unittest.skipUnless(shutil.which("objdump") and os.path.exists(os.path.join(ROOT, "build/memory/membench")),
                         "objdump or build/memory/membench missing")
    def test_membench(self):
        r = subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "peakresults"), "insmix",
                            os.path.join(ROOT, "build/memory/membench"), "s_triad"], capture_output=True, text=True)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("2 non-temporal, vmovntpd", r.stdout)

    def test_usage(self):
        r = subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "peakresults"), "insmix", "x"],
                           capture_output=True, text=True)
        self.assertEqual(r.returncode, 2)


if __name__ == "__main__":
    unittest.main()
