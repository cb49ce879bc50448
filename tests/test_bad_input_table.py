"""README.md's table "Bad input and what Qivrora does" matches the tested cases (tests/bad_input.py)."""

from __future__ import annotations

import importlib
import inspect

import pytest

from .bad_input import CASES, block, render
from .conftest import ROOT


def test_readme_table_is_generated_from_the_cases():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert block(readme) == render(), "run `python -m tests.bad_input --write README.md`"


@pytest.mark.parametrize("case", CASES, ids=[case.kind[:40] for case in CASES])
def test_each_row_names_a_test_that_exists(case):
    module_file, _, test = case.test.partition("::")
    name, _, parameter = test.partition("[")
    module = importlib.import_module(f"tests.{module_file.removesuffix('.py')}")
    function = getattr(module, name, None)
    assert function is not None and name.startswith("test_"), case.test
    if parameter:
        assert parameter.rstrip("]") in inspect.getsource(function), f"{case.test}: no such parameter"
