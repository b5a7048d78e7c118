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
  --ec2instances FILE  ec2instances.info's instances.json (MIT; https://instances.vantage.sh/
                   instances.json, or built by github.com/vantage-sh/ec2instances.info's
                   scraper from DescribeInstanceTypes): vCPU, ebs_baseline_throughput /
                   ebs_throughput (MB/s, 128 KiB), ebs_baseline_iops / ebs_iops,
                   network_performance ("Up to 12.5 Gigabit": the burst). Optional; it
                   fills only the figures the user guide and Karpenter leave empty (the
                   newer families: m7i, c7i, c8g).
  --azure-docs DIR Microsoft's size pages (CC BY 4.0), as MicrosoftDocs/azure-docs keeps them:
                     articles/virtual-machines/dv5-dsv5-series.md, dasv5-dadsv5-series.md,
                     dpsv5-dpdsv5-series.md, fsv2-series.md
                   (https://github.com/MicrosoftDocs/azure-docs; download the four files).
                   Read: vCPUs, max uncached disk IOPS/MBps (the baseline), max burst
                   uncached disk IOPS/MBps (the maximum; "for up to N minutes at a time"),
                   the network bandwidth in Mbit/s (one figure: a limit, no burst).
  --gce-sql DIR    gcloud-compute.com's per-series facts (Apache-2.0), transcribed from
                   Google's machine-family pages, one SQL file per series:
                     https://github.com/Cyclenerd/google-cloud-compute-machine-types
                       instances/series/{e2,n2,n2d,c3,t2a}.sql
                   Read: each "SET bandwidth = 'G' WHERE name LIKE 'SERIES-%-N'" line, the
                   maximum egress (Gbit/s) of every shape with N vCPUs: a pattern row
                   "SERIES-*-N" (one figure: a limit, no burst).
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
        if lines[i].startswith("|") and i + 1 < len(lines) and re.match(r"\|\s*:?-{3}", lines[i + 1]):
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


def read_ec2instances(path: Path) -> dict:
    """{type: {column: value}} from ec2instances.info's instances.json."""
    import json
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise SourceError(f"{path}: {exc}") from None
    if not isinstance(data, list):
        raise SourceError(f"{path}: not a list of instance types")
    out = {}
    for item in data:
        if not isinstance(item, dict) or not item.get("instance_type"):
            continue
        vcpu = item.get("vCPU")
        if isinstance(vcpu, list) and vcpu:  # some scrapes keep every value seen
            vcpu = vcpu[0]
        row = {"vcpus": number(str(vcpu)) if vcpu else ""}
        for col, key in (("disk_baseline_mbps", "ebs_baseline_throughput"), ("disk_max_mbps", "ebs_throughput"),
                         ("disk_baseline_iops", "ebs_baseline_iops"), ("disk_max_iops", "ebs_iops")):
            v = item.get(key)
            row[col] = number(str(v)) if isinstance(v, (int, float)) and v > 0 else ""
        m = re.fullmatch(r"Up to (\d+(?:\.\d+)?) Gigabit", str(item.get("network_performance") or "").strip())
        row["net_burst_gbps"] = number(m.group(1)) if m else ""
        out[item["instance_type"]] = row
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


AZURE_FILES = ("dv5-dsv5-series.md", "dasv5-dadsv5-series.md", "dpsv5-dpdsv5-series.md",
               "fsv2-series.md")
# The Azure families of issue 35, 2 to 16 vCPUs (AWS's large to 4xlarge).
AZURE_TYPE = re.compile(r"Standard_(D\d+s_v5|D\d+as_v5|D\d+ps_v5|F\d+s_v2)")
AZURE_VCPUS = (2, 4, 8, 16)
AZURE_BURST = re.compile(r"bursting max for up to (\d+) minutes")


def strip_html(cell: str) -> str:
    """A cell without its footnote marks (<sup>1</sup>) and other tags."""
    return re.sub(r"<[^>]+>", "", re.sub(r"<sup>.*?</sup>", "", cell)).strip()


def iops_mbps(cell: str):
    """("IOPS", "MB/s") of a "3750/85" cell, or ("", "")."""
    m = re.fullmatch(r"\s*(\d+)\s*/\s*(\d+(?:\.\d+)?)\s*", strip_html(cell))
    return (number(m.group(1)), number(m.group(2))) if m else ("", "")


def read_azure(folder: Path, ref: str, commits: dict, date: str) -> list:
    """The rows of the Azure families from Microsoft's size pages."""
    rows = []
    for name in AZURE_FILES:
        path = folder / name
        if not path.is_file():
            raise SourceError(f"{path}: not found")
        text = path.read_text(encoding="utf-8")
        m = AZURE_BURST.search(text)
        burst_minutes = m.group(1) if m else ""
        for header, cells_rows in markdown_tables(text):
            head = [strip_html(h) for h in header]
            if not head or head[0] != "Size":
                continue
            col = {h: i for i, h in enumerate(head)}
            base = col.get("Max uncached disk throughput: IOPS/MBps")
            burst = col.get("Max burst uncached disk throughput: IOPS/MBps")
            net = next((i for h, i in col.items() if h.endswith("network bandwidth (Mbps)")), None)
            vcpu = next((i for h, i in col.items() if h.startswith("vCPU")), None)
            if base is None or net is None or vcpu is None:
                continue
            for cells in cells_rows:
                cells = [strip_html(c) for c in cells]
                if len(cells) != len(head) or not AZURE_TYPE.fullmatch(cells[0]):
                    continue
                vcpus = number(cells[vcpu])
                if not vcpus or float(vcpus) not in AZURE_VCPUS:
                    continue
                row = {c: "" for c in COLUMNS}
                b_iops, b_mbps = iops_mbps(cells[base])
                m_iops, m_mbps = iops_mbps(cells[burst]) if burst is not None else (b_iops, b_mbps)
                mbit = cells[net].split("/")[-1]  # Fsv2: "NICs/Mbps"
                gbps = f"{float(number(mbit)) / 1000:g}" if number(mbit) else ""
                row.update(provider="azure", instance_type=cells[0], vcpus=vcpus,
                           net_baseline_gbps=gbps, net_burst_gbps=gbps,
                           disk_baseline_mbps=b_mbps, disk_max_mbps=m_mbps,
                           disk_baseline_iops=b_iops, disk_max_iops=m_iops,
                           burst_minutes=burst_minutes if burst is not None else "",
                           source=f"{ref}/{name[:-3]}" + (f"@{commits[name][:7]}" if name in commits else ""),
                           date_read=date)
                rows.append(row)
    return rows


GCE_SERIES = ("e2", "n2", "n2d", "c3", "t2a")
GCE_LINE = re.compile(r"UPDATE instances SET bandwidth\s*=\s*'([0-9.]+)'.*WHERE name LIKE '([a-z0-9%-]+)';")


def read_gce(folder: Path, ref: str, date: str) -> list:
    """Pattern rows ("e2-*-2") and shared-core rows ("e2-micro") of the GCE families."""
    rows = []
    for series in GCE_SERIES:
        path = folder / f"{series}.sql"
        if not path.is_file():
            raise SourceError(f"{path}: not found")
        for line in path.read_text(encoding="utf-8").splitlines():
            m = GCE_LINE.search(line)
            if not m:
                continue
            gbps, like = number(m.group(1)), m.group(2)
            # 'c3-%-4%' is every c3 shape with 4 vCPUs (and its -lssd twin): the pattern
            # keeps the vCPU count last, as every other line has it
            like = like[:-1] if like.count("%") == 2 and like.endswith("%") else like
            if like.count("%") > 1 or not like.startswith(series + "-"):
                continue
            row = {c: "" for c in COLUMNS}
            row.update(provider="gce", instance_type=like.replace("%", "*"),
                       net_baseline_gbps=gbps, net_burst_gbps=gbps,
                       source=f"{ref}/{series}.sql", date_read=date)
            rows.append(row)
    if not rows:
        raise SourceError(f"{folder}: no bandwidth lines")
    return rows


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


def aws_rows(docs: dict, karpenter: dict, docs_ref: str, karpenter_ref: str, date: str,
             ec2i: dict | None = None, ec2i_ref: str = ""):
    """One row per AWS type of the families: the user guide first, Karpenter where it lacks
    the network baseline, ec2instances.info for any figure both lack."""
    for family in AWS_FAMILIES:
        for size in AWS_SIZES:
            name = f"{family}.{size}"
            figures = dict(docs.get(name, {}))
            sources = [docs_ref] if figures else []
            if not figures.get("net_baseline_gbps") and name in karpenter:
                figures["net_baseline_gbps"] = karpenter[name]
                sources.append(karpenter_ref)
            extra = {c: v for c, v in (ec2i or {}).get(name, {}).items() if v and not figures.get(c)}
            if extra:
                figures.update(extra)
                sources.append(ec2i_ref)
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
    ap.add_argument("--ec2instances", type=Path, help="ec2instances.info's instances.json")
    ap.add_argument("--ec2instances-ref", default="ec2instances-info",
                    help="the source name its figures carry (add @DATE or @COMMIT)")
    ap.add_argument("--azure-docs", type=Path, help="the four Azure size pages' folder")
    ap.add_argument("--azure-docs-ref", default="azure-docs",
                    help="the source name Azure rows carry (/FILE is added)")
    ap.add_argument("--azure-commit", action="append", default=[], metavar="FILE=COMMIT",
                    help="the azure-docs commit FILE was read at (its rows' source names it)")
    ap.add_argument("--gce-sql", type=Path, help="instances/series of gcloud-compute.com's repository")
    ap.add_argument("--gce-sql-ref", default="gcloud-compute",
                    help="the source name GCE rows carry (add @COMMIT; /SERIES.sql is added)")
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
        ec2i = read_ec2instances(args.ec2instances) if args.ec2instances else {}
        commits = dict(c.split("=", 1) for c in args.azure_commit if "=" in c)
        azure = read_azure(args.azure_docs, args.azure_docs_ref, commits, args.date) if args.azure_docs else []
        gce = read_gce(args.gce_sql, args.gce_sql_ref, args.date) if args.gce_sql else []
    except (SourceError, OSError, UnicodeDecodeError) as exc:
        print(f"build.py: {exc}", file=sys.stderr)
        return 2
    rows = list(aws_rows(docs, karpenter, args.aws_docs_ref, args.karpenter_ref, args.date,
                         ec2i, args.ec2instances_ref))
    rows += gce + azure
    rows = merge_facts(rows, facts)
    with args.output.open("w", encoding="utf-8") as out:
        write_tsv(rows, out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
