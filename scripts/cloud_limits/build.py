#!/usr/bin/env python3
"""Build data/cloud_limits.tsv, the published limits of cloud instance types, from public
sources downloaded beforehand (no network here). Standard library only.

Sources (their licences in docs/cloud.md, "Published limits"):

  --aws-docs DIR   The Amazon EC2 User Guide's markdown (CC BY-SA 4.0), as the
                   awsdocs/amazon-ec2-user-guide repository kept it in doc_source/ (its last
                   content commit d289961, May 2023; the repository was emptied in June 2023):
                     git clone https://github.com/awsdocs/amazon-ec2-user-guide
                     git -C amazon-ec2-user-guide checkout d289961 -- doc_source
                   Read: ebs-optimized.md (EBS baseline/maximum MB/s and IOPS; an asterisk:
                   the maximum holds 30 minutes a day), general-purpose-instances.md,
                   compute-optimized-instances.md, memory-optimized-instances.md (vCPUs,
                   network baseline and burst Gbit/s).
  --karpenter FILE Karpenter's generated bandwidth map (Apache-2.0), the baseline network
                   bandwidth in Mbit/s of every EC2 type:
                     https://github.com/aws/karpenter-provider-aws/blob/main/
                       pkg/providers/instancetype/zz_generated.bandwidth.go
                   Used for a type the user guide's tables do not have (newer families).
  --facts FILE     The hand-kept facts (scripts/cloud_limits/facts.tsv): rows no
                   machine-readable source gives, each with its own source URL and date.
                   A fact replaces the figures it gives; its empty cells leave the others.

A figure no source gives stays empty: unknown, never guessed.

  python3 scripts/cloud_limits/build.py --aws-docs DIR --karpenter FILE \\
      --facts scripts/cloud_limits/facts.tsv --date YYYY-MM-DD -o data/cloud_limits.tsv
"""
import argparse
import re
import sys
from pathlib import Path

# The table's columns, in order (scripts/cloud_limits/gen_c.py checks the same list).
COLUMNS = ("provider", "instance_type", "vcpus", "net_baseline_gbps", "net_burst_gbps",
           "net_per_vcpu_gbps", "net_cap_gbps", "disk_baseline_mbps", "disk_max_mbps",
           "disk_baseline_iops", "disk_max_iops", "burst_minutes", "source", "date_read")

# The families of issue 35, sizes large to 4xlarge (t3 stops at 2xlarge).
AWS_FAMILIES = ("m5", "m6i", "m7i", "c5", "c6i", "c7i", "r6i", "t3", "m6g", "m7g", "c7g", "c8g")
AWS_SIZES = ("large", "xlarge", "2xlarge", "4xlarge")

# The user guide states the EBS burst duration once, above its tables: "Instances indicated
# with an asterisk (*) can support maximum performance for 30 minutes at least once every
# 24 hours". The script checks the sentence is there before it uses the figure.
EBS_BURST_SENTENCE = re.compile(r"maximum performance for (\d+) minutes at least once every 24")

AWS_DOCS_SOURCE = "aws-ec2-user-guide"
KARPENTER_SOURCE = "karpenter-bandwidth"


class SourceError(Exception):
    """A source file that is missing or does not read as expected."""


def unescape(cell: str) -> str:
    """The user guide's markdown escapes dots, asterisks and parentheses with a backslash."""
    return re.sub(r"\\(.)", r"\1", cell).strip()


def number(cell: str) -> str:
    """A cell as a plain decimal string, or "" when it holds no number."""
    text = unescape(cell).replace(",", "")
    try:
        value = float(text)
    except ValueError:
        return ""
    return f"{value:g}"


def markdown_tables(text: str):
    """Yield (header cells, rows of cells) for each '|' table of a markdown file."""
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        if lines[i].startswith("|") and i + 1 < len(lines) and lines[i + 1].startswith("| ---"):
            header = [unescape(c) for c in lines[i].strip().strip("|").split("|")]
            rows = []
            i += 2
            while i < len(lines) and lines[i].startswith("|"):
                rows.append([c for c in lines[i].strip().strip("|").split("|")])
                i += 1
            yield header, rows
        else:
            i += 1


def type_cell(cell: str):
    """(instance type, marked with an asterisk) of a table's first cell."""
    text = unescape(cell)
    starred = text.endswith("*")
    name = text.rstrip("*† ").strip()
    return name, starred


def read_aws_docs(folder: Path) -> dict:
    """{type: {column: value}} from the user guide's tables."""
    out: dict = {}
    ebs = folder / "ebs-optimized.md"
    if not ebs.is_file():
        raise SourceError(f"{ebs}: not found")
    ebs_text = ebs.read_text(encoding="utf-8")
    m = EBS_BURST_SENTENCE.search(unescape(ebs_text))
    burst_minutes = m.group(1) if m else ""
    for header, rows in markdown_tables(ebs_text):
        if not header or header[0] != "Instance size" or len(header) != 7:
            continue
        for cells in rows:
            name, starred = type_cell(cells[0])
            row = out.setdefault(name, {})
            if len(cells) == 7:  # baseline and maximum
                row.update(disk_baseline_mbps=number(cells[3]), disk_max_mbps=number(cells[4]),
                           disk_baseline_iops=number(cells[5]), disk_max_iops=number(cells[6]))
            elif len(cells) == 4:  # one figure: the maximum holds without limit
                mbps, iops = number(cells[2]), number(cells[3])
                row.update(disk_baseline_mbps=mbps, disk_max_mbps=mbps,
                           disk_baseline_iops=iops, disk_max_iops=iops)
            if starred and burst_minutes:
                row["burst_minutes"] = burst_minutes
    for page in ("general-purpose-instances.md", "compute-optimized-instances.md",
                 "memory-optimized-instances.md"):
        path = folder / page
        if not path.is_file():
            raise SourceError(f"{path}: not found")
        for header, rows in markdown_tables(path.read_text(encoding="utf-8")):
            if header[:2] == ["Instance type", "Default vCPUs"]:
                for cells in rows:
                    name, _ = type_cell(cells[0])
                    out.setdefault(name, {})["vcpus"] = number(cells[1])
            elif header[:3] == ["Instance type", "Baseline bandwidth (Gbps)",
                                "Burst bandwidth (Gbps)"]:
                for cells in rows:
                    name, _ = type_cell(cells[0])
                    out.setdefault(name, {}).update(net_baseline_gbps=number(cells[1]),
                                                    net_burst_gbps=number(cells[2]))
    return out


