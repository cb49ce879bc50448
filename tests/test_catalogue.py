"""The catalogue is generated from the registry (the docs' check pages, `qivrora explain`, `qivrora
checks`), and the registry matches CHECKS.md."""

from __future__ import annotations

import inspect
import os
import re
from dataclasses import replace
from pathlib import Path

import pytest

from qivrora_spider import __version__
from qivrora_spider.audit import CHECKS
from qivrora_spider.audit.core.registry import check
from qivrora_spider.catalogue import PREVIEW, DOCS_URL, UnknownCheck, explain, index, listing, page, page_url, status, write_pages

from .test_false_green import qivrora

#: A row of a check table in CHECKS.md or CHECKS-NEXT.md: id, name, severity.
CHECK_ROW = re.compile(r"^\| ((?:HL|SM|CR)\d{3}) \| ([a-z0-9-]+) \| (error|warning|notice) \|", re.M)


def shared_folder() -> Path:
    """The project's shared/ folder, named by QIVRORA_SHARED. A clone from the project's host has none:
    without the variable the test is skipped, saying why; where it is set (CI), a missing folder fails."""
    folder = os.environ.get("QIVRORA_SHARED", "")
    if not folder:
        pytest.skip("QIVRORA_SHARED is not set: the registry was not compared with shared/CHECKS.md")
    missing = [name for name in ("CHECKS.md", "CHECKS-NEXT.md") if not (Path(folder) / name).is_file()]
    if missing:
        pytest.fail(f"QIVRORA_SHARED={folder}: no {' or '.join(missing)} there", pytrace=False)
    return Path(folder)


def contract(path: Path) -> dict[str, tuple[str, str]]:
    """The checks a contract file specifies: id -> (name, severity)."""
    rows = CHECK_ROW.findall(path.read_text(encoding="utf-8"))
    return {check_id: (name, severity) for check_id, name, severity in rows}


def test_every_check_is_documented():
    for check in CHECKS.values():
        assert check.why and check.example and check.fix, check.id


def test_registry_matches_the_contract_in_checks_md():
    # CHECKS-NEXT.md's rule: CHECKS.md is what ships; a check being built may be registered once it works.
    shared = shared_folder()
    shipped = contract(shared / "CHECKS.md")
    being_built = contract(shared / "CHECKS-NEXT.md")
    registered = {c.id: (c.name, c.severity) for c in CHECKS.values()}

    unshipped = {i: (spec, registered.get(i)) for i, spec in shipped.items() if registered.get(i) != spec}
    assert unshipped == {}, "checks of CHECKS.md not registered with their id, name and severity"
    unspecified = {i: reg for i, reg in registered.items() if reg not in (shipped.get(i), being_built.get(i))}
    assert unspecified == {}, "registered checks that stand neither in CHECKS.md nor in CHECKS-NEXT.md"


# --- the pages of the docs site and `qivrora explain` --------------------------------------------


def test_every_check_shows_failing_markup_its_fix_and_the_version_it_came_in():
    lacking = {c.id for c in CHECKS.values() if not (c.failing and c.fixed)}
    assert lacking == set(), "give these checks failing= and fixed= examples in their @check"
    assert all(re.fullmatch(r"\d+\.\d+\.\d+", c.since) for c in CHECKS.values())


def test_a_check_is_a_preview_in_the_minor_release_that_added_it():
    check = CHECKS["HL201"]
    assert status(replace(check, since="0.1.0")) == "stable"
    major, minor, _ = __version__.split(".")
    assert status(replace(check, since=f"{major}.{minor}.9")) == "preview"
    assert status(replace(check, since=__version__)) == "preview"


def test_every_check_writes_out_the_version_it_came_in():
    """A default of the running version would make every check that took it a preview again at each
    release; the decorator takes none, so a check cannot register without its version."""
    assert inspect.signature(check).parameters["since"].default is inspect.Parameter.empty
    def numbers(version: str) -> tuple[int, ...]:
        return tuple(int(part) for part in version.split("."))

    assert [c.id for c in CHECKS.values() if numbers(c.since) > numbers(__version__)] == []


