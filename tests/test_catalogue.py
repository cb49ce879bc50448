"""The README's catalogue is generated from the registry, and the registry matches CHECKS.md."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from qivrora_spider.audit import CHECKS
from qivrora_spider.catalogue import embed

from .conftest import ROOT

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


def test_readme_catalogue_is_the_generated_one():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert embed(readme) == readme, "run: python -m qivrora_spider.catalogue --write README.md"


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
