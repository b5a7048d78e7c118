"""The report's peaks per number format (issue 37 §5; scripts/peakresults/report/report_formats.py):
the table, the chart's data and the summary's one line, on the fixture machines of
tests/fixtures/formats (an AMX server, AVX512_BF16 without AMX, an AVX2 core with nothing,
an arm64 Neoverse N2), and end to end in report.md (the recorded tiny run with the AMX
machine's rows added to its cpubench file)."""
import csv
import json
import os
import shutil
import sys
import tempfile
import unittest

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
FIX = os.path.join(REPO, "tests", "fixtures", "formats")
TINY = os.path.join(REPO, "tests", "fixtures", "results", "tiny")
sys.path.insert(0, os.path.join(REPO, "scripts"))

from peakresults.adapters import common as ad_common  # noqa: E402
from peakresults.adapters import onednn  # noqa: E402
from peakresults.charts.charts import Charts  # noqa: E402
from peakresults.report import report_formats as rf  # noqa: E402
from peakresults.report.finish import finish  # noqa: E402

NUMS = ("mean", "stddev", "min", "median", "max", "ci95_low", "ci95_high", "theoretical", "efficiency")


def load(name: str) -> list[dict]:
    """A fixture CSV's rows, typed as the results program reads them from JSON."""
    out = []
    with open(os.path.join(FIX, name), encoding="utf-8", newline="") as f:
        for r in csv.DictReader(f):
            d = {k: (v if v != "" else None) for k, v in r.items()}
            for k in NUMS:
                d[k] = float(d[k]) if d[k] is not None else None
            d["n"] = int(d["n"])
            d["threads"] = int(d["threads"])
            d["flags"] = d["flags"] or ""
            out.append(d)
    return out


def line_of(table: list[str], fmt: str, unit: str) -> str:
    got = [ln for ln in table if ln.startswith(f"| {fmt} | {unit} |")]
    assert len(got) == 1, (fmt, unit, table)
    return got[0]


class FormOf(unittest.TestCase):
    def test_every_variant_of_the_issue(self):
        want = {"avx512_fp16_fma": ("fp16", "vector"), "avx512_bf16_dot": ("bf16", "vector"),
                "avx512_int8_dot": ("int8", "vector"), "avx512_int8_dot_ymm": ("int8", "vector"),
                "avxvnni_int8_dot": ("int8", "vector"), "amx_bf16_tile": ("bf16", "matrix"),
                "amx_fp16_tile": ("fp16", "matrix"), "amx_int8_tile_su": ("int8", "matrix"),
                "neon_bf16_dot": ("bf16", "vector"), "neon_bf16_mmla": ("bf16", "matrix"),
                "neon_int8_dot": ("int8", "vector"), "neon_int8_mmla": ("int8", "matrix"),
                "avx512_dp_fma": ("fp64", "vector"), "scalar_sp_fma": ("fp32", "vector"),
                "sve_dp_addmul": ("fp64", "vector")}
        for v, f in want.items():
            self.assertEqual(rf.form_of(v), f, v)
        for v in ("avx512_i32_add", "neon_i64_mul", "dgesv", ""):
            self.assertIsNone(rf.form_of(v), v)

    def test_unit_words(self):
        self.assertEqual(rf.unit_label("amx_bf16_tile"), "AMX BF16")
        self.assertEqual(rf.unit_label("avx512_bf16_dot"), "AVX-512 BF16")
        self.assertEqual(rf.unit_label("avxvnni_int8_dot"), "AVX-VNNI INT8")
        self.assertEqual(rf.unit_label("neon_bf16_mmla"), "NEON BFMMLA BF16")
        self.assertEqual(rf.unit_label("neon_int8_dot"), "NEON SDOT INT8")


