"""A redis-server of one's own on 127.0.0.1, for the distributed tests and benchmark: nothing shared
with another Redis on the machine, and nothing saved unless it is to be restarted (``appendonly``)."""

from __future__ import annotations

import shutil
import socket
import subprocess
import time
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

from redis import Redis
from redis.exceptions import RedisError


class RedisMissing(RuntimeError):
    """Debian's redis-server package is not installed."""


@dataclass(frozen=True)
class TlsFiles:
    """A certificate authority and the server certificate it signed for 127.0.0.1, in PEM files."""

    authority: Path
    certificate: Path
    key: Path

    @classmethod
    def make(cls, folder: Path) -> TlsFiles:
        """Made with the openssl command, valid for a day."""
        files = cls(folder / "ca.crt", folder / "server.crt", folder / "server.key")
        authority_key = folder / "ca.key"
        request = folder / "server.csr"
        extension = folder / "san.cnf"
        extension.write_text("subjectAltName=IP:127.0.0.1\n")
        for command in (
            ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", authority_key, "-out", files.authority,
             "-days", "1", "-subj", "/CN=Qivrora test CA"],
            ["req", "-newkey", "rsa:2048", "-nodes", "-keyout", files.key, "-out", request, "-subj", "/CN=127.0.0.1"],
            ["x509", "-req", "-in", request, "-CA", files.authority, "-CAkey", authority_key, "-CAcreateserial",
             "-out", files.certificate, "-days", "1", "-extfile", extension],
        ):
            subprocess.run(["openssl", *map(str, command)], check=True, capture_output=True)
        return files


class RedisServer:
    """redis-server on a free port with `folder` as its directory. With `appendonly`, it writes every
    command to its append-only file (fsync'd each time), so that ``restart()`` brings the data back
    as a Redis restarted in production does."""

    def __init__(self, folder: Path, *, appendonly: bool = False, tls: TlsFiles | None = None) -> None:
        binary = shutil.which("redis-server")
        if binary is None:
            raise RedisMissing("redis-server not found: apt-get install -y redis-server")
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        persistence = ["--appendonly", "yes", "--appendfsync", "always"] if appendonly else ["--appendonly", "no"]
        listen = ["--port", str(port)]
        self.url = f"redis://127.0.0.1:{port}"
        if tls is not None:
            listen = [
                "--port", "0", "--tls-port", str(port), "--tls-cert-file", str(tls.certificate),
                "--tls-key-file", str(tls.key), "--tls-ca-cert-file", str(tls.authority), "--tls-auth-clients", "no",
            ]
            self.url = f"rediss://127.0.0.1:{port}?ssl_ca_certs={tls.authority}"
        self.command = [
            binary, "--bind", "127.0.0.1", *listen, "--save", "", *persistence, "--dir", str(folder),
        ]
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        self.process = subprocess.Popen(self.command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL)
        client, deadline = Redis.from_url(self.url), time.monotonic() + 10
        while True:
            try:
                client.ping()
                return
            except RedisError:
                if self.process.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError("redis-server did not start") from None
                time.sleep(0.05)

    def stop(self) -> None:
        """SIGTERM: Redis writes what it holds and exits, as a service restart stops it."""
        if self.process is not None:
            self.process.terminate()
            self.process.wait(timeout=10)
            self.process = None

    def restart(self, gone: float) -> None:
        """Stop, stay gone for `gone` seconds, start again on the same port and folder."""
        self.stop()
        time.sleep(gone)
        self.start()


@contextmanager
def redis_server(folder: Path) -> Iterator[str]:
    """Start redis-server on a free port with `folder` as its directory, saving nothing; yields its URL."""
    with running_redis(folder) as server:
        yield server.url


@contextmanager
def running_redis(folder: Path, *, appendonly: bool = False, tls: TlsFiles | None = None) -> Iterator[RedisServer]:
    """A ``RedisServer`` started, and stopped after."""
    server = RedisServer(folder, appendonly=appendonly, tls=tls)
    server.start()
    try:
        yield server
    finally:
        server.stop()
