"""Pages the docs build generates from the package: one per check, and the settings reference.

Written before Sphinx reads the sources (``builder-inited``), into files that are not kept in git
(``checks/``, ``reference/settings.md``, ``_generated/``, included by other pages): the registry and the settings modules are the one source.
"""

from __future__ import annotations

import ast
import importlib
import io
import tokenize
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from qivrora_spider import catalogue

#: Where the repository's files are read on the web: the pages link tests and benchmarks there.
SOURCE_URL = "https://github.com/qivrora/qivrora/blob/main/"

#: The sections of the reference: title, settings module, and whether it holds Qivrora's own settings
#: (QIVRORA_*), Scrapy's as Qivrora sets them, or all of the module (None).
SECTIONS = [
    ("Qivrora's settings", "qivrora_spider.settings", True),
    ("The distributed profile", "qivrora_spider.settings.distributed", None),
    ("Scrapy's settings, as Qivrora sets them", "qivrora_spider.settings", False),
]
SCRAPY_NOTE = (
    "What each of these does is in [Scrapy's settings reference]"
    "(https://docs.scrapy.org/en/latest/topics/settings.html); the comments say why Qivrora sets it so."
)


@dataclass(frozen=True)
class Setting:
    """One module-level setting: its name, its source line(s), the comments that explain it, its value."""

    name: str
    source: str
    comment: str
    value: Any


def _comments(source: str) -> dict[int, str]:
    """Line number -> the text of a comment standing alone on that line."""
    lines = source.splitlines()
    return {
        token.start[0]: token.string
        for token in tokenize.generate_tokens(io.StringIO(source).readline)
        if token.type == tokenize.COMMENT and lines[token.start[0] - 1].lstrip() == token.string
    }


def settings_of(module_name: str) -> list[Setting]:
    """The upper-case settings a module assigns, in source order, each with the comment lines right
    above it (``#:`` and plain ones alike)."""
    module = importlib.import_module(module_name)
    source = Path(module.__file__ or "").read_text(encoding="utf-8")
    lines = source.splitlines()
    comments = _comments(source)
    found = []
    for node in ast.parse(source).body:
        if not isinstance(node, (ast.Assign, ast.AnnAssign)):
            continue
        target = node.targets[0] if isinstance(node, ast.Assign) else node.target
        if not (isinstance(target, ast.Name) and target.id.isupper()):
            continue
        above, line = [], node.lineno - 1
        while line in comments:
            above.insert(0, comments[line].removeprefix("#:").removeprefix("#").strip())
            line -= 1
        text = "\n".join(lines[node.lineno - 1 : node.end_lineno])
        found.append(Setting(target.id, text, " ".join(above), getattr(module, target.id)))
    return found


def settings_page() -> str:
    """The settings reference in Markdown: each setting with its comments, source and value."""
    lines = [
        "# Settings reference",
        "",
        "Generated from the settings modules and their comments each time the docs are built. Every "
        "setting can be given on the command line (`qivrora audit URL -s NAME=VALUE`), or in a "
        "settings module of your own that begins with `from qivrora_spider.settings import *` "
        "(`SCRAPY_SETTINGS_MODULE=mysettings qivrora audit URL`).",
        "",
    ]
    for title, module_name, own in SECTIONS:
        module = importlib.import_module(module_name)
        lines += [f"## {title}", "", f"`{module_name}`: {(module.__doc__ or '').strip()}", ""]
        if own is False:
            lines += [SCRAPY_NOTE, ""]
        for setting in settings_of(module_name):
            if own is not None and setting.name.startswith("QIVRORA_") != own:
                continue
            lines += [f"### {setting.name}", ""]
            if setting.comment:
                lines += [setting.comment, ""]
            lines += ["```python", setting.source, "```", ""]
            shown = repr(setting.value)
            if shown not in setting.source and len(shown) < 200:
                lines += [f"Its value: `{shown}`.", ""]
    return "\n".join(lines)


def _write(path: Path, text: str) -> None:
    """Only when changed, so that Sphinx rebuilds only what changed."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if not path.is_file() or path.read_text(encoding="utf-8") != text:
        path.write_text(text, encoding="utf-8")


def demo_findings() -> str:
    """The demo's answer key, each check linked to its page."""
    from qivrora_spider.demo.site import defects_table

    return defects_table() + "\n"


def bad_input() -> str:
    """The table of bad input and what Qivrora does, each row linked to the test that crawls it."""
    from tests.bad_input import render

    return render().replace("](tests/", f"]({SOURCE_URL}tests/") + "\n"


def generate(app: Any) -> None:
    source = Path(app.srcdir)
    catalogue.write_pages(source / "checks")
    _write(source / "reference" / "settings.md", settings_page())
    _write(source / "_generated" / "demo-findings.md", demo_findings())
    _write(source / "_generated" / "bad-input.md", bad_input())


def setup(app: Any) -> dict[str, Any]:
    app.connect("builder-inited", generate)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