KARPENTER_ENTRY = re.compile(r'^\s*"([a-z0-9.-]+)":\s*(\d+),\s*$')


def read_karpenter(path: Path) -> dict:
    """{type: baseline Gbit/s as a string} from zz_generated.bandwidth.go (Mbit/s)."""
    if not path.is_file():
        raise SourceError(f"{path}: not found")
    out = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        m = KARPENTER_ENTRY.match(line)
        if m:
            out[m.group(1)] = f"{int(m.group(2)) / 1000:g}"
    if not out:
        raise SourceError(f"{path}: no \"type\": Mbit/s entries")
    return out


def read_facts(path: Path) -> list:
    """The hand-kept rows: the table's columns, tab-separated, '#' comments."""
    rows = []
    with path.open(encoding="utf-8") as f:
        header = None
        for n, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line.strip() or line.startswith("#"):
                continue
            cells = line.split("\t")
            if header is None:
                header = cells
                if tuple(header) != COLUMNS:
                    raise SourceError(f"{path}:{n}: header is not the table's columns")
                continue
            if len(cells) != len(COLUMNS):
                raise SourceError(f"{path}:{n}: {len(cells)} cells, expected {len(COLUMNS)}")
            row = dict(zip(COLUMNS, cells))
            if not row["source"] or not row["date_read"]:
                raise SourceError(f"{path}:{n}: a fact needs its source and date_read")
            rows.append(row)
    return rows


def aws_rows(docs: dict, karpenter: dict, docs_ref: str, karpenter_ref: str, date: str):
    """One row per AWS type of the families: the user guide first, Karpenter where it lacks
    the network baseline."""
    for family in AWS_FAMILIES:
        for size in AWS_SIZES:
            name = f"{family}.{size}"
            figures = dict(docs.get(name, {}))
            sources = [docs_ref] if figures else []
            if not figures.get("net_baseline_gbps") and name in karpenter:
                figures["net_baseline_gbps"] = karpenter[name]
                sources.append(karpenter_ref)
            if not sources:
                continue  # a size the family does not have (t3.4xlarge)
            row = {c: "" for c in COLUMNS}
            row.update(figures, provider="aws", instance_type=name,
                       source="+".join(sources), date_read=date)
            yield row


def merge_facts(rows: list, facts: list) -> list:
    """Apply the facts: a listed row takes each figure a fact gives; a new one is added."""
    index = {(r["provider"], r["instance_type"]): r for r in rows}
    for fact in facts:
        key = (fact["provider"], fact["instance_type"])
        if key not in index:
            index[key] = dict(fact)
            rows.append(index[key])
            continue
        row = index[key]
        for col in COLUMNS[2:12]:
            if fact[col]:
                row[col] = fact[col]
        row["source"] = row["source"] + "+" + fact["source"]
        row["date_read"] = fact["date_read"]
    return rows


def write_tsv(rows: list, out) -> None:
    out.write("# Published limits of cloud instance types: generated by "
              "scripts/cloud_limits/build.py\n")
    out.write("# (docs/cloud.md, \"Published limits\"); an empty cell is not published "
              "in the sources read.\n")
    out.write("\t".join(COLUMNS) + "\n")
    for row in rows:
        out.write("\t".join(row[c] for c in COLUMNS) + "\n")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--aws-docs", type=Path, required=True, help="doc_source folder")
    ap.add_argument("--aws-docs-ref", default=AWS_DOCS_SOURCE + "@d289961",
                    help="the source name rows from the user guide carry")
    ap.add_argument("--karpenter", type=Path, required=True, help="zz_generated.bandwidth.go")
    ap.add_argument("--karpenter-ref", default=KARPENTER_SOURCE,
                    help="the source name rows from Karpenter carry (add @COMMIT)")
    ap.add_argument("--facts", type=Path, required=True, help="facts.tsv")
    ap.add_argument("--date", required=True, help="the date the sources were read, YYYY-MM-DD")
    ap.add_argument("-o", "--output", type=Path, required=True)
    args = ap.parse_args(argv)
    if not re.fullmatch(r"\d{4}-\d\d-\d\d", args.date):
        print(f"build.py: --date '{args.date}' is not YYYY-MM-DD", file=sys.stderr)
        return 2
    try:
        docs = read_aws_docs(args.aws_docs)
        karpenter = read_karpenter(args.karpenter)
        facts = read_facts(args.facts)
    except (SourceError, OSError, UnicodeDecodeError) as exc:
        print(f"build.py: {exc}", file=sys.stderr)
        return 2
    rows = list(aws_rows(docs, karpenter, args.aws_docs_ref, args.karpenter_ref, args.date))
    rows = merge_facts(rows, facts)
    with args.output.open("w", encoding="utf-8") as out:
        write_tsv(rows, out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
