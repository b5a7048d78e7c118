"""The clock under each ISA's heavy instructions, in one summary line: cpubench measures
it before its sweep (cpu.clock_ghz.<load>, cpu.clock_ratio.<load>: the imul chain with
that class's instructions between its links, checked) and every FMA or vpmulld row on
ymm/zmm takes its peak at that clock (docs/benchmarks/cpu.md)."""
from .report_fmt import isnum

# The loads in the order the line names them, with the words a reader knows them by.
LOADS = (("avx512_fma", "AVX-512 FMA"), ("avx512_imul", "AVX-512 vpmulld"))


def clock_lines(cpu_ctx: dict) -> list[str]:
    """One line naming each load's clock and its share of the scalar clock, or why it was
    refused (its rows then stand at the scalar clock); [] when cpubench measured none."""
    parts = []
    for key, label in LOADS:
        ghz = cpu_ctx.get(f"cpu.clock_ghz.{key}")
        ratio = cpu_ctx.get(f"cpu.clock_ratio.{key}")
        if isnum(ghz) and isnum(ratio):
            parts.append(f"{label}: {ghz:.2f} GHz, {ratio * 100:.0f}% of the scalar clock")
        elif isinstance(ghz, str) and ghz:
            parts.append(f"{label}: {ghz} (its rows at the scalar clock)")
    if not parts:
        return []
    scalar = cpu_ctx.get("cpu.clock_ghz.scalar")
    head = f"Clock under each ISA (scalar {scalar:.2f} GHz)" if isnum(scalar) else "Clock under each ISA"
    return ["", f"{head}: " + "; ".join(parts) + "."]
