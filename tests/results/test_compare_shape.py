"""peakresults compare --shape: two runs of the same shape compare equal whatever their
numbers; a row, a field, a suite or a file that one run lacks is named and exits 1."""
import copy
import json
import os
import subprocess
import sys
import tempfile
import unittest

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(REPO, "scripts"))

from peakresults.compare.compare_shape import Shape, as_json, markdown  # noqa: E402
from peakresults.core import schema  # noqa: E402
from peakresults.core.load import load_run  # noqa: E402


def row(suite, test, threads, mean):
    r = {c: None for c in schema.COLUMNS}
    r.update(suite=suite, test=test, variant="v", threads=threads, metric="throughput",
             unit="GB/s", n=2, mean=mean, flags="", samples=[mean, mean])
    return r


ROWS = [row("cpu", "flops", 1, 50.0), row("cpu", "flops", 2, 99.0),
        row("memory", "seq_read", 1, 20.0)]


def write_run(folder, rows, context=None, extra_files=()):
    os.makedirs(folder)
    by_suite = {}
    for r in rows:
        by_suite.setdefault(r["suite"], []).append(r)
    for suite, rs in by_suite.items():
        with open(os.path.join(folder, f"{suite}.json"), "w", encoding="utf-8") as f:
            json.dump({"context": context or {}, "results": rs}, f)
    with open(os.path.join(folder, "context.json"), "w", encoding="utf-8") as f:
        json.dump(context or {"cpu.model": "x"}, f)
    for name in extra_files:
        os.makedirs(os.path.join(folder, os.path.dirname(name)), exist_ok=True)
        open(os.path.join(folder, name), "w", encoding="utf-8").close()
    return load_run(folder)


class CompareShape(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.n = 0

    def tearDown(self):
        self.tmp.cleanup()

    def run_of(self, rows, **kw):
        self.n += 1
        return write_run(os.path.join(self.tmp.name, f"r{self.n}"), rows, **kw)

    def test_other_numbers_same_shape(self):
        new = copy.deepcopy(ROWS)
        for r in new:
            r["mean"] *= 3.0
            r["n"] = 7
        s = Shape(self.run_of(ROWS), self.run_of(new))
        self.assertTrue(s.same)
        self.assertIn("The same shape", markdown(s, "a", "b"))

    def test_a_row_missing(self):
        s = Shape(self.run_of(ROWS), self.run_of(ROWS[:2]))
        self.assertFalse(s.same)
        self.assertEqual(s.rows, (["memory seq_read v 1 - throughput GB/s"], []))
        self.assertEqual(s.suites, (["memory"], []))

    def test_a_row_twice(self):
        s = Shape(self.run_of(ROWS), self.run_of(ROWS + [copy.deepcopy(ROWS[0])]))
        self.assertFalse(s.same)
        self.assertEqual(s.rows, ([], ["cpu flops v 1 - throughput GB/s"]))

    def test_a_field_added(self):
        new = copy.deepcopy(ROWS)
        new[1]["extra"] = 1
        s = Shape(self.run_of(ROWS), self.run_of(new))
        self.assertFalse(s.same)
        self.assertEqual(s.fields, [("cpu flops v 2 - throughput GB/s", [], ["extra"])])
        self.assertIn("only in NEW ['extra']", markdown(s, "a", "b"))

    def test_a_file_missing_but_not_logs(self):
        old = self.run_of(ROWS, extra_files=("charts/cpu.png", "logs/step.log", "raw/cpu.json"))
        new = self.run_of(ROWS, extra_files=("logs/other.log",))
        s = Shape(old, new)
        self.assertFalse(s.same)
        self.assertEqual(s.files, (["charts/cpu.png"], []))

    def test_context_keys_listed_not_deciding(self):
        s = Shape(self.run_of(ROWS, context={"a": 1, "note": "x"}),
                  self.run_of(ROWS, context={"a": 2}))
        self.assertTrue(s.same)
        self.assertEqual(s.context, (["note"], []))
        self.assertEqual(json.loads(as_json(s))["context_keys"]["only_old"], ["note"])

    def test_command_line(self):
        a, b = self.run_of(ROWS), self.run_of(ROWS[:1])
        prog = [sys.executable, os.path.join(REPO, "scripts", "peakresults"), "compare", "--shape"]
        same = subprocess.run(prog + [a.path, a.path], capture_output=True, text=True)
        self.assertEqual(same.returncode, 0, same.stderr)
        differ = subprocess.run(prog + ["--format", "json", a.path, b.path],
                                capture_output=True, text=True)
        self.assertEqual(differ.returncode, 1, differ.stderr)
        self.assertFalse(json.loads(differ.stdout)["same"])
        bad = subprocess.run(prog + ["--format", "csv", a.path, b.path],
                             capture_output=True, text=True)
        self.assertEqual(bad.returncode, 2)
        self.assertEqual(len(bad.stderr.strip().splitlines()), 1)


if __name__ == "__main__":
    unittest.main()
