"""The report names the core it believes and why (issue 34): a masked model number is said
on the summary's first screen with the evidence, a consistent one with what agrees, a core
with no entry as measured; results older than cpu.identity get no line (nothing says why)."""
import os
import sys
import unittest

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(REPO, "scripts"))

from peakresults.report import report_machine, report_summary  # noqa: E402

MASKED_NOTE = ("model 167 says rocketlake; avx512_fp16, amx_tile and a 2 MiB L2 contradict it; all "
               "that is reported fits sapphirerapids-class: sapphirerapids (Golden Cove server)")


class CoreLine(unittest.TestCase):
    def test_masked(self):
        c = {"peak.uarch": "sapphirerapids-class", "peak.uarch_source": "table",
             "cpu.identity": "masked", "cpu.identity_note": MASKED_NOTE}
        line = report_machine.core_line(c)
        self.assertTrue(line.startswith("Core: sapphirerapids-class (table). **The model number is masked**"))
        self.assertIn("model 167 says rocketlake", line)
        self.assertIn("amx_tile", line)
        # on the summary's first screen, below the machine row, and in the Machine section
        summary = report_summary.machine_line(dict(c, **{"cpu.model": "Intel(R) Xeon(R) Processor"}))
        self.assertEqual(summary[-1], line)
        self.assertIn("| Core | sapphirerapids-class (table). **The model number is masked**",
                      "\n".join(report_machine.machine(c)))

    def test_masked_no_entry(self):
        c = {"peak.uarch": "measured", "peak.uarch_source": "measured", "cpu.identity": "masked",
             "cpu.identity_note": "model 167 says rocketlake; amx_tile contradicts it; no table entry "
                                  "fits all that is reported: no table entry used, measured"}
        line = report_machine.core_line(c)
        self.assertIn("measured by the probe", line)
        self.assertIn("masked", line)
        self.assertNotIn("rocketlake (table)", line)

    def test_consistent_and_old(self):
        c = {"peak.uarch": "zen3", "peak.uarch_source": "table", "cpu.identity": "consistent",
             "cpu.identity_note": "model 1 says zen3; avx2, vaes and a 512 KiB L2 agree"}
        self.assertEqual(report_machine.core_line(c),
                         "Core: zen3 (table); the model number is consistent: model 1 says zen3; "
                         "avx2, vaes and a 512 KiB L2 agree.")
        old = {"peak.uarch": "rocketlake", "peak.uarch_source": "table"}
        self.assertIsNone(report_machine.core_line(old))
        self.assertIsNone(report_machine.core_line({}))
        self.assertEqual(report_machine.core_lines({}), [])


if __name__ == "__main__":
    unittest.main()
