"""What workers write into Redis and read back, as JSON: requests, robots.txt rules, robots.txt
responses. Nothing read from Redis runs code.

scrapy-redis pickles requests, and the shared robots.txt rules were pickled too: whoever could write
to the Redis could run code on every worker. Here a request is Scrapy's ``Request.to_dict`` with its
callback and errback named (only the spider's ``parse_*`` and ``*_failed`` methods are accepted
back) and its bytes as Latin-1 text; robots.txt is its status and the text obeyed, parsed again by
Protego where it is read. An entry that is not one of ours (not JSON, an unknown callback, a class
that is not a request, a pickle) raises ``Refused``; the caller names the key in one line.
"""

from __future__ import annotations

import base64
from typing import TYPE_CHECKING, Any

import orjson
from protego import Protego
from scrapy import FormRequest, Request
from scrapy.http import Headers, JsonRequest, Response
from scrapy.utils.request import request_from_dict

if TYPE_CHECKING:
    from scrapy import Spider

#: The request classes a queued entry may name (``_class``): loading any other would import it.
REQUEST_CLASSES = {f"{cls.__module__}.{cls.__name__}": cls for cls in (FormRequest, JsonRequest)}


class Refused(ValueError):
    """An entry read from Redis that this crawl did not write: it is dropped, not run."""


def encode_request(request: Request, spider: Spider) -> bytes:
    """`request` as a JSON queue entry; ValueError if its meta or callbacks cannot be one."""
    data = request_dict(request, spider)
    data["headers"] = {_text(name): [_text(value) for value in values] for name, values in data["headers"].items()}
    data["body"] = _text(data["body"])
    try:
        return orjson.dumps(data)
    except TypeError as exc:
        raise ValueError(f"{request}: its meta is not JSON ({exc})") from None


def decode_request(entry: bytes, spider: Spider) -> Request:
    """The request a queue entry holds; Refused where it is not one this crawl wrote."""
    try:
        data = orjson.loads(entry)
    except orjson.JSONDecodeError:
        raise Refused(f"not JSON ({_preview(entry)})") from None
    if not isinstance(data, dict) or not isinstance(data.get("url"), str):
        raise Refused(f"not a request ({_preview(entry)})")
    for role in ("callback", "errback"):
        name = data.get(role)
        if name is not None and not _spider_handler(spider, name):
            raise Refused(f"unknown {role} {name!r}")
    kind = data.get("_class")
    if kind is not None and kind not in REQUEST_CLASSES:
        raise Refused(f"not a request class of this crawl: {kind!r}")
    try:
        data["headers"] = {name: [_bytes(value) for value in values] for name, values in data["headers"].items()}
        data["body"] = _bytes(data["body"])
        if not isinstance(data.get("meta", {}), dict):
            raise TypeError("meta is not a mapping")
        return request_from_dict(data, spider=spider)
    except (AttributeError, KeyError, TypeError, ValueError) as exc:
        raise Refused(f"not a request: {exc}") from None


def request_dict(request: Request, spider: Spider) -> dict[str, Any]:
    """``request.to_dict(spider=spider)``, with the callback and errback named by their own names where
    the spider's attribute of that name is that method. Scrapy finds the name with
    ``inspect.getmembers`` over every attribute of the spider: 3 % of a worker's time, since each
    request it finds is serialised. Any other callable is left to Scrapy."""
    data = {attribute: getattr(request, attribute) for attribute in request.attributes}
    for role in ("callback", "errback"):
        method = data[role]
        if callable(method):
            name = getattr(method, "__name__", "")
            own = getattr(getattr(spider, name, None), "__func__", None)
            if own is not getattr(method, "__func__", _NOT_A_METHOD):
                return request.to_dict(spider=spider)
            data[role] = name
    data["headers"] = dict(request.headers)
    if type(request) is not Request:
        data["_class"] = f"{type(request).__module__}.{type(request).__name__}"
    return data


_NOT_A_METHOD = object()


def _spider_handler(spider: Spider, name: Any) -> bool:
    """Whether `name` is a callback or errback the spider has: only those run."""
    return (
        isinstance(name, str)
        and (name.startswith("parse") or name.endswith("_failed"))
        and callable(getattr(spider, name, None))
    )


def encode_rules(status: int | None, text: str | None) -> bytes:
    """An origin's robots.txt as the workers share it: its status and the text obeyed (None: no rules)."""
    return orjson.dumps({"status": status, "rules": text})


def decode_rules(entry: bytes) -> tuple[Protego | None, int | None]:
    """The parser and status of shared robots.txt rules; Refused where the entry is not ours."""
    try:
        data = orjson.loads(entry)
    except orjson.JSONDecodeError:
        raise Refused(f"not JSON ({_preview(entry)})") from None
    if not isinstance(data, dict):
        raise Refused(f"not robots.txt rules ({_preview(entry)})")
    status, text = data.get("status"), data.get("rules")
    if not (status is None or isinstance(status, int)) or not (text is None or isinstance(text, str)):
        raise Refused(f"not robots.txt rules ({_preview(entry)})")
    return (Protego.parse(text) if text is not None else None), status


def encode_response(response: Response) -> bytes:
    """A robots.txt response kept for the worker that needs it: status, headers, body."""
    headers = {_text(name): [_text(value) for value in values] for name, values in response.headers.items()}
    body = base64.b64encode(response.body).decode("ascii")
    return orjson.dumps({"status": response.status, "headers": headers, "body": body})


def decode_response(url: str, entry: bytes) -> Response:
    """The response `encode_response` kept; Refused where the entry is not ours."""
    try:
        data = orjson.loads(entry)
        headers = Headers({name: [_bytes(value) for value in values] for name, values in data["headers"].items()})
        return Response(url, status=int(data["status"]), headers=headers, body=base64.b64decode(data["body"]))
    except (orjson.JSONDecodeError, AttributeError, KeyError, TypeError, ValueError):
        raise Refused(f"not a robots.txt response ({_preview(entry)})") from None


def _text(value: bytes | str) -> str:
    return value.decode("latin-1") if isinstance(value, bytes) else value


def _bytes(value: str) -> bytes:
    if not isinstance(value, str):
        raise TypeError(f"{type(value).__name__} where text was expected")
    return value.encode("latin-1")


def _preview(entry: bytes) -> str:
    return f"{len(entry)} bytes starting {entry[:16]!r}"
