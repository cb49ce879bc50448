"""Serve a static build folder as if it were deployed at a base URL, the way static hosts do.

Pure: ``StaticSite.answer(url, method)`` maps a URL under the base to what a host such as Netlify,
Cloudflare Pages or GitHub Pages would answer from the folder. The mapping rules:

- ``/dir/`` serves ``dir/index.html``; ``/dir`` (a folder, no slash) answers 301 to ``/dir/``;
- ``/page.html`` serves that file; with pretty URLs (the default) ``/page`` serves ``page.html``;
- a missing file answers 404 (with ``404.html`` as body when the folder has one);
- ``_redirects`` (``/from /to [status]``, status 301 by default) and ``_headers`` (a path line, then
  indented ``Name: value`` lines) add redirects and headers, as Netlify and Cloudflare Pages read them;
- content types come from file extensions; ``.gz`` files are served as ``application/gzip``;
- the query string is ignored for the lookup; a path that would leave the folder (``..``,
  encoded or not) is refused with 403 and nothing outside the folder is ever read.
"""

from __future__ import annotations

import mimetypes
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import unquote, urlsplit

#: A redirect status a `_redirects` line may give.
REDIRECT_STATUSES = frozenset({301, 302, 303, 307, 308})


@dataclass(slots=True)
class StaticAnswer:
    status: int
    headers: list[tuple[str, str]] = field(default_factory=list)
    body: bytes = b""


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
        self.redirects = self._read_redirects()
        self.headers = self._read_headers()

    def serves(self, url: str) -> bool:
        parts = urlsplit(url)
        return f"{parts.scheme}://{parts.netloc}" == self.origin and (parts.path + "/").startswith(self.prefix)

    def answer(self, url: str, method: str = "GET") -> StaticAnswer:
        path = urlsplit(url).path or "/"
        answer = self._answer(path)
        answer.headers += self.headers.get(path, [])
        if method == "HEAD":
            answer.body = b""
        return answer

    def _answer(self, path: str) -> StaticAnswer:
        if path in self.redirects:
            status, target = self.redirects[path]
            return StaticAnswer(status, [("Location", target)])
        try:
            relative = unquote(path[len(self.prefix) - 1 :], errors="strict")
        except UnicodeDecodeError:
            return self._not_found()  # percent-encoded bytes that name no UTF-8 file
        if not path.startswith(self.prefix) or "\x00" in relative:
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

    def _not_found(self) -> StaticAnswer:
        page = self.folder / "404.html"
        body = page.read_bytes() if page.is_file() else b"<!doctype html><title>Not found</title>"
        return StaticAnswer(404, [("Content-Type", "text/html; charset=utf-8")], body)

    def _rule_lines(self, name: str) -> list[tuple[int, str]]:
        path = self.folder / name
        if not path.is_file():
            return []
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise StaticSiteError(f"site: cannot read {path}: {exc}") from None
        return [(n, line) for n, line in enumerate(text.splitlines(), 1) if line.strip() and not line.lstrip().startswith("#")]

    def _read_redirects(self) -> dict[str, tuple[int, str]]:
        found: dict[str, tuple[int, str]] = {}
        for number, line in self._rule_lines("_redirects"):
            parts = line.split()
            status = parts[2].rstrip("!") if len(parts) > 2 else "301"
            if len(parts) < 2 or not status.isdigit() or int(status) not in REDIRECT_STATUSES:
                raise StaticSiteError(f"site: _redirects line {number}: write `/from /to [301|302|307|308]`")
            found.setdefault(parts[0], (int(status), parts[1]))
        return found

    def _read_headers(self) -> dict[str, list[tuple[str, str]]]:
        found: dict[str, list[tuple[str, str]]] = {}
        current: list[tuple[str, str]] | None = None
        for number, line in self._rule_lines("_headers"):
            if not line[0].isspace():
                current = found.setdefault(line.strip(), [])
                continue
            name, colon, value = line.strip().partition(":")
            if current is None or not colon or not name.strip():
                raise StaticSiteError(f"site: _headers line {number}: write a path, then indented `Name: value` lines")
            current.append((name.strip(), value.strip()))
        return found
