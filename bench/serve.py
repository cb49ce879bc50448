"""Serve a generated site on 127.0.0.1 fast enough that the crawler, not the server, is measured.

nginx (Debian: ``apt-get install -y nginx-light``) answers tens of thousands of static requests a
second on one core; it runs in the foreground (``daemon off``) from a config generated in a temp
folder, access log off, and stops with the benchmark. Where nginx is absent, a threaded Python
server serves the folder instead: enough for the smoke test, but on two cores it competes with the
crawler for CPU, so numbers taken with it say so. ``--access-log PATH`` logs every request as one
line, ``METHOD URI STATUS``, so that a benchmark can count URLs fetched more than once. Usage::

    python bench/serve.py /tmp/site --port 8080 [--server nginx|python] [--access-log PATH]
"""

from __future__ import annotations

import argparse
import functools
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Callable, Iterator

NGINX_CONFIG = """\
worker_processes 1;
daemon off;
pid {state}/nginx.pid;
error_log {state}/error.log warn;
{user}
events {{ worker_connections 1024; }}
http {{
    {access_log}
    default_type text/html;
    types {{ text/html html; application/xml xml; text/plain txt; }}
    sendfile on;
    tcp_nopush on;
    keepalive_requests 1000000;
    client_body_temp_path {state}/body;
    proxy_temp_path {state}/proxy;
    fastcgi_temp_path {state}/fastcgi;
    uwsgi_temp_path {state}/uwsgi;
    scgi_temp_path {state}/scgi;
    server {{
        listen 127.0.0.1:{port};
        root {root};
        index index.html;
    }}
}}
"""


@dataclass(frozen=True)
class Served:
    kind: str  # "nginx" or "python"
    base_url: str


def free_port() -> int:
    """A port free on 127.0.0.1 now: the site's URLs (sitemaps) must name it before it is served."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def nginx_binary() -> str | None:
    return shutil.which("nginx") or next((p for p in ("/usr/sbin/nginx",) if os.access(p, os.X_OK)), None)


def _wait_listening(port: int, alive: Callable[[], bool], timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not alive():
            raise RuntimeError(f"the server on port {port} exited before listening")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError(f"nothing listens on 127.0.0.1:{port} after {timeout:.0f} s")


@contextmanager
def _nginx(binary: str, root: Path, port: int, access_log: Path | None) -> Iterator[Served]:
    with tempfile.TemporaryDirectory(prefix="qivrora-nginx-") as state:
        # Started by root, workers would run as `nobody`, who cannot read a mkdtemp folder (0700).
        user = "user root;" if os.geteuid() == 0 else ""
        config = Path(state) / "nginx.conf"
        logged = (
            f"log_format bench '$request_method $request_uri $status'; access_log {access_log.resolve()} bench;"
            if access_log else "access_log off;"  # off by default: a log line a request costs the server CPU
        )
        config.write_text(
            NGINX_CONFIG.format(state=state, user=user, port=port, root=root.resolve(), access_log=logged)
        )
        process = subprocess.Popen(
            [binary, "-p", state, "-e", f"{state}/error.log", "-c", str(config)],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
        )
        try:
            try:
                _wait_listening(port, lambda: process.poll() is None)
            except RuntimeError as exc:
                process.kill()
                errors = process.communicate()[1].decode(errors="replace")
                raise RuntimeError(f"nginx did not start ({exc}): {errors}") from None
            yield Served("nginx", f"http://127.0.0.1:{port}")
        finally:
            if process.poll() is None:
                process.send_signal(signal.SIGQUIT)  # graceful: workers finish, then exit
                try:
                    process.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait()


class _QuietHandler(SimpleHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, as nginx and Scrapy's pool use

    #: Where each request is logged as ``METHOD URI STATUS`` (nginx's bench format), or nowhere.
    access_log: Path | None = None
    _lock = threading.Lock()

    def log_message(self, format: str, *args: object) -> None:
        pass

    def log_request(self, code: int | str = "-", size: int | str = "-") -> None:
        if self.access_log is not None:
            with self._lock, self.access_log.open("a", encoding="utf-8") as log:
                log.write(f"{self.command} {self.path} {int(code)}\n")


@contextmanager
def _python(root: Path, port: int, access_log: Path | None) -> Iterator[Served]:
    handler = type("_Handler", (_QuietHandler,), {"access_log": access_log})
    server = ThreadingHTTPServer(("127.0.0.1", port), functools.partial(handler, directory=str(root)))
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, name="bench-site", daemon=True)
    thread.start()
    try:
        yield Served("python", f"http://127.0.0.1:{port}")
    finally:
        server.shutdown()
        server.server_close()


@contextmanager
def serve(root: Path, port: int, server: str = "auto", access_log: Path | None = None) -> Iterator[Served]:
    """Serve `root` on 127.0.0.1:`port` with nginx when present (or asked), else Python; each request
    logged to `access_log` if given."""
    binary = nginx_binary() if server in ("auto", "nginx") else None
    if server == "nginx" and binary is None:
        raise RuntimeError("nginx not found: apt-get install -y nginx-light, or use --server python")
    with (_nginx(binary, root, port, access_log) if binary else _python(root, port, access_log)) as served:
        yield served


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("root", type=Path)
    parser.add_argument("--port", type=int, default=8080)
    parser.add_argument("--server", choices=("auto", "nginx", "python"), default="auto")
    parser.add_argument("--access-log", type=Path, help="log each request here: METHOD URI STATUS")
    args = parser.parse_args(argv)
    signal.signal(signal.SIGTERM, signal.default_int_handler)  # stop as on Ctrl-C: nginx goes too
    with serve(args.root, args.port, args.server, args.access_log) as served:
        print(f"serving {args.root} with {served.kind} at {served.base_url}/ (Ctrl-C stops)", flush=True)
        try:
            signal.pause()
        except KeyboardInterrupt:
            pass


if __name__ == "__main__":
    main()