def test_the_index_and_a_preview_check_s_page_say_what_preview_means():
    major, minor, _ = __version__.split(".")
    assert f"**Status.** {PREVIEW} In Qivrora {major}.{minor}, the checks added in {major}.{minor}.x" in index()
    check = CHECKS["HL201"]
    assert PREVIEW in page(replace(check, since=__version__))
    assert PREVIEW not in page(replace(check, since="0.0.1"))


def test_explain_prints_the_page_found_by_id_or_name_without_links():
    text = explain("hl201")
    assert text == explain("HL201") == explain("missing-return-link")
    assert text.startswith("# HL201 missing-return-link\n")
    for heading in ("## Why it matters", "## Example", "## Fix", "## Precedence", "## Related checks"):
        assert f"\n{heading}\n" in text
    assert CHECKS["HL201"].failing in text and CHECKS["HL201"].fixed in text
    assert "- HL202 `inconsistent-return-language`" in text
    assert "](" not in text, "a terminal shows no links"


def test_explain_of_an_unknown_check_says_so_in_one_line():
    with pytest.raises(UnknownCheck) as raised:
        explain("HL999")
    assert str(raised.value) == "no check 'HL999': `qivrora checks` lists them"


def test_listing_has_a_line_per_check_with_id_name_severity_and_status():
    lines = listing().splitlines()
    assert lines[0].split() == ["id", "name", "severity", "status"]
    rows = [line.split() for line in lines[1:]]
    assert [row[0] for row in rows] == sorted(CHECKS)
    for check_id, name, severity, state in rows:
        assert (name, severity, state) == (CHECKS[check_id].name, CHECKS[check_id].severity, status(CHECKS[check_id]))
    names = [["id", "name"], *rows]
    assert len({line.index(f" {row[1]} ") for line, row in zip(lines, names)}) == 1, "the names line up"


def test_pages_link_only_to_pages_that_exist_and_the_index_lists_every_check_by_family(tmp_path):
    (tmp_path / "hl000.md").write_text("a check no longer registered")
    written = write_pages(tmp_path)
    assert {p.name for p in tmp_path.iterdir()} == {"index.md", *(f"{i.lower()}.md" for i in CHECKS)}
    assert written == sorted(tmp_path.iterdir())
    for path in written:
        for target in re.findall(r"\]\(([^)]+)\)", path.read_text(encoding="utf-8")):
            assert (tmp_path / target).is_file(), (path.name, target)
    index_text = (tmp_path / "index.md").read_text(encoding="utf-8")
    families = re.findall(r"^## (\S+): ", index_text, re.M)
    assert families == sorted(families) and "HL2xx" in families
    hl2 = index_text.split("## HL2xx")[1].split("\n## ")[0]
    assert re.findall(r"\| \[(\w+)\]", hl2) == sorted(i for i in CHECKS if i.startswith("HL2"))
    assert "HL201" in (tmp_path / "hl202.md").read_text(encoding="utf-8"), "related both ways"


def test_page_url_is_under_the_docs_url():
    assert page_url("HL201") == DOCS_URL + "checks/hl201.html"
    assert page_url("SM001", "http://127.0.0.1:8000/docs") == "http://127.0.0.1:8000/docs/checks/sm001.html"


def test_qivrora_explain_and_checks_print_the_page_and_the_catalogue_from_any_folder(tmp_path):
    shown = qivrora("explain", "missing-return-link", cwd=tmp_path)
    assert (shown.returncode, shown.stdout) == (0, explain("HL201")), shown.stderr
    unknown = qivrora("explain", "HL999", cwd=tmp_path)
    assert (unknown.returncode, unknown.stdout) == (2, "")
    assert unknown.stderr.strip().splitlines() == ["qivrora: no check 'HL999': `qivrora checks` lists them"]
    listed = qivrora("checks", cwd=tmp_path)
    assert (listed.returncode, listed.stdout) == (0, listing()), listed.stderr
