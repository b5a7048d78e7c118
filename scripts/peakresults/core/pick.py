"""Which row stands for a group where the report or a chart shows one figure (the summary's
efficiency table, the PA1 tables' best-efficiency column, efficiency.png, roofline.png): the
best row that no doubt flag (schema.DOUBT_FLAGS) marks; a flagged row only when the group
has no other, and then the caller says so."""
from typing import Callable, Optional

from .schema import DOUBT_FLAGS, flags_of


def doubts(row: dict) -> list[str]:
    """The row's doubt flags, in DOUBT_FLAGS order."""
    names = flags_of(row)
    return [f for f in DOUBT_FLAGS if f in names]


def best(rows: list[dict], value: Callable[[dict], float]) -> tuple[Optional[dict], list[str]]:
    """(row, []) for the row of greatest value among those without a doubt flag (the first
    of equals); (row, its doubt flags) for the greatest of all when every row has one;
    (None, []) for no rows."""
    clean = [r for r in rows if not doubts(r)]
    pool = clean or rows
    if not pool:
        return None, []
    top = max(pool, key=value)
    return top, ([] if clean else doubts(top))


def fallback_note(flags: list[str]) -> str:
    """The words that label a stand-in row: empty for a clean one."""
    return f"no unflagged row: {', '.join(flags)}" if flags else ""
