"""The results program's packages keep their declared order (scripts/peakresults/layers.py):
every import of every module, read with ast (import peakresults.x, from peakresults.x import,
from ..x import, also inside functions), goes to its own package or to a lower layer. A
module in no declared package fails too. The checker is shown to fail on a small tree with
an upward import, a sibling's and stray modules, written to a temporary folder."""
import ast
import os
import sys
import tempfile
import textwrap
import unittest

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
PROGRAM = os.path.join(REPO, "scripts", "peakresults")
sys.path.insert(0, os.path.join(REPO, "scripts"))

from peakresults import layers  # noqa: E402

COMMAND = "__main__"


def modules(root: str) -> list:
    """(path relative to ROOT, its parts without .py) of every module under ROOT."""
    out = []
    for d, dirs, files in os.walk(root):
        dirs[:] = sorted(x for x in dirs if x != "__pycache__")
        for f in sorted(files):
            if f.endswith(".py"):
                rel = os.path.relpath(os.path.join(d, f), root)
                out.append((rel, rel[:-3].split(os.sep)))
    return out


def targets(node, name: str, parts: list) -> list:
    """The first names under package NAME that import NODE reaches ("" for NAME itself), in a
    module whose path parts under NAME are PARTS; [] for an import of something else."""
    if isinstance(node, ast.Import):
        return [(a.name.split(".") + [""])[1] for a in node.names
                if a.name == name or a.name.startswith(name + ".")]
    if node.level:
        pkg = [name] + parts[:-1]  # an __init__'s package is its folder, as any module's
        if node.level > len(pkg):
            return ["<beyond the program>"]
        full = pkg[:len(pkg) - node.level + 1] + (node.module.split(".") if node.module else [])
    else:
        full = (node.module or "").split(".")
    if full[0] != name:
        return []
    return [full[1]] if len(full) > 1 else [a.name for a in node.names]


def check(root: str, packages=layers.PACKAGES, root_modules=layers.ROOT_MODULES) -> list:
    """One line per problem in the program at ROOT (a folder named after its package): a module
    in no declared package, an import of a sibling package, of a higher layer or of nothing
    declared, each with the file, the line and the import."""
    name = os.path.basename(os.path.normpath(root))
    layer = {p: n for n, p, _ in packages}
    top = max(layer.values(), default=0) + 1
    problems = []
    for rel, parts in modules(root):
        if len(parts) == 1 and parts[0] not in root_modules or len(parts) > 1 and parts[0] not in layer:
            problems.append(f"{rel}: in no declared package (layers.PACKAGES, ROOT_MODULES)")
            continue
        own = parts[0] if len(parts) > 1 else ""
        mine = top if parts[-1] == COMMAND else layer.get(own, -1)
        with open(os.path.join(root, rel), encoding="utf-8") as f:
            src = f.read()
        for node in ast.walk(ast.parse(src, rel)):
            if not isinstance(node, (ast.Import, ast.ImportFrom)):
                continue
            text = ast.get_source_segment(src, node).split("\n")[0].strip()
            for t in targets(node, name, parts):
                if t in ("", own) or t in root_modules and t != COMMAND:
                    continue
                theirs = top if t == COMMAND else layer.get(t)
                if theirs is None:
                    problems.append(f"{rel}:{node.lineno}: {text}: {t} is in no declared package")
                elif theirs > mine:
                    problems.append(f"{rel}:{node.lineno}: {text}: {own or name} (layer {mine}) imports {t} "
                                    f"(layer {theirs}), above it")
                elif theirs == mine:
                    problems.append(f"{rel}:{node.lineno}: {text}: {own} imports {t}, its sibling on layer {mine}")
    return problems


class TheProgram(unittest.TestCase):
    def test_every_import_keeps_the_order(self):
        self.assertGreater(len(modules(PROGRAM)), 60)  # the walk saw the program
        problems = check(PROGRAM)
        self.assertEqual(problems, [], "imports against scripts/peakresults/layers.py:\n" + "\n".join(problems))

    def test_every_declared_package_is_a_folder(self):
        for _, p, why in layers.PACKAGES:
            self.assertTrue(os.path.isfile(os.path.join(PROGRAM, p, "__init__.py")), p)
            self.assertTrue(why, p)

    def test_layers_imports_nothing(self):
        with open(os.path.join(PROGRAM, "layers.py"), encoding="utf-8") as f:
            tree = ast.parse(f.read())
        self.assertEqual([n for n in ast.walk(tree) if isinstance(n, (ast.Import, ast.ImportFrom))], [])


class TheChecker(unittest.TestCase):
    """check() on a program of its own: low (layer 0), mid1 and mid2 (siblings on 1), top (2)."""
    TREE = {
        "__init__.py": "",
        "__main__.py": "from peakresults.top import t\nfrom peakresults import mid2\n",
        "low/__init__.py": "",
        "low/a.py": "import os\nfrom ..top import t\nimport peakresults.mid1.m\nfrom . import b\n",
        "low/b.py": "from peakresults.low import a\n",
        "low/c.py": "from ..nowhere import z\n",
        "mid1/__init__.py": "",
        "mid1/m.py": "from peakresults.mid2 import n\nfrom ..low import a\n",
        "mid2/__init__.py": "",
        "mid2/n.py": "def f():\n    from peakresults import top\n    from .. import low\n",
        "top/__init__.py": "",
        "top/t.py": "from ..mid1 import m\nfrom ..mid2.n import f\nfrom .. import __main__\n",
        "top/deep/__init__.py": "from ...low import a\nfrom . import x\n",
        "top/deep/x.py": "from ... import top\n",
        "stray.py": "",
        "extra/__init__.py": "",
    }
    PACKAGES = ((0, "low", ""), (1, "mid1", ""), (1, "mid2", ""), (2, "top", ""))

    def test_reports_each_import_against_the_order(self):
        with tempfile.TemporaryDirectory() as d:
            root = os.path.join(d, "peakresults")
            for rel, text in self.TREE.items():
                os.makedirs(os.path.dirname(os.path.join(root, rel)), exist_ok=True)
                with open(os.path.join(root, rel), "w", encoding="utf-8") as f:
                    f.write(textwrap.dedent(text))
            got = check(root, self.PACKAGES, ("__init__", "__main__"))
        self.assertEqual(sorted(got), [
            "extra/__init__.py: in no declared package (layers.PACKAGES, ROOT_MODULES)",
            "low/a.py:2: from ..top import t: low (layer 0) imports top (layer 2), above it",
            "low/a.py:3: import peakresults.mid1.m: low (layer 0) imports mid1 (layer 1), above it",
            "low/c.py:1: from ..nowhere import z: nowhere is in no declared package",
            "mid1/m.py:1: from peakresults.mid2 import n: mid1 imports mid2, its sibling on layer 1",
            "mid2/n.py:2: from peakresults import top: mid2 (layer 1) imports top (layer 2), above it",
            "stray.py: in no declared package (layers.PACKAGES, ROOT_MODULES)",
            "top/t.py:3: from .. import __main__: top (layer 2) imports __main__ (layer 3), above it",
        ])


if __name__ == "__main__":
    unittest.main()