class AmxServer(unittest.TestCase):
    rows = load("amx-server.csv")

    def test_summary_line_names_amx_bf16(self):
        self.assertEqual(rf.summary_line(self.rows),
                         ["- Low precision: **AMX BF16: 3.79 TFLOPS, 93% of peak** (amx_bf16_tile, 1t)."])

    def test_table_per_format_and_unit(self):
        t = rf.table(self.rows)
        self.assertIn("amx_bf16_tile (1t) | 3790 GFLOPS | 4068 GFLOPS | 93.2% | no reference", line_of(t, "BF16", "matrix"))
        self.assertIn("avx512_bf16_dot (1t)", line_of(t, "BF16", "vector"))
        # the best INT8 matrix row of the four sign forms, the best vector one of zmm and AVX-VNNI
        self.assertIn("amx_int8_tile_ss (1t) | 7580 GIOPS", line_of(t, "INT8", "matrix"))
        self.assertIn("avx512_int8_dot (1t) | 960.1 GIOPS", line_of(t, "INT8", "vector"))
        self.assertIn("avx512_fp16_fma", line_of(t, "FP16", "vector"))
        self.assertIn("unsupported: amx_fp16_tile: amx_fp16 not reported by this CPU", line_of(t, "FP16", "matrix"))
        self.assertIn("avx512_dp_fma", line_of(t, "FP64", "vector"))
        self.assertIn("avx512_sp_fma", line_of(t, "FP32", "vector"))
        # integer adds are no format; FP64/FP32 have no matrix line
        self.assertFalse([ln for ln in t if "i32_add" in ln or ln.startswith("| FP64 | matrix")])

    def test_reference_pair_named(self):
        pairs = [{"suite": "cpu", "variant": "avx512_bf16_dot", "tool": "onednn", "ratio_median": 0.97}]
        self.assertIn("onednn: 0.97x", line_of(rf.table(self.rows, pairs), "BF16", "vector"))
        self.assertIn("no reference", line_of(rf.table(self.rows, pairs), "BF16", "matrix"))
        # the pair of another row of the same format and unit, named (a quick run showed the
        # best unflagged INT8 row was the ymm one while oneDNN was paired with the zmm one)
        kin = [{"suite": "cpu", "variant": "avx512_int8_dot_ymm", "threads": 2, "tool": "onednn",
                "ratio_median": 1.07}]
        line = line_of(rf.table(self.rows, kin), "INT8", "vector")
        self.assertIn("onednn: 1.07x (paired with avx512_int8_dot_ymm, 2t)", line)
        self.assertIn("no reference", line_of(rf.table(self.rows, kin), "BF16", "vector"))

    def test_chart_data(self):
        with tempfile.TemporaryDirectory() as tmp:
            c = Charts(tmp, draw=False)
            rf.chart(c, self.rows)
            with open(os.path.join(tmp, "charts", "data", "cpu_formats.dat"), encoding="utf-8") as f:
                lines = f.read().splitlines()
            self.assertEqual(len(lines), 1 + 7)  # fp64, fp32, fp16, bf16 x2, int8 x2
            self.assertTrue(any(ln.startswith('"BF16 matrix (amx_bf16_tile)') and " 93.17 0" in ln for ln in lines))
            self.assertTrue(os.path.isfile(os.path.join(tmp, "charts", "data", "cpu_formats.gp")))


class AvxBf16NoAmx(unittest.TestCase):
    rows = load("avx512-bf16-no-amx.csv")

    def test_summary_falls_back_to_the_vector_unit(self):
        # the unflagged one-thread row, not the faster contended one
        self.assertEqual(rf.summary_line(self.rows),
                         ["- Low precision: **AVX-512 BF16: 230.1 GFLOPS, 97% of peak** (avx512_bf16_dot, 1t)."])

    def test_matrix_unsupported(self):
        t = rf.table(self.rows)
        self.assertIn("unsupported: amx_bf16_tile: amx_tile not reported", line_of(t, "BF16", "matrix"))
        self.assertIn("no cpubench row", line_of(t, "FP16", "vector"))


class Nothing(unittest.TestCase):
    rows = load("nothing.csv")

    def test_summary_says_none_with_the_reason(self):
        self.assertEqual(rf.summary_line(self.rows),
                         ["- Low precision: no FP16, BF16 or INT8 unit runs here "
                          "(avx512_fp16_fma: avx512f not reported by this CPU)."])

    def test_every_low_form_unsupported(self):
        t = rf.table(self.rows)
        for f in ("FP16", "BF16", "INT8"):
            for u in ("vector", "matrix"):
                self.assertIn("unsupported: ", line_of(t, f, u))
        self.assertIn("avx2_dp_fma (1t) | 57.10 GFLOPS", line_of(t, "FP64", "vector"))

    def test_no_chart(self):
        with tempfile.TemporaryDirectory() as tmp:
            rf.chart(Charts(tmp, draw=False), self.rows)
            self.assertFalse(os.path.exists(os.path.join(tmp, "charts", "data", "cpu_formats.dat")))

    def test_no_format_rows_no_table(self):
        old = [r for r in self.rows if r["variant"].startswith("avx2")]
        self.assertEqual(rf.summary_line([r for r in old if "dp" not in r["variant"] and "sp" not in r["variant"]]), [])
        self.assertEqual(rf.summary_line(old), [])  # FP64/FP32 only: no low-precision line


