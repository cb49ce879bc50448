"""Facts as JSON lines and back: the `facts` feed format, a JOBDIR crawl's facts.jsonl, the facts a
distributed crawl's workers keep in Redis, and what ``hreflang-report`` reads.

Reading checks what it reads: a line that is not a fact this version knows is a ``FactsFormatError``
naming the line, and the URL of a page or status must be a normalised one.
"""

from __future__ import annotations

import dataclasses
import json
import sys
from typing import Any, Iterable, Iterator, NamedTuple

import orjson

from .extract.text_language import decode_blocks, encode_blocks
from .extract.urls import InvalidURL, normalize_url
from .facts import (
    FACT_TYPES,
    Annotation,
    Canonical,
    IgnoredAnnotation,
    LocaleProbe,
    LocaleRule,
    Page,
    TargetStatus,
    field_names,
)

_NESTED = {
    "annotations": Annotation,
    "ignored": IgnoredAnnotation,
    "canonicals": Canonical,
    "served_only": Annotation,
}


class FactsFormatError(ValueError):
    """A facts file line that is not a fact this version knows."""


def fact_to_dict(fact: Any) -> dict[str, Any]:
    """What ``dataclasses.asdict`` gives, at a fraction of its cost (it deep-copies every value):
    facts hold scalars, lists of scalars or of nested facts, and dicts of strings. The `facts` feed
    format writes every fact of a crawl so."""
    return {"fact": fact.kind, **_as_dict(fact)}


def _as_dict(value: Any) -> dict[str, Any]:
    data = {}
    for name in field_names(type(value)):
        item = getattr(value, name)
        if type(item) is list:
            nested = item and dataclasses.is_dataclass(item[0])
            item = [_as_dict(each) for each in item] if nested else item[:]
        elif type(item) is dict:
            item = dict(item)
        elif type(item) is bytes:
            item = encode_blocks(item)
        data[name] = item
    return data


def fact_from_dict(data: dict[str, Any]) -> Any:
    """The fact `data` describes (as ``fact_to_dict`` gives it), `data` left as it was."""
    return _fact_from(dict(data))


def _fact_from(data: dict[str, Any]) -> Any:
    """``fact_from_dict`` of a dict it may change, as ``read_facts`` parses one for each line: its kind
    is taken out and its strings replaced by interned ones."""
    kind = data.pop("fact", None)
    reading = _READING.get(kind)  # type: ignore[arg-type]
    if reading is None:
        raise FactsFormatError(f"unknown fact kind {kind!r}")
    cls, fields, strings, lists, nested = reading
    for name in _RETIRED.get(kind, ()):  # type: ignore[arg-type]
        data.pop(name, None)
    _intern(data, strings, lists)
    if data.get("text_blocks").__class__ is str:
        data["text_blocks"] = decode_blocks(data["text_blocks"])
    try:
        for key, item_cls, item_fields, item_strings in nested:
            if key in data:
                data[key] = [_build(item_cls, item_fields, _intern(item, item_strings)) for item in data[key]]
        fact = _build(cls, fields, data)
    except (TypeError, AttributeError) as exc:
        # A field the class has not fails its constructor too: looked for here, not in every fact, and
        # named before anything else the fact gets wrong.
        unknown = ", ".join(sorted(set(data).difference(fields)))
        if unknown:
            raise FactsFormatError(f"unknown field(s) {unknown} for a {kind} fact") from None
        raise FactsFormatError(f"incomplete {kind} fact: {exc}") from None
    if cls is Page or cls is TargetStatus or cls is LocaleProbe or cls is LocaleRule:
        _check_url(fact.url)  # URLs are node identities: a forged one must not reach the audit
    return fact


#: Fields that older versions wrote and this one no longer reads: their facts still load, without them.
_RETIRED: dict[str, tuple[str, ...]] = {
    "page": ("main_text_language", "main_text_confidence", "main_text_letters"),
}

#: The fields of each kind of fact (nested ones by their key) whose values many facts repeat: URLs,
#: hrefs, hreflang values, sources and names; then its lists of URLs. A page's links are not among
#: them: the audit's store folds them into one set as it takes the page (``FactStore``), and interns
#: them there, so the 20 or so strings of each page's list die with the fact read back.
_REPEATED: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "page": (
        ("url", "requested", "location", "content_type", "html_lang", "content_language"),
        (),
    ),
    "status": (("url", "location", "method", "error", "not_examined"), ()),
    "probe": (("url", "accept_language", "location", "main_text_language"), ()),
    "entry": (("sitemap", "loc", "url", "lastmod"), ()),
    "sitemap": (("url", "parent", "via"), ("children",)),
    "robots": (("origin", "url"), ("sitemaps",)),
    "annotations": (("source", "hreflang", "href", "url", "sitemap"), ()),
    "served_only": (("source", "hreflang", "href", "url", "sitemap"), ()),
    "canonicals": (("source", "href", "url"), ()),
    "ignored": (("source", "tag", "reason", "sitemap"), ()),
}


