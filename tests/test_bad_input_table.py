"""The docs' table "Bad input" shows the tested cases (tests/bad_input.py), each row naming its test."""

from __future__ import annotations

import importlib
import inspect

import pytest

from .bad_input import CASES
from .conftest import ROOT, docs_extension


def test_docs_page_shows_every_case_with_a_link_to_its_test():
    page = (ROOT / "docs" / "bad-input.md").read_text(encoding="utf-8")
    assert "```{include} _generated/bad-input.md\n```" in page
    docs = docs_extension()
    header, rule, *rows = docs.bad_input().strip().splitlines()
    assert (header, rule) == ("| bad input | what Qivrora does | test |", "|---|---|---|")
    assert len(rows) == len(CASES)
    for row, case in zip(rows, CASES):
        module, _, name = case.test.partition("::")
        assert (ROOT / "tests" / module).is_file(), case.test
        assert row == f"| {case.kind} | {case.behaviour} | [`{name}`]({docs.SOURCE_URL}tests/{module}) |"


@pytest.mark.parametrize("case", CASES, ids=[case.kind[:40] for case in CASES])
def test_each_row_names_a_test_that_exists(case):
    module_file, _, test = case.test.partition("::")
    name, _, parameter = test.partition("[")
    module = importlib.import_module(f"tests.{module_file.removesuffix('.py')}")
    function = getattr(module, name, None)
    assert function is not None and name.startswith("test_"), case.test
    if parameter:
        assert parameter.rstrip("]") in inspect.getsource(function), f"{case.test}: no such parameter"