class StatedByPeakinfo(unittest.TestCase):
    """A run whose cpubench ran no format kernel (--isa best): the forms come from peakinfo's
    format_peak rows, their stated peak or their reason."""
    peaks = load("peakinfo-zen4.csv")
    cpu = [r for r in load("nothing.csv") if r["variant"].startswith("avx2")]

    def test_table_from_peakinfo(self):
        t = rf.table(self.cpu, [], self.peaks)
        self.assertIn("not measured (cpubench did not run it); peakinfo's peak 473.6 GFLOPS", line_of(t, "BF16", "vector"))
        self.assertIn("unsupported: amx_bf16_tile: amx_tile not reported", line_of(t, "BF16", "matrix"))
        self.assertIn("unsupported: avx512_fp16_fma: avx512_fp16 not reported", line_of(t, "FP16", "vector"))
        self.assertIn("avx2_dp_fma (1t)", line_of(t, "FP64", "vector"))  # the measured row stands

    def test_summary_says_not_measured(self):
        self.assertEqual(rf.summary_line(self.cpu, self.peaks),
                         ["- Low precision: not measured (cpubench ran no FP16, BF16 or INT8 kernel); "
                          "avx512_fp16_fma: avx512_fp16 not reported by this CPU."])


class Arm64N2(unittest.TestCase):
    rows = load("arm64-n2.csv")

    def test_matrix_is_mmla(self):
        t = rf.table(self.rows)
        self.assertIn("neon_bf16_mmla (1t) | 188.5 GFLOPS | 192.0 GFLOPS", line_of(t, "BF16", "matrix"))
        self.assertIn("neon_int8_dot (1t)", line_of(t, "INT8", "vector"))
        self.assertEqual(rf.summary_line(self.rows),
                         ["- Low precision: **NEON BFMMLA BF16: 188.5 GFLOPS, 98% of peak** (neon_bf16_mmla, 1t)."])


class OneDnnReference(unittest.TestCase):
    """The reference round's parser (adapters/onednn.py): peak_ref_gemm's line becomes the
    row of the unit oneDNN's kernel ran on; its fallback kernel pairs with nothing."""

    def test_amx_bf16_row(self):
        ver, rows = onednn.parse(os.path.join(FIX, "onednn-bf16-amx.txt"), {})
        self.assertEqual(ver, "oneDNN 2.6.3")
        r = rows[0]
        self.assertEqual((r["suite"], r["test"], r["variant"], r["threads"], r["metric"], r["unit"]),
                         ("cpu", "flops", "amx_bf16_tile", 2, "flops", "GFLOPS"))
        self.assertEqual((r["mean"], r["max"], r["n"]), (401.5, 455.2, 40))

    def test_vnni_int8_row(self):
        _, rows = onednn.parse(os.path.join(FIX, "onednn-int8-vnni.txt"), {})
        self.assertEqual((rows[0]["test"], rows[0]["variant"], rows[0]["metric"], rows[0]["unit"]),
                         ("iops", "avx512_int8_dot", "iops_int", "GIOPS"))

    def test_fallback_kernel_is_no_unit(self):
        with self.assertRaises(ad_common.NotToolOutput):
            onednn.parse(os.path.join(FIX, "onednn-bf16-ref.txt"), {})
        with self.assertRaises(ad_common.NotToolOutput):
            onednn.parse(os.path.join(FIX, "README.md"), {})

    def test_unit_expected_from_flags(self):
        self.assertEqual(onednn.expected_variant("bf16", {"avx512_bf16", "amx_bf16"}), "amx_bf16_tile")
        self.assertEqual(onednn.expected_variant("bf16", {"avx512_bf16"}), "avx512_bf16_dot")
        self.assertEqual(onednn.expected_variant("bf16", {"avx2"}), "")
        self.assertEqual(onednn.expected_variant("int8", {"avx_vnni"}), "avxvnni_int8_dot")
        self.assertEqual(onednn.variant_of("int8", "brg:avx2_vnni"), "avxvnni_int8_dot")
        self.assertEqual(onednn.variant_of("int8", "brg:avx512_core_amx"), "amx_int8_tile_us")


class EndToEnd(unittest.TestCase):
    """The tiny run with the AMX machine's rows in its cpubench file: report.md has the
    table under the CPU section, its chart's data, and the summary's line."""

    def test_report(self):
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, "run")
            shutil.copytree(TINY, out, ignore=shutil.ignore_patterns("old", "baseline-*.csv"))
            path = os.path.join(out, "raw", "cpu-cpubench.json")
            with open(path, encoding="utf-8") as f:
                doc = json.load(f)
            doc["results"] += [r for r in load("amx-server.csv") if "i32_add" not in r["variant"]]
            with open(path, "w", encoding="utf-8") as f:
                json.dump(doc, f)
            finish(out, draw=False)
            with open(os.path.join(out, "report.md"), encoding="utf-8") as f:
                md = f.read()
            self.assertIn("### Peaks per number format", md)
            self.assertIn("| BF16 | matrix | amx_bf16_tile (1t) | 3790 GFLOPS", md)
            summary = md.split("## Summary", 1)[1].split("\n## ", 1)[0]
            self.assertIn("Low precision: **AMX BF16: 3.79 TFLOPS, 93% of peak**", summary)
            self.assertTrue(os.path.isfile(os.path.join(out, "charts", "data", "cpu_formats.dat")))


if __name__ == "__main__":
    unittest.main()
