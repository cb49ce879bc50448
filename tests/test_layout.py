"""The package's folders follow the data flow, and imports only run down it.

extract (bytes -> facts) and audit (facts -> findings) are pure Python: they import neither Scrapy nor
Twisted, so they are tested without a reactor and reused by ``hreflang-report``. The Scrapy
components are thin adapters above them, and no module imports from a layer above its own.
"""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

from .conftest import ROOT

PACKAGE = ROOT / "qivrora_spider"

#: Lowest first. A module may import from its own layer and the layers below it.
LAYERS = [
    {"facts"},  # the facts: plain dataclasses that everything imports, and that import nothing of ours
    # the facts as JSON lines, the findings, how a run ended, the pure readers; what we rely on of the
    # libraries under us
    {"fact_lines", "findings", "outcome", "extract", "compat"},
    {"audit"},  # facts -> findings, pure
    {"report", "catalogue"},  # findings -> what people read, pure
    {"feeds"},  # findings and facts -> files (Scrapy's exporters and storages)
    {"state"},  # across crawls: the state file, what changed, JOBDIR
    # what may be fetched, how a fetch went; the browser; the HTTP handler (its connection pool)
    {"signals", "downloadermiddlewares", "rendering", "download_handlers"},
    {"spiders", "pipelines", "extensions"},  # the crawl
    {"distributed", "commands", "cli", "__main__", "settings"},  # the crawl over Redis; the command line; the settings
    {"demo"},  # the demo shop and the test server; nothing in the package uses them
]
LAYER_OF = {part: number for number, parts in enumerate(LAYERS) for part in parts}

BLOCKER = """
import importlib.abc, sys
class Block(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in ("scrapy", "twisted"):
            raise ImportError(f"{name} is blocked: this package must stay pure")
sys.meta_path.insert(0, Block())
import importlib, pkgutil
for package in ("qivrora_spider.extract", "qivrora_spider.audit"):
    root = importlib.import_module(package)
    for module in pkgutil.walk_packages(root.__path__, package + "."):
        importlib.import_module(module.name)
        print(module.name)
"""


def test_extract_and_audit_import_neither_scrapy_nor_twisted():
    run = subprocess.run([sys.executable, "-c", BLOCKER], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    imported = set(run.stdout.split())
    assert {"qivrora_spider.extract.html_extract", "qivrora_spider.audit.core.cluster_graph"} <= imported


def _layer(path: Path) -> int:
    top = path.relative_to(PACKAGE).parts[0].removesuffix(".py")
    if top == "__init__":
        return 0  # imported before anything else of the package
    assert top in LAYER_OF, f"{top} has no layer: add it to LAYERS"
    return LAYER_OF[top]


def _runtime_imports(path: Path) -> list[tuple[int, str]]:
    """(line, module) of each import of the package that runs (not under ``if TYPE_CHECKING:``)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    typing_only = {
        id(node)
        for block in ast.walk(tree)
        if isinstance(block, ast.If) and isinstance(block.test, ast.Name) and block.test.id == "TYPE_CHECKING"
        for node in ast.walk(block)
    }
    package = ".".join(path.relative_to(ROOT).parts[:-1])  # a module's package, or a package itself
    found = []
    for node in ast.walk(tree):
        if id(node) in typing_only:
            continue
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                module = ".".join([*base, node.module] if node.module else base)
            else:
                module = node.module or ""
            names = [module] if node.module else [f"{module}.{alias.name}" for alias in node.names]
            found += [(node.lineno, name) for name in names]
        elif isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
    return [(line, module) for line, module in found if module.startswith("qivrora_spider.")]


def test_no_import_runs_from_a_lower_layer_up_to_a_higher_one():
    upward = []
    for path in sorted(PACKAGE.rglob("*.py")):
        own = _layer(path)
        for line, module in _runtime_imports(path):
            target = PACKAGE.joinpath(*module.split(".")[1:2])
            target = target if target.is_dir() else target.with_suffix(".py")
            # A name that is no module (`from qivrora_spider import __version__`) is the package's own.
            imported = _layer(target if target.exists() else PACKAGE / "__init__.py")
            if imported > own:
                upward.append(f"{path.relative_to(ROOT)}:{line} imports {module}")
    assert upward == []


def test_a_check_family_imports_only_the_core():
    """A family is read, changed or removed in its own file: it imports no other family, and the core
    imports no family (the runner, ``audit/__init__.py``, is the one place that knows them all)."""
    checks = PACKAGE / "audit" / "checks"
    families = {path.stem for path in checks.glob("*.py")} - {"__init__"}
    crossing = []
    for path in sorted([*checks.glob("*.py"), *(PACKAGE / "audit" / "core").glob("*.py")]):
        if path.name == "__init__.py":
            continue
        for line, module in _runtime_imports(path):
            imported = module.removeprefix("qivrora_spider.audit.checks.").split(".")[0]
            if module.startswith("qivrora_spider.audit.checks.") and imported in families:
                crossing.append(f"{path.relative_to(ROOT)}:{line} imports {module}")
    assert families >= {"markup", "sitemaps", "clusters"}
    assert crossing == []



def layout_table() -> list[list[str]]:
    """The paths each row of the layout table in docs/internals.md names, in the table's order. A row
    names a path, then others beside it: `qivrora_spider/facts.py`, `findings.py` is two modules."""
    page = (ROOT / "docs" / "internals.md").read_text(encoding="utf-8")
    section = page.split("\n## The layout\n", 1)[1].split("\n## ", 1)[0]
    rows = []
    for line in section.splitlines():
        if not line.startswith("| `"):
            continue
        folder, named = "", []
        for path in re.findall(r"`([^`]+)`", line.split(" | ")[0]):
            if "/" in path.rstrip("/"):
                folder = path.rstrip("/").rpartition("/")[0] + "/"
                named.append(path.rstrip("/"))
            else:
                named.append(folder + path.rstrip("/"))
        rows.append(named)
    return rows


def test_the_layout_table_of_the_docs_names_every_part_of_the_package_once_in_layer_order():
    rows = layout_table()
    named = [path for row in rows for path in row]
    assert len(named) == len(set(named)), "a path has two rows"
    assert [path for path in named if not (ROOT / path).exists()] == []
    package = {p.name for p in PACKAGE.iterdir() if p.name not in ("__init__.py", "__pycache__")}
    parts = [path.removeprefix("qivrora_spider/") for path in named if path.startswith("qivrora_spider/")]
    assert package - set(parts) == set(), "add these to the layout table of docs/internals.md"
    layers = [_layer(PACKAGE / part) for part in parts if part in package]
    assert layers == sorted(layers), "the table lists the package down its layers, as LAYERS does"
