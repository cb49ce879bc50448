"""The README's catalogue is generated from the registry, and the registry matches CHECKS.md."""

from __future__ import annotations

import re
from pathlib import Path

from qivrora_spider.audit import CHECKS
from qivrora_spider.catalogue import embed

from .conftest import ROOT


def test_readme_catalogue_is_the_generated_one():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert embed(readme) == readme, "run: python -m qivrora_spider.catalogue --write README.md"


def test_every_check_is_documented():
    for check in CHECKS.values():
        assert check.why and check.example and check.fix, check.id


def test_registry_matches_the_contract_in_checks_md(shared: Path):
    rows = re.findall(r"^\| (HL\d{3}|SM\d{3}) \| ([a-z0-9-]+) \| (error|warning|notice) \|", (shared / "CHECKS.md").read_text(), re.M)
    contract = {check_id: (name, severity) for check_id, name, severity in rows}
    registered = {c.id: (c.name, c.severity) for c in CHECKS.values()}
    assert registered == contract