class _Reading(NamedTuple):
    """How ``fact_from_dict`` reads a kind of fact, worked out once instead of for each fact."""

    cls: type
    fields: tuple[str, ...]
    strings: tuple[str, ...]  # its fields whose strings are interned
    lists: tuple[str, ...]  # its lists whose strings are interned
    #: Its lists of nested facts: the field, and the nested facts' class, fields and strings interned.
    nested: tuple[tuple[str, type, tuple[str, ...], tuple[str, ...]], ...]


_READING = {
    cls.kind: _Reading(
        cls,
        field_names(cls),
        *_REPEATED.get(cls.kind, ((), ())),
        tuple(
            (key, nested, field_names(nested), _REPEATED[key][0])
            for key, nested in _NESTED.items()
            if key in field_names(cls)
        ),
    )
    for cls in FACT_TYPES
}


def _build(cls: type, fields: tuple[str, ...], data: dict[str, Any]) -> Any:
    """``cls(**data)``, the values passed by place where `data` has every field in order, as
    ``fact_line`` writes them (a fact's fields are its constructor's parameters, in order). Keywords
    parsed from JSON are not the interned strings Python looks for first among the names of
    parameters: finding them by comparing strings took longer than building a Page."""
    if tuple(data) == fields:
        return cls(*data.values())
    return cls(**data)


def _intern(data: dict[str, Any], names: tuple[str, ...], lists: tuple[str, ...] = ()) -> dict[str, Any]:
    """Intern the strings of a fact read back that other facts repeat, as the crawl does
    (``normalize_url``, hreflang values, hrefs as written shared with their URLs).

    JSON gives every occurrence of a string an object of its own: a page and its sitemap entry read
    back held dozens of strings more than in the crawl (the URLs, hrefs, hreflang values and sources
    of their annotations, ...), for the worker that audits a distributed crawl, ``hreflang-report``
    and a resumed JOBDIR crawl.
    """
    intern = sys.intern
    for name in names:
        value = data.get(name)
        if value.__class__ is str:
            data[name] = intern(value)
    for name in lists:
        value = data.get(name)
        if value.__class__ is list:
            data[name] = [intern(item) if item.__class__ is str else item for item in value]
    return data


def _check_url(url: object) -> None:
    try:
        ok = isinstance(url, str) and normalize_url(url) == url
    except InvalidURL:
        ok = False
    if not ok:
        raise FactsFormatError(f"url {url!r} is not a normalised http(s) URL")


def fact_line(fact: Any) -> bytes:
    """A fact as one line of UTF-8 JSON, as ``read_facts`` reads it back (without the newline): what
    ``fact_to_dict`` gives, written by orjson from the dataclass itself, faster than building that
    dict first. Every worker of a distributed crawl writes each of its facts so, for
    Redis, and a JOBDIR crawl for its facts.jsonl."""
    # orjson writes the fields, not the kind; the one bytes field, a page's packed blocks, as text.
    return _LINE_STARTS[type(fact)] + orjson.dumps(fact, default=_blocks_text)[1:]


def _blocks_text(value: Any) -> str:
    if type(value) is bytes:
        return encode_blocks(value)
    raise TypeError


#: ``{"fact":"<kind>",`` for each class of fact: a fact has fields, so the `}` of its own comes later.
_LINE_STARTS = {cls: b'{"fact":' + orjson.dumps(cls.kind) + b"," for cls in FACT_TYPES}


def read_facts(lines: Iterable[str], name: str = "<facts>") -> Iterator[Any]:
    """Facts from JSON lines, as ``fact_line`` and the `facts` feed format write them."""
    for number, line in enumerate(lines, 1):
        line = line.strip()
        if not line:
            continue
        try:
            data = _parse(line)
        except json.JSONDecodeError as exc:
            raise FactsFormatError(f"{name}:{number}: not JSON ({exc.msg})") from None
        if not isinstance(data, dict) or "fact" not in data:
            raise FactsFormatError(
                f"{name}:{number}: not a Qivrora fact (export facts with the `facts` feed format)"
            )
        try:
            yield _fact_from(data)
        except FactsFormatError as exc:
            raise FactsFormatError(f"{name}:{number}: {exc}") from None


def _parse(line: str) -> Any:
    """A line read by orjson, faster than json, or by json where orjson refuses it: what json.dumps
    wrote in facts of older versions and strict JSON has not (NaN, Infinity, a lone surrogate
    escaped), and what is not JSON at all, which json names as it always did.

    The one value they read apart, an integer beyond 64 bits, which orjson reads as a float, is in no
    fact (orjson does not write one) and no worse than the float a forged line may hold anyway.
    """
    try:
        return orjson.loads(line)
    except orjson.JSONDecodeError:
        return json.loads(line)
