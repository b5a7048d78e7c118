"""The cloud in the results program (docs/cloud.md): PEAKBENCH_CLOUD as run_all.sh builds
it from peakinfo's context (cloud_env.py, read back by common/machine/peak_cloud.c), and the
Machine section's Cloud row."""
import json
import os
import sys
import tempfile
import unittest

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(REPO, "scripts"))

from peakresults.core import cloud_env  # noqa: E402
from peakresults.report.report_machine import machine  # noqa: E402

AWS = {"cloud.provider": "aws", "cloud.instance_type": "m5.large", "cloud.source": "dmi",
       "cloud.note": "DMI sys_vendor and product_name"}
NONE = {"cloud.provider": "unknown", "cloud.instance_type": "unknown", "cloud.source": "unknown",
        "cloud.note": "no DMI (/sys/class/dmi/id)"}


class CloudEnv(unittest.TestCase):
    def test_from_context(self):
        self.assertEqual(cloud_env.from_context(AWS), "aws,m5.large,dmi")
        self.assertEqual(cloud_env.from_context(NONE), "unknown,,unknown")
        azure = {"cloud.provider": "azure", "cloud.instance_type": "unknown", "cloud.source": "dmi"}
        self.assertEqual(cloud_env.from_context(azure), "azure,,dmi")
        gce = {"cloud.provider": "gce", "cloud.instance_type": "n2-standard-4",
               "cloud.source": "metadata"}
        self.assertEqual(cloud_env.from_context(gce), "gce,n2-standard-4,metadata")

    def test_malformed(self):
        self.assertIsNone(cloud_env.from_context({}))  # results before cloud.*
        self.assertIsNone(cloud_env.from_context(dict(AWS, **{"cloud.source": "guess"})))
        self.assertIsNone(cloud_env.from_context(dict(AWS, **{"cloud.instance_type": "m5,large"})))
        self.assertIsNone(cloud_env.from_context(dict(AWS, **{"cloud.provider": "Amazon EC2"})))

    def test_from_file(self):
        with tempfile.TemporaryDirectory() as d:
            f = os.path.join(d, "cache.json")
            with open(f, "w", encoding="utf-8") as out:
                json.dump({"context": AWS, "results": []}, out)
            self.assertEqual(cloud_env.from_file(f), "aws,m5.large,dmi")
            with open(f, "w", encoding="utf-8") as out:
                out.write("{not json")
            self.assertIsNone(cloud_env.from_file(f))
            self.assertIsNone(cloud_env.from_file(os.path.join(d, "none.json")))

    def test_machine_row(self):
        lines = machine(dict(AWS, **{"os.kernel": "Linux 6.1"}))
        row = [ln for ln in lines if ln.startswith("| Cloud |")]
        self.assertEqual(row, ["| Cloud | aws, instance type m5.large (from DMI) |"])
        self.assertLess(lines.index(row[0]), len(lines))
        self.assertEqual(lines[lines.index(row[0]) - 1][:6], "| OS |")
        lines = machine(dict(NONE))
        self.assertIn("| Cloud | none identified (no DMI (/sys/class/dmi/id)) |", lines)
        # Results from before the cloud keys: no row, nothing claimed.
        self.assertFalse([ln for ln in machine({"os.kernel": "x"}) if ln.startswith("| Cloud |")])


if __name__ == "__main__":
    unittest.main()
