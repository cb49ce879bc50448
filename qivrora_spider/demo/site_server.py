"""A small threaded HTTP server on 127.0.0.1 that serves chosen routes: the demo site and test sites.

Each route sets status, headers and body, so a test can build any site a crawler meets: redirects,
PDFs with Link headers, gzip sitemaps, 5xx. Every request is logged, so tests can show that each URL
was fetched once.
"""

from __future__ import annotations

import socket
import struct
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import unquote


@dataclass
class Route:
    body: bytes | str = b""
    status: int = 200
    content_type: str | None = "text/html; charset=utf-8"
    headers: list[tuple[str, str]] = field(default_factory=list)
    delay: float = 0.0  # seconds before answering (a slow server)
    reset: bool = False  # drop the connection without answering (TCP reset)
    chunked: bool = False  # the body in one chunk, no Content-Length (as a dynamic server sends it)
    #: What a locale-adaptive server answers a visitor whose Accept-Language starts with one of these
    #: languages instead (`fr-CA,fr;q=0.9` -> "fr"); without the header, this route.
    by_language: dict[str, Route] = field(default_factory=dict)

    def payload(self) -> bytes:
        return self.body.encode("utf-8") if isinstance(self.body, str) else self.body


NOT_FOUND = Route("<!doctype html><title>Not found</title><p>Not found", status=404)


class SiteServer:
    """``with SiteServer() as site: site.routes["/"] = Route(...); site.url("/")``."""

    def __init__(self, routes: dict[str, Route] | None = None, host: str = "127.0.0.1") -> None:
        self.routes: dict[str, Route] = dict(routes or {})
        #: What every missing path answers; a static host's ``404.html`` when a test sets one.
        self.not_found: Route = NOT_FOUND
        self.log: list[tuple[str, str]] = []
        #: The Accept-Language of each request, in order: (path, header or None).
        self.accept_language: list[tuple[str, str | None]] = []
        #: Answers wait while it is clear (at most a minute): a test holds a crawl until all its workers
        #: are in it.
        self.gate = threading.Event()
        self.gate.set()
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer((host, 0), self._handler_class())
        self._server.daemon_threads = True
        # stop() waits until the loop next looks at its flag: at serve_forever's default of half a
        # second, each server of a test suite that starts hundreds spent that much on stopping.
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.02}, name="site-server", daemon=True
        )

    @property
    def base(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    def url(self, path: str = "/") -> str:
        return self.base + path

    def start(self) -> SiteServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def __enter__(self) -> SiteServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def export(self, folder: Path) -> None:
        """Write the routes as a static build folder (files, `_redirects`, `_headers`).

        Only what a static host can serve: 200 routes become files (`/x/` -> `x/index.html`),
        3xx routes `_redirects` lines, extra headers `_headers` blocks; other statuses are left out
        (a missing file answers 404), and a `not_found` page of the test's own becomes `404.html`.
        """
        redirects, headers = [], []
        for path, route in sorted(self.routes.items()):
            extra = [(n, v) for n, v in route.headers if n.lower() != "location"]
            if 300 <= route.status < 400:
                location = dict((n.lower(), v) for n, v in route.headers)["location"]
                redirects.append(f"{path} {location} {route.status}")
                continue
            if route.status != 200:
                continue
            file = folder / unquote(path.lstrip("/"))
            if path.endswith("/"):
                file = file / "index.html"
            elif not file.suffix and "html" in (route.content_type or ""):
                file = file.with_name(file.name + ".html")  # served at /page by pretty URLs
            file.parent.mkdir(parents=True, exist_ok=True)
            file.write_bytes(route.payload())
            if extra:
                headers += [path, *(f"  {n}: {v}" for n, v in extra)]
        folder.mkdir(parents=True, exist_ok=True)
        if self.not_found is not NOT_FOUND:
            (folder / "404.html").write_bytes(self.not_found.payload())
        (folder / "_redirects").write_text("".join(line + "\n" for line in redirects))
        (folder / "_headers").write_text("".join(line + "\n" for line in headers))

    def requests(self, method: str | None = None) -> Counter[str]:
        """How many times each path was asked for (optionally one method only)."""
        with self._lock:
            return Counter(path for m, path in self.log if method is None or m == method)

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def _answer(self, with_body: bool) -> None:
                language = self.headers.get("Accept-Language")
                with server._lock:
                    server.log.append((self.command, self.path))
                    server.accept_language.append((self.path, language))
                route = server.routes.get(self.path, server.not_found)
                if language and route.by_language:
                    wanted = language.split(",")[0].split(";")[0].strip().split("-")[0].lower()
                    route = route.by_language.get(wanted, route)
                server.gate.wait(timeout=60)
                if route.delay:
                    time.sleep(route.delay)
                if route.reset:
                    # SO_LINGER 0: closing sends RST, not FIN; nothing more is read or written.
                    self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                    self.rfile.close()  # the socket closes when its last file does
                    self.connection.close()
                    self.close_connection = True
                    return
                payload = route.payload()
                self.send_response(route.status)
                if route.content_type:
                    self.send_header("Content-Type", route.content_type)
                for name, value in route.headers:
                    self.send_header(name, value)
                if route.chunked:
                    self.send_header("Transfer-Encoding", "chunked")
                    self.end_headers()
                    if with_body:
                        chunk = b"%x\r\n%s\r\n" % (len(payload), payload) if payload else b""
                        self.wfile.write(chunk + b"0\r\n\r\n")
                    return
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                if with_body:
                    self.wfile.write(payload)

            def do_GET(self) -> None:  # noqa: N802 (http.server's naming)
                self._answer(with_body=True)

            def do_HEAD(self) -> None:  # noqa: N802
                self._answer(with_body=False)

            def log_message(self, format: str, *args: object) -> None:
                pass  # the request log above is what tests read

        return Handler


def html_page(*head: str, body: str = "", lang: str | None = "en", title: str = "Page") -> str:
    """A small well-formed HTML page with the given head elements."""
    lang_attr = f' lang="{lang}"' if lang is not None else ""
    head_html = "\n".join(["<meta charset=\"utf-8\">", f"<title>{title}</title>", *head])
    return f"<!doctype html>\n<html{lang_attr}>\n<head>\n{head_html}\n</head>\n<body>\n{body}\n</body>\n</html>\n"


def alternate(hreflang: str, href: str) -> str:
    return f'<link rel="alternate" hreflang="{hreflang}" href="{href}">'


