"""Serve a static build folder as if it were deployed at a base URL, the way static hosts do.

Pure: ``StaticSite.answer(url, method)`` maps a URL under the base to what a host such as Netlify,
Cloudflare Pages or GitHub Pages would answer from the folder. The mapping rules:

- ``/dir/`` serves ``dir/index.html``; ``/dir`` (a folder, no slash) answers 301 to ``/dir/``;
- ``/page.html`` serves that file; with pretty URLs (the default) ``/page`` serves ``page.html``;
- a missing file answers 404 (with ``404.html`` as body when the folder has one);
- ``_redirects`` and ``_headers`` apply as Netlify and Cloudflare Pages apply them
  (``extract.host_rules``): the first matching rule, unless an existing file shadows it and it is
  not forced (``!``); 3xx rules redirect, 200 serves the target's content at the URL (a target on
  another host is that host's answer: ``proxy``), 404 and 410 serve it with their status; a rule for
  visitors of a language or country answers no request, and ``locale_rule`` names it (HL801);
- content types come from file extensions; ``.gz`` files are served as ``application/gzip``;
- the query string is ignored for the file lookup (a rule may match on it); a path that would leave the folder (``..``,
  encoded or not) is refused with 403 and nothing outside the folder is ever read.
"""

from __future__ import annotations

import mimetypes
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable
from urllib.parse import unquote, urlsplit

from ..extract.host_rules import RedirectRule, RuleFile, parse_headers, parse_redirects

#: Read by the host, never served.
RULE_FILES = ("/_redirects", "/_headers")


@dataclass(slots=True)
class StaticAnswer:
    status: int
    headers: list[tuple[str, str]] = field(default_factory=list)
    body: bytes = b""
    #: A 200 rule's target on another host: what the URL serves is that URL's answer.
    proxy: str | None = None


class StaticSiteError(ValueError):
    """The folder or one of its rule files cannot be used; one line says why."""


def _content_type(path: Path) -> str:
    if path.suffix == ".gz":
        return "application/gzip"
    guessed, _ = mimetypes.guess_type(path.name)
    guessed = guessed or "application/octet-stream"
    return f"{guessed}; charset=utf-8" if guessed.startswith("text/") or guessed.endswith("xml") else guessed


class StaticSite:
    def __init__(self, folder: str | Path, base: str, *, pretty_urls: bool = True) -> None:
        self.folder = Path(folder).resolve()
        if not self.folder.is_dir():
            raise StaticSiteError(f"site: {str(folder)!r} is not a folder")
        parts = urlsplit(base)
        self.origin = f"{parts.scheme}://{parts.netloc}"
        self.prefix = parts.path if parts.path.endswith("/") else parts.path + "/"
        self.pretty_urls = pretty_urls
        self.redirects = self._read_rules("_redirects", parse_redirects)
        self.headers = self._read_rules("_headers", parse_headers)

    @property
    def problems(self) -> list[str]:
        """One line per rule line the hosts would refuse: left out, the rest applies."""
        return self.redirects.problems + self.headers.problems

    def serves(self, url: str) -> bool:
        parts = urlsplit(url)
        return f"{parts.scheme}://{parts.netloc}" == self.origin and (parts.path + "/").startswith(self.prefix)

    def answer(self, url: str, method: str = "GET") -> StaticAnswer:
        parts = urlsplit(url)
        path = parts.path or "/"
        answer = self._routed(path, parts.query)
        answer.headers += self.headers.headers_for(self.origin, path)
        if method == "HEAD":
            answer.body = b""
        return answer

    def locale_rule(self, url: str) -> tuple[RedirectRule, str] | None:
        """The first `_redirects` rule with a Language= or Country= condition that answers `url` otherwise
        for the visitors it names, and its TO filled in; None where every visitor gets what the crawl
        got. An existing file shadows such a rule as it shadows any other, unless it is forced (`!`),
        and a 200 rule onto the URL's own path serves the same page."""
        parts = urlsplit(url)
        path = parts.path or "/"
        for rule, target in self.redirects.by_locale(self.origin, path, parts.query):
            if not rule.force and self._answer(path).status != 404:
                continue
            if rule.status == 200 and urlsplit(target).path == path and not urlsplit(target).netloc:
                continue
            return rule, target
        return None

    def _routed(self, path: str, query: str) -> StaticAnswer:
        """The first matching `_redirects` rule, unless a file at `path` shadows it (not forced)."""
        found = self.redirects.redirect(self.origin, path, query)
        if found is None:
            return self._answer(path)
        rule, target = found
        served = self._answer(path)
        if served.status != 404 and not rule.force:
            return served
        if rule.is_redirect:
            return StaticAnswer(rule.status, [("Location", target)])
        where = urlsplit(target)
        if where.scheme and f"{where.scheme}://{where.netloc}" != self.origin:
            if rule.status == 200:
                return StaticAnswer(200, proxy=target)
            return self._not_found(rule.status)  # the page of a gone URL, kept on another host
        content = self._answer(where.path or "/")
        if rule.status == 200:
            return content
        return self._not_found(rule.status, content.body if content.status == 200 else None)

    def _answer(self, path: str) -> StaticAnswer:
        try:
            relative = unquote(path[len(self.prefix) - 1 :], errors="strict")
        except UnicodeDecodeError:
            return self._not_found()  # percent-encoded bytes that name no UTF-8 file
        if not path.startswith(self.prefix) or "\x00" in relative or relative in RULE_FILES:
            return self._not_found()
        candidate = (self.folder / relative.lstrip("/")).resolve()
        if candidate != self.folder and self.folder not in candidate.parents:
            return StaticAnswer(403, [("Content-Type", "text/plain; charset=utf-8")], b"Forbidden\n")
        if path.endswith("/"):
            return self._file(candidate / "index.html")
        if candidate.is_dir():
            return StaticAnswer(301, [("Location", path + "/")])
        if candidate.is_file():
            return self._file(candidate)
        if self.pretty_urls and not candidate.suffix:
            return self._file(candidate.with_name(candidate.name + ".html"))
        return self._not_found()

    def _file(self, path: Path) -> StaticAnswer:
        if not path.is_file():
            return self._not_found()
        return StaticAnswer(200, [("Content-Type", _content_type(path))], path.read_bytes())

    def _not_found(self, status: int = 404, body: bytes | None = None) -> StaticAnswer:
        page = self.folder / "404.html"
        if body is None:
            body = page.read_bytes() if page.is_file() else b"<!doctype html><title>Not found</title>"
        return StaticAnswer(status, [("Content-Type", "text/html; charset=utf-8")], body)

    def _read_rules(self, name: str, parse: Callable[[str, str], RuleFile]) -> RuleFile:
        """The rules of one file; a file that cannot be read is one problem, as a refused line is."""
        path = self.folder / name
        if not path.exists():
            return RuleFile()
        try:
            text = path.read_bytes().decode("utf-8", errors="replace")
        except OSError as exc:
            rules = RuleFile()
            rules.problems.append(f"{name}: cannot be read ({exc.strerror or exc}); no rule of it applies")
            return rules
        return parse(text, name)
