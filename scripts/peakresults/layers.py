"""The results program's packages in layers, lowest first: the one declaration of what each
package may import (tests/results/test_layers.py holds every import to it; docs/design.md,
"The results program's packages").

A module may import from its own package and from any package of a lower layer; never from
a package of its own layer (siblings stand apart) or of a higher one. The root holds only
ROOT_MODULES; a module named __main__ (the root's or a package's) is a command line, which
no module imports, so it may use every package."""

# (layer, package, what it holds and why it stands there)
PACKAGES = (
    (0, "core", "the schema, a results folder read, the facts of one row: stands on nothing of ours"),
    (1, "adapters", "one reference tool each (its job, run, parser into the schema's rows): core alone"),
    (1, "trace", "a pair's two sides' system calls under strace: core alone"),
    (1, "insmix", "a kernel's hot loop's instructions from objdump: core alone"),
    (1, "merge", "a run's raw files into one record per suite, the tools' rows joined: core alone"),
    (1, "compare", "two runs, which rows moved beyond their noise: core alone"),
    (1, "charts", "one data file and gnuplot script per figure: core alone"),
    (2, "pairs", "the paired rounds' ratios and verdicts; their measured causes come from trace and insmix"),
    (3, "plan", "run_all.sh's steps: calls the adapters by name, lays out their paired jobs as rounds, "
                "and `adapters pair` by hand reads its rounds with pairs"),
    (4, "report", "report.md and finish: shows what merge, pairs, plan (the mode, the parts' times) and charts hold"),
)

# The root's own modules: __init__ and this file import nothing; __main__ is the command line.
ROOT_MODULES = ("__init__", "__main__", "layers")
