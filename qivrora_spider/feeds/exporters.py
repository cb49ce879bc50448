"""Feed exporters: the findings table for csv/jsonl/json, the facts for the `facts` format.

A crawl's items are facts and findings; users asking for ``-O findings.csv`` want the table of
CHECKS.md and nothing else, in its column order. Facts go out only when asked for by format.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Any, Callable, Iterable

from scrapy.exporters import BaseItemExporter, CsvItemExporter, JsonItemExporter, JsonLinesItemExporter

from ..facts import FACT_TYPES, fact_to_dict
from ..findings import FINDING_FIELDS, Finding

#: A spreadsheet evaluates a cell that starts with one of these as a formula.
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def neutralise(value: str) -> str:
    """Make a crawled value inert in a spreadsheet (OWASP CSV injection): prefix a quote."""
    return "'" + value if value.startswith(FORMULA_STARTS) else value


class _FindingsOnly:
    def __init__(self, file: Any, **kwargs: Any) -> None:
        kwargs.setdefault("fields_to_export", list(FINDING_FIELDS))
        super().__init__(file, **kwargs)  # type: ignore[call-arg]

    def export_item(self, item: Any) -> Any:
        if isinstance(item, Finding):
            return super().export_item(item)  # type: ignore[misc]
        return None


def exports_facts(exporter: type) -> bool:
    """Whether a feed exporter writes facts: every one but the findings table's."""
    return not issubclass(exporter, _FindingsOnly)


class FindingsCsvExporter(_FindingsOnly, CsvItemExporter):
    def serialize_field(self, field: Any, name: str, value: Any) -> Any:
        value = super().serialize_field(field, name, value)
        return neutralise(value) if isinstance(value, str) else value


class FindingsJsonLinesExporter(_FindingsOnly, JsonLinesItemExporter):
    pass


class FindingsJsonExporter(_FindingsOnly, JsonItemExporter):
    pass


class FactsExporter(JsonLinesItemExporter):
    """One fact per line, tagged with its kind, as ``facts.read_facts`` reads it back."""

    def export_item(self, item: Any) -> Any:
        if isinstance(item, FACT_TYPES):
            self.file.write(self.encoder.encode(fact_to_dict(item)).encode("utf-8") + b"\n")


def write_items(
    path: Path, exporter_class: Callable[..., BaseItemExporter], items: Iterable[Any], *, append: bool = False
) -> None:
    """Write items outside a crawl's feeds: to a temporary file, then renamed, so the file is complete
    or absent (appended to what it held, with `append`)."""
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        with os.fdopen(handle, "wb") as file:
            if append and path.exists():
                file.write(path.read_bytes())
            exporter = exporter_class(file, encoding="utf-8")
            exporter.start_exporting()
            for item in items:
                exporter.export_item(item)
            exporter.finish_exporting()
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
