"""The published limits table (issue 35 §2): build.py on small source fixtures (the EC2 user
guide's markdown tables, Karpenter's bandwidth map, Microsoft's size pages, gcloud-compute's
per-series SQL, a facts file) writes the expected rows
with their sources; the shipped data/cloud_limits.tsv parses, every row names its source and
date, m5.large holds AWS's published figures; a malformed table fails gen_c.py (exit 2, one
line), as it then fails the build."""
import os
import subprocess
import sys
import tempfile
import unittest

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
FIX = os.path.join(REPO, "tests", "fixtures", "cloud_limits")
TOOLS = os.path.join(REPO, "scripts", "cloud_limits")
sys.path.insert(0, TOOLS)
sys.path.insert(0, os.path.join(REPO, "scripts"))

import build  # noqa: E402
import gen_c  # noqa: E402
from peakresults.report import report_cloud  # noqa: E402


def run(*args):
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, check=False)


class BuildFromFixtures(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        out = os.path.join(self.tmp.name, "limits.tsv")
        p = run(os.path.join(TOOLS, "build.py"), "--aws-docs", os.path.join(FIX, "aws"),
                "--karpenter", os.path.join(FIX, "karpenter_bandwidth.go"), "--karpenter-ref",
                "karpenter-bandwidth@test", "--azure-docs", os.path.join(FIX, "azure"),
                "--azure-commit", "fsv2-series.md=0123456789abcdef", "--gce-sql", os.path.join(FIX, "gce"),
                "--gce-sql-ref", "gcloud-compute@test", "--ec2instances", os.path.join(FIX, "instances.json"),
                "--ec2instances-ref", "ec2instances-info@test", "--facts", os.path.join(FIX, "facts.tsv"),
                "--date", "2026-11-27", "-o", out)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.rows = {(r["provider"], r["instance_type"]): r for r in gen_c.parse(out)}

    def tearDown(self):
        self.tmp.cleanup()

    def test_m5_large(self):
        r = self.rows[("aws", "m5.large")]
        self.assertEqual((r["net_baseline_gbps"], r["net_burst_gbps"]), (0.75, 10))
        self.assertEqual((r["disk_baseline_mbps"], r["disk_max_mbps"]), (81.25, 593.75))
        self.assertEqual((r["disk_baseline_iops"], r["disk_max_iops"]), (3600, 18750))
        self.assertEqual((r["burst_minutes"], r["vcpus"]), (30, 2))
        self.assertEqual(r["source"], "aws-ec2-user-guide@d289961")
        self.assertEqual(r["date_read"], "2026-11-27")

    def test_no_asterisk_no_burst(self):
        r = self.rows[("aws", "m5.4xlarge")]
        self.assertEqual(r["disk_baseline_mbps"], r["disk_max_mbps"])
        self.assertIsNone(r["burst_minutes"])

    def test_karpenter_and_ec2instances_fill_what_the_guide_lacks_and_a_fact_wins(self):
        # the fixture's figures are made up: they only show which source fills which cell
        r = self.rows[("aws", "m7i.large")]
        self.assertEqual(r["net_baseline_gbps"], 0.781)  # Karpenter
        self.assertEqual((r["disk_baseline_mbps"], r["disk_max_mbps"]), (11.5, 111))  # ec2instances.info
        self.assertEqual((r["disk_baseline_iops"], r["disk_max_iops"]), (1111, 11111))
        self.assertEqual(r["net_burst_gbps"], 12.5)  # ec2instances.info's 11, then the fact's 12.5
        self.assertIsNone(r["burst_minutes"])  # no source gave it: unknown, not guessed
        self.assertEqual(r["source"], "karpenter-bandwidth@test+ec2instances-info@test+https://example.org/m7i")

    def test_ec2instances_never_overrides_the_guide(self):
        r = self.rows[("aws", "m5.large")]
        self.assertEqual((r["net_burst_gbps"], r["disk_max_mbps"]), (10, 593.75))
        self.assertNotIn("ec2instances", r["source"])

    def test_a_figure_no_source_gives_stays_empty(self):
        r = self.rows[("aws", "m6g.large")]  # in the EBS table, not in the network fixture
        self.assertIsNone(r["net_baseline_gbps"])
        self.assertEqual(r["disk_max_mbps"], 593.75)

    def test_azure(self):
        r = self.rows[("azure", "Standard_D2s_v5")]
        self.assertEqual((r["vcpus"], r["net_baseline_gbps"], r["net_burst_gbps"]), (2, 12.5, 12.5))
        self.assertEqual((r["disk_baseline_mbps"], r["disk_max_mbps"]), (85, 1200))
        self.assertEqual((r["disk_baseline_iops"], r["disk_max_iops"], r["burst_minutes"]), (3750, 10000, 30))
        self.assertEqual(r["source"], "azure-docs/dv5-dsv5-series")
        f = self.rows[("azure", "Standard_F4s_v2")]  # no burst column: the maximum is the baseline
        self.assertEqual((f["net_burst_gbps"], f["disk_baseline_mbps"], f["disk_max_mbps"]), (1.75, 95, 95))
        self.assertIsNone(f["burst_minutes"])
        self.assertEqual(f["source"], "azure-docs/fsv2-series@0123456")

    def test_gce_patterns(self):
        self.assertEqual(self.rows[("gce", "e2-*-2")]["net_burst_gbps"], 4)
        self.assertEqual(self.rows[("gce", "e2-*-16")]["net_baseline_gbps"], 16)
        self.assertEqual(self.rows[("gce", "e2-micro")]["net_burst_gbps"], 1)
        # 'c3-%-4%' keeps its vCPU count last, and 'c3-%-44%' stays apart from it
        self.assertEqual(self.rows[("gce", "c3-*-4")]["net_burst_gbps"], 23)
        self.assertEqual(self.rows[("gce", "c3-*-44")]["net_burst_gbps"], 32)
        self.assertEqual(self.rows[("gce", "c3-*-4")]["source"], "gcloud-compute@test/c3.sql")

    def test_rule_row(self):
        r = self.rows[("gce", "fx-*")]
        self.assertEqual((r["net_per_vcpu_gbps"], r["net_cap_gbps"]), (2, 16))

    def test_a_missing_source_is_exit_2(self):
        p = run(os.path.join(TOOLS, "build.py"), "--aws-docs", self.tmp.name, "--karpenter",
                os.path.join(FIX, "karpenter_bandwidth.go"), "--facts",
                os.path.join(FIX, "facts.tsv"), "--date", "2026-11-27", "-o",
                os.path.join(self.tmp.name, "x.tsv"))
        self.assertEqual(p.returncode, 2)
        self.assertEqual(len(p.stderr.strip().splitlines()), 1, p.stderr)


class ShippedTable(unittest.TestCase):
    def setUp(self):
        self.rows = gen_c.parse(os.path.join(REPO, "data", "cloud_limits.tsv"))

    def test_every_row_names_its_source_and_date(self):
        for r in self.rows:
            self.assertTrue(r["source"], r)
            self.assertRegex(r["date_read"], r"^\d{4}-\d\d-\d\d$")
            for part in r["source"].split("+"):
                self.assertTrue(part.startswith(("aws-ec2-user-guide@", "karpenter-bandwidth@", "azure-docs/",
                                                 "gcloud-compute@", "ec2instances-info@", "https://")),
                                f"{r['instance_type']}: source {part!r} is not one docs/cloud.md names")

    def test_m5_large(self):
        r = next(r for r in self.rows if r["instance_type"] == "m5.large")
        self.assertEqual((r["net_baseline_gbps"], r["net_burst_gbps"]), (0.75, 10))
        self.assertEqual((r["disk_baseline_mbps"], r["disk_max_mbps"]), (81.25, 593.75))
        self.assertEqual((r["disk_baseline_iops"], r["disk_max_iops"], r["burst_minutes"]), (3600, 18750, 30))

    def test_the_aws_families(self):
        types = {r["instance_type"] for r in self.rows if r["provider"] == "aws"}
        for fam in build.AWS_FAMILIES:
            self.assertIn(f"{fam}.large", types)

    def test_the_gce_and_azure_families(self):
        types = {r["instance_type"] for r in self.rows}
        for t in ("e2-*-2", "n2-*-2", "n2d-*-2", "c3-*-4", "t2a-*-2", "Standard_D2s_v5", "Standard_D2as_v5",
                  "Standard_D2ps_v5", "Standard_F2s_v2"):
            self.assertIn(t, types)


class Malformed(unittest.TestCase):
    def test_each_fixture_fails_with_one_line(self):
        for name, words in (("malformed_no_source.tsv", "source"), ("malformed_number.tsv", "not a number"),
                            ("malformed_cells.tsv", "cells"), ("malformed_swapped.tsv", "above"),
                            ("malformed_rate.tsv", "per-vCPU")):
            with self.subTest(name=name):
                p = run(os.path.join(TOOLS, "gen_c.py"), "--check", os.path.join(FIX, name))
                self.assertEqual(p.returncode, 2, p.stdout)
                lines = p.stderr.strip().splitlines()
                self.assertEqual(len(lines), 1, p.stderr)
                self.assertIn(words, lines[0])
                self.assertIn(f"{name}:2", lines[0])  # the file and the line

    def test_the_shipped_table_passes(self):
        p = run(os.path.join(TOOLS, "gen_c.py"), "--check", os.path.join(REPO, "data", "cloud_limits.tsv"))
        self.assertEqual(p.returncode, 0, p.stderr)


class SummaryWords(unittest.TestCase):
    """report_cloud: which limit a figure is against, and both efficiencies."""
    CTX = {"cloud.instance_type": "m5.large", "peak.disk_mbps_source": "published",
           "cloud.limit.disk_max_mbps": 593.75, "cloud.limit.disk_baseline_mbps": 81.25,
           "cloud.limit.net_burst_gbps": 12.5, "cloud.limit.net_baseline_gbps": 12.5,
           "cloud.limit.source": "aws-ec2-user-guide@d289961, read 2026-11-27", "cloud.limit.burst_minutes": 30}

    def test_burst_and_baseline(self):
        r = {"suite": "disk", "metric": "throughput", "unit": "MB/s", "theoretical": 593.75,
             "efficiency": 0.5, "flags": "buffer_pages=thp;of_baseline=3.654"}
        self.assertTrue(report_cloud.is_published(r, self.CTX))
        self.assertEqual(report_cloud.peak_words(r, self.CTX), "593.8 MB/s (published burst of m5.large)")
        self.assertEqual(report_cloud.efficiency_words(r, self.CTX),
                         "50.0% of the published burst; 365.4% of the baseline (81.25 MB/s)")
        self.assertIn("holds up to 30 minutes", report_cloud.source_line(self.CTX)[1])

    def test_a_limit_with_no_burst(self):
        r = {"suite": "network", "metric": "throughput", "unit": "Gbit/s", "theoretical": 12.5,
             "efficiency": 0.8, "flags": "theoretical=published;of_baseline=0.800"}
        self.assertTrue(report_cloud.is_published(r, self.CTX))
        self.assertEqual(report_cloud.peak_words(r, self.CTX), "12.50 Gbit/s (published limit of m5.large, no burst)")
        self.assertEqual(report_cloud.efficiency_words(r, self.CTX), "80.0% of the published limit (its baseline: no burst)")

    def test_not_published(self):
        r = {"suite": "network", "metric": "throughput", "unit": "Gbit/s", "theoretical": 40,
             "efficiency": 0.5, "flags": "theoretical=memcpy"}
        self.assertFalse(report_cloud.is_published(r, self.CTX))
        # net.gbps published, but a loopback row's peak is the memory copy (a full run did this)
        self.assertFalse(report_cloud.is_published(r, dict(self.CTX, **{"peak.net_gbps_source": "published"})))
        r = {"suite": "disk", "metric": "throughput", "unit": "MB/s", "theoretical": 250, "efficiency": 0.5, "flags": ""}
        self.assertFalse(report_cloud.is_published(r, {"peak.disk_mbps_source": "config"}))
        self.assertEqual(report_cloud.source_line({}), [])


if __name__ == "__main__":
    unittest.main()
