"""fio --output-format=json -> disk rows. Job names are TEST.ENGINE.THREADS.BLOCK
(scripts/baseline/fio.sh); bw_bytes / 10^6 = MB/s, clat_ns / 1000 = us; group_reporting
sums the threads. io_uring at depth D is diskbench's variant uring-qdD."""

from . import load_json, row

TOOL = "fio"


def _job(j: dict, gopt: dict) -> str:
    o = dict(gopt)
    o.update(j.get("job options") or {})
    keys = ("rw", "bs", "ioengine", "iodepth", "numjobs", "size", "direct", "mem", "end_fsync",
            "overwrite", "runtime")
    return "fio " + " ".join(f"--{k}={o[k]}" for k in keys if k in o)


def parse(path: str, ctx: dict) -> tuple:
    doc = load_json(path, ("fio version", "jobs"))
    ver = doc["fio version"]
    gopt = doc.get("global options") or {}
    rows = []
    for j in doc["jobs"]:
        if j.get("error", 0) != 0:
            continue
        parts = j["jobname"].split(".")
        if len(parts) != 4:
            continue
        test, eng, thr, bs = parts[0], parts[1], int(parts[2]), int(parts[3])
        opts = dict(gopt)
        opts.update(j.get("job options") or {})
        variant = f"uring-qd{opts.get('iodepth', '32')}" if eng == "io_uring" else eng
        io = j["write"] if "write" in test else j["read"]
        mem = opts.get("mem", "malloc")
        config = f"mem={mem};direct={opts.get('direct', '0')};runtime_ms={io.get('runtime')}"
        if "huge" in mem:
            config += ";buffer_pages=hugetlb"
        elif mem.startswith("mmapshared:"):  # diskbench's --buffer-dir files: the same pages
            config += ";buffer_pages=shared"
        job = _job(j, gopt)

        def add(metric, unit, v, **st):
            rows.append(row(TOOL, ver, ("disk", test, variant, thr, bs, metric, unit), v,
                            job=job, config=config, **st))
        if test.startswith("rand"):
            add("iops", "IOPS", io["iops"])
        add("throughput", "MB/s", io["bw_bytes"] / 1e6)
        pc = (io.get("clat_ns") or {}).get("percentile") or {}

        def p(k):
            return pc[k] / 1000 if k in pc else None
        add("latency", "us", io["clat_ns"]["mean"] / 1000,
            stddev=io["clat_ns"].get("stddev", 0) / 1000 or None,
            min=io["clat_ns"].get("min", 0) / 1000 or None, max=io["clat_ns"].get("max", 0) / 1000 or None,
            p50=p("50.000000"), p90=p("90.000000"), p99=p("99.000000"), p999=p("99.900000"))
    return ver, rows
